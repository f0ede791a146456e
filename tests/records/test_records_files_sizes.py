"""6x6 and 10x10 games through every format that can hold them, and refused by WTHOR.

GGS wrote such games with ``TY[6]``/``TY[10]`` and ``BO[<size> <rows> <side>]``; a
transcript names its size in front; JSON keeps the start's size.
"""

from __future__ import annotations

import struct
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.cli import main as cli_main
from controller.position import Position
from controller.records import GameRecord, load_games
from controller.records.ggf import read_ggf_text, write_ggf
from controller.records.jsonform import dumps, loads
from controller.records.model import RecordError
from controller.records.transcript import parse_transcript, scan_transcripts, transcript
from controller.records.wthor import write_wthor
from controller.simulator import random_game


def whole_game(size: int, seed: int, **info: str) -> GameRecord:
    game = replace(random_game(size, seed), **info)
    game.result = game.final_position().final_score()
    return game


@settings(max_examples=25, deadline=None)
@given(st.sampled_from([6, 10]), st.integers(0, 10_000),
       st.lists(st.floats(0, 900, allow_nan=False).map(lambda x: round(x, 2)), max_size=5))
def test_ggf_round_trip_of_whole_games(size, seed, times):
    game = whole_game(size, seed, black="Ann", white="Bob", event="Side event")
    for mv, t in zip(game.moves, times, strict=False):
        mv.time = t
    game.moves[len(game.moves) // 2].comment = "forgotten_flip c3"
    text = write_ggf(game)
    assert f"TY[{size}]" in text and f"BO[{size} " in text
    (back,) = read_ggf_text(text)
    assert back == game
    assert back.final_position().is_game_over()


def test_ggf_as_ggs_wrote_a_ten_by_ten_game():
    start = Position.start(10)
    rows = " ".join(start.board_string().replace("X", "*")[r * 10:(r + 1) * 10]
                    for r in range(10))
    text = (f"(;GM[Othello]PC[GGS/os]DT[2003.12.15_13:24:03.MST]PB[a]PW[b]RB[2000.00]"
            f"RW[1900.00]TI[15:00//02:00]TY[10]RE[+0.000]BO[10 {rows} *]B[e4//1.2]W[f4];)")
    (g,) = read_ggf_text(text)
    assert g.start == start and [m.square for m in g.moves] == ["e4", "f4"]
    assert g.moves[0].time == 1.2
    assert write_ggf(g).count("TY[10]") == 1


def test_a_type_with_letters_keeps_them_and_names_its_size():
    (g,) = read_ggf_text("(;GM[Othello]TY[6r]B[c2];)")
    assert g.start == Position.start(6) and g.extra["TY"] == "6r"
    assert "TY[6r]" in write_ggf(g)


def test_a_type_naming_another_size_than_the_board_is_refused():
    board = Position.start(6)
    rows = " ".join(board.board_string()[r * 6:(r + 1) * 6] for r in range(6))
    with pytest.raises(RecordError, match=r"TY\[10\] says a 10x10 board, BO\[\] holds a 6x6"):
        read_ggf_text(f"(;GM[Othello]TY[10]BO[6 {rows.replace('X', '*')} *];)")


@pytest.mark.parametrize("size", [6, 10])
def test_json_and_transcript_carry_the_size(size):
    game = whole_game(size, 3)
    back = loads(dumps([game]))[0]
    assert back.start.size == size and back.moves == game.moves
    line = transcript(game)
    assert line.startswith(f"{size}x{size} ")
    again = parse_transcript(line)
    assert again.start == Position.start(size) and again.moves == game.moves
    scan = scan_transcripts(f"# a side event\n{line}\n{transcript(whole_game(8, 1))}\n", "t.txt")
    assert [g.game.start.size for g in scan.games if g.game] == [size, 8]


def test_an_eight_by_eight_transcript_is_written_as_ever():
    game = whole_game(8, 4)
    assert transcript(game) == "".join(game.transcript_moves())


@pytest.mark.parametrize(("line", "message"), [
    ("7x7 c2", "'7x7': not a board size Kaeshi plays"),
    ("6x10 c2", "'6x10': a board is square"),
    ("6x6 i9", "starts no move"),
])
def test_a_bad_size_prefix_is_named(line, message):
    with pytest.raises(RecordError, match=message):
        parse_transcript(line)


def test_wthor_refuses_a_six_by_six_game_naming_it(tmp_path):
    with pytest.raises(RecordError, match="game 1 .*WTHOR holds only 8x8 games, this one is 6x6"):
        write_wthor([whole_game(6, 1, black="Ann", white="Bob")], tmp_path / "x.wtb")


@pytest.mark.parametrize("board", [6, 10])
def test_wthor_refuses_a_database_of_another_board_size(tmp_path, board):
    header = struct.pack("<BBBBIHHBBBB", 20, 26, 1, 1, 0, 0, 2026, board, 0, 0, 0)
    path = tmp_path / "odd.wtb"
    path.write_bytes(header)
    with pytest.raises(RecordError, match=f"board size {board}; only 8x8"):
        load_games(path)


def test_record_verify_checks_every_size(tmp_path, capsys):
    games = [whole_game(n, 10 + n) for n in (6, 8, 10)]
    ggf = tmp_path / "all.ggf"
    ggf.write_text("".join(write_ggf(g) + "\n" for g in games), encoding="utf-8")
    txt = tmp_path / "all.txt"
    txt.write_text("".join(transcript(g) + "\n" for g in games), encoding="utf-8")
    assert cli_main(["record", "verify", str(ggf), str(txt)]) == 0
    out = capsys.readouterr().out
    assert "games: 6, illegal: 0, score_mismatch: 0, unfinished: 0" in out
    games[2].result = (1, 99)  # a 10x10 result the board does not give
    ggf.write_text("".join(write_ggf(g) + "\n" for g in games), encoding="utf-8")
    assert cli_main(["record", "verify", str(ggf)]) == 1
    assert "stated result 1-99, but the board ends" in capsys.readouterr().err
