"""WTHOR ``.wtb`` reading and writing, with the ``WTHOR.JOU``/``WTHOR.TRN`` name files."""

from __future__ import annotations

import datetime as dt
import shutil
import struct

import pytest

from controller.position import Position
from controller.records import GameRecord, RecordError, load_games, read_wthor, save_games
from controller.records.model import Move
from controller.records.wthor import (
    GAME,
    HEADER,
    decode_square,
    encode_square,
    read_names,
    scan_wthor_bytes,
    write_wthor,
)
from controller.squares import Color, parse_square

DAY = dt.date(2024, 5, 6)
# A short legal game and a finished one (a wipe-out in 9 moves, the shortest possible).
SHORT = ["f5", "d6", "c3", "d3", "c4"]
WIPEOUT = ["f5", "f6", "f7", "g5", "h4", "c5", "b5", "f4", "e3"]


def game(moves: list[str], **info: object) -> GameRecord:
    return GameRecord.from_squares(moves, **info)


def wtb(*records: bytes, declared: int | None = None, board: int = 8) -> bytes:
    n = len(records) if declared is None else declared
    return HEADER.pack(20, 24, 1, 2, n, 0, 2024, board, 0, 22, 0) + b"".join(records)


def record(
    moves: list[str] | bytes, score: int = 32, trn: int = 0, black: int = 1, white: int = 2
) -> bytes:
    raw = (
        moves if isinstance(moves, bytes) else bytes(encode_square(parse_square(m)) for m in moves)
    )
    return GAME.pack(trn, black, white, score, score, raw.ljust(60, b"\0"))


# ------------------------------------------------------------------ squares
def test_move_bytes_are_ten_times_row_plus_column():
    assert encode_square(parse_square("a1")) == 11
    assert encode_square(parse_square("h1")) == 18
    assert encode_square(parse_square("a8")) == 81
    assert encode_square(parse_square("h8")) == 88
    assert encode_square(parse_square("f5")) == 56  # every WTHOR game's first move
    assert all(decode_square(encode_square(i)) == i for i in range(64))
    assert decode_square(0) is None and decode_square(19) is None and decode_square(90) is None


# ------------------------------------------------------------------ reading
def test_reads_games_with_passes_filled_in():
    scan = scan_wthor_bytes(
        wtb(record(SHORT), record(WIPEOUT, 64)), "t.wtb", ["???", "Ann", "Bob"], ["Cup"]
    )
    one, two = scan.records()
    assert one.transcript_moves() == SHORT
    assert (one.black, one.white, one.event, one.date) == ("Ann", "Bob", "Cup", "2024")
    assert one.result == (32, 32)
    assert two.result == (64, 0)
    assert scan.games[1].final.is_game_over()
    assert one.extra["WTHOR"] == "trn=0 black=1 white=2 theory=32 depth=22"


def test_name_numbers_beyond_the_name_files_are_warned_about():
    scan = scan_wthor_bytes(wtb(record(SHORT, black=7)), "t.wtb", ["???", "Ann", "Bob"], ["Cup"])
    (g,) = scan.records()
    assert (g.black, g.white) == ("", "Bob")
    assert scan.warnings == ["t.wtb: game 1: player number 7 is not in the name file (3 names)"]


def test_final_partial_record_is_ignored_with_a_warning():
    data = wtb(record(SHORT), record(WIPEOUT))[:-10]
    scan = scan_wthor_bytes(data, "t.wtb")
    assert len(scan.records()) == 1
    assert any("partial record of 58 bytes" in w for w in scan.warnings)
    assert any("header says 2 games, file holds 1" in w for w in scan.warnings)


def test_illegal_move_names_game_offset_and_move_number():
    bad = record(["f5", "d6", "a1"])
    scan = scan_wthor_bytes(wtb(record(SHORT), bad), "t.wtb")
    assert scan.games[0].error is None
    err = scan.games[1].error
    assert err is not None
    assert str(err) == ("t.wtb: game 2: offset 84: move 3: black cannot play a1: it turns no disc")
    with pytest.raises(RecordError, match="game 2"):
        scan.records()


def test_byte_that_is_no_square_is_named():
    scan = scan_wthor_bytes(wtb(record(b"\x38\x63")), "t.wtb")
    assert "move 2: byte 99 is not a square" in str(scan.games[0].error)


def test_move_after_the_end_marker_is_refused():
    scan = scan_wthor_bytes(wtb(record(b"\x38\x00\x40")), "t.wtb")
    assert "after the end of the game (move 3)" in str(scan.games[0].error)


def test_score_above_64_is_refused():
    scan = scan_wthor_bytes(wtb(record(SHORT, score=65)), "t.wtb")
    assert "real score 65" in str(scan.games[0].error)


def test_short_header_and_foreign_board_size_are_named():
    with pytest.raises(RecordError, match=r"t\.wtb: 10 bytes, shorter than the 16-byte"):
        scan_wthor_bytes(b"\0" * 10, "t.wtb")
    with pytest.raises(RecordError, match="board size 10"):
        scan_wthor_bytes(wtb(board=10), "t.wtb")


def test_names_found_beside_the_file_in_any_case(tmp_path, data_dir):
    src = data_dir / "games" / "wthor"
    shutil.copy(src / "WTH_1977.wtb", tmp_path / "wth_1977.WTB")
    shutil.copy(src / "WTHOR.JOU", tmp_path / "wthor.jou")
    shutil.copy(src / "WTHOR.TRN", tmp_path / "Wthor.Trn")
    games = load_games(tmp_path / "wth_1977.WTB")
    assert games[0].black == "Inoue Hiroshi"


def test_missing_name_files_leave_names_empty_but_keep_numbers(tmp_path, data_dir):
    shutil.copy(data_dir / "games" / "wthor" / "WTH_1977.wtb", tmp_path / "x.wtb")
    games = read_wthor(tmp_path / "x.wtb")
    assert games[0].black == "" and "black=346" in games[0].extra["WTHOR"]
    named = read_wthor(tmp_path / "x.wtb", names_dir=data_dir / "games" / "wthor")
    assert named[0].black == "Inoue Hiroshi"


# ------------------------------------------------------------------ writing
def test_writing_creates_name_files_and_reads_back(tmp_path):
    games = [
        game(SHORT, black="Ann", white="Bob", event="Club night", date="2024-03-01"),
        game(WIPEOUT, black="Bob", white="Cho", event="Club night"),
    ]
    write_wthor(games, tmp_path / "club.wtb", created=DAY)
    back = read_wthor(tmp_path / "club.wtb")
    assert [(g.black, g.white, g.event) for g in back] == [
        ("Ann", "Bob", "Club night"),
        ("Bob", "Cho", "Club night"),
    ]
    assert [g.transcript_moves() for g in back] == [SHORT, WIPEOUT]
    assert back[1].result == (64, 0)
    # Unfinished game without a stated result: empties to the side ahead.
    assert back[0].result == back[0].final_position().final_score()
    assert read_names(tmp_path / "WTHOR.JOU", 20) == ["Ann", "Bob", "Cho"]
    assert read_names(tmp_path / "WTHOR.TRN", 26) == ["Club night"]
    header = HEADER.unpack((tmp_path / "club.wtb").read_bytes()[:16])
    assert header[:4] == (20, 24, 5, 6) and header[4] == 2 and header[6] == 2024
    jou_header = HEADER.unpack((tmp_path / "WTHOR.JOU").read_bytes()[:16])
    assert jou_header[5] == 3  # number of records


def test_writing_appends_only_unknown_names_to_existing_files(tmp_path, data_dir):
    src = data_dir / "games" / "wthor"
    for f in ("WTHOR.JOU", "WTHOR.TRN"):
        shutil.copy(src / f, tmp_path / f)
    before = (tmp_path / "WTHOR.JOU").read_bytes()
    g = game(SHORT, black="Inoue Hiroshi", white="Nouveau Joueur", event="World Championship")
    save_games([g], tmp_path / "new.wtb")
    after = (tmp_path / "WTHOR.JOU").read_bytes()
    assert after[16 : len(before)] == before[16:]  # existing names keep their numbers
    assert after[len(before) :] == b"Nouveau Joueur".ljust(20, b"\0")
    assert struct.unpack_from("<H", after, 8)[0] == len(read_names(src / "WTHOR.JOU", 20)) + 1
    assert (tmp_path / "WTHOR.TRN").read_bytes() == (src / "WTHOR.TRN").read_bytes()
    back = read_wthor(tmp_path / "new.wtb")[0]
    assert (back.black, back.white, back.event) == (
        "Inoue Hiroshi",
        "Nouveau Joueur",
        "World Championship",
    )


def test_long_and_non_latin_names_are_fitted(tmp_path):
    # A name record is 20 bytes of Latin-1 with a closing NUL: 19 letters at most,
    # letters Latin-1 lacks become "?".
    g = game(SHORT, black="Abcdefghij Klmnopqrstuvwxyz", white="山田 太郎 Müller")
    write_wthor([g], tmp_path / "x.wtb", created=DAY)
    back = read_wthor(tmp_path / "x.wtb")[0]
    assert back.black == "Abcdefghij Klmnopqr"
    assert back.white == "?? ?? Müller"
    # Writing the read-back game again finds the same names: nothing appended.
    write_wthor([back], tmp_path / "y.wtb", created=DAY)
    assert read_names(tmp_path / "WTHOR.JOU", 20) == [back.black, back.white]


def test_games_wthor_cannot_hold_are_refused_and_nothing_written(tmp_path):
    handicap = GameRecord(start=Position.handicap(1), moves=[])
    with pytest.raises(RecordError, match="game 2: WTHOR holds only games from the standard"):
        write_wthor([game(SHORT), handicap], tmp_path / "x.wtb", created=DAY)
    assert not (tmp_path / "x.wtb").exists()
    illegal = GameRecord(moves=[Move(Color.BLACK, "a1")])
    with pytest.raises(RecordError, match="game 1: move 1: black cannot play a1"):
        write_wthor([illegal], tmp_path / "x.wtb", created=DAY)
