"""Every real game we have must read, replay, verify and round-trip.

Data: two WTHOR years with their name files (``WTH_1977.wtb``, ``WTH_2001.wtb``
with 5575 games) and a GGF file from a game server.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from controller.cli import main
from controller.records import (
    load_games,
    parse_transcript,
    read_ggf_text,
    scan_file,
    transcript,
    write_ggf,
)
from controller.records.ggf import write_ggf_games
from controller.records.jsonform import dumps, loads
from controller.records.wthor import GAME, HEADER, write_wthor


@pytest.fixture(scope="module")
def wthor_dir(data_dir: Path) -> Path:
    return data_dir / "games" / "wthor"


@pytest.fixture(scope="module")
def ggf_file(data_dir: Path) -> Path:
    return data_dir / "games" / "ggf" / "ntest_TestGames.ggf"


@pytest.fixture(scope="module")
def scan_2001(wthor_dir: Path):
    return scan_file(wthor_dir / "WTH_2001.wtb")


@pytest.fixture(scope="module")
def games_2001(scan_2001):
    return scan_2001.records()


def test_verify_command_passes_every_real_file(capsys, wthor_dir, ggf_file):
    files = [str(wthor_dir / "WTH_1977.wtb"), str(wthor_dir / "WTH_2001.wtb"), str(ggf_file)]
    assert main(["record", "verify", *files]) == 0
    out, err = capsys.readouterr()
    assert out == "games: 5599, illegal: 0, score_mismatch: 0, unfinished: 0\n"
    assert err == ""


def test_wthor_2001_reads_with_names_and_scores(scan_2001, games_2001):
    assert scan_2001.warnings == []
    assert len(games_2001) == 5575
    first = games_2001[0]
    assert (first.black, first.white, first.event) == (
        "Hubbard Paul",
        "Vinar Matt",
        "Australian National",
    )
    assert first.date == "2001"
    assert first.result == (11, 53)
    for entry in scan_2001.games:
        game, final = entry.game, entry.final
        assert final.is_game_over()
        assert final.final_score() == game.result
        assert game.transcript_moves()[0] == "f5"  # WTHOR turns every game to open f5
        assert game.black and game.white and game.event
    # The model's own replay agrees with the reader's.
    for entry in scan_2001.games[::97]:
        assert entry.game.final_position() == entry.final


def test_wthor_1977_names_come_from_the_name_files(wthor_dir):
    games = load_games(wthor_dir / "WTH_1977.wtb")
    assert len(games) == 12
    assert games[0].black == "Inoue Hiroshi"
    assert games[0].white == "Heiberg Thomas"
    assert games[0].event == "World Championship"
    assert games[0].result == (34, 30)


def test_wthor_1977_to_ggf_to_wthor_is_byte_identical(tmp_path, wthor_dir):
    _round_trip(tmp_path, wthor_dir, "WTH_1977.wtb", load_games(wthor_dir / "WTH_1977.wtb"))


def test_wthor_2001_to_ggf_to_wthor_is_byte_identical(tmp_path, wthor_dir, games_2001):
    _round_trip(tmp_path, wthor_dir, "WTH_2001.wtb", games_2001)


def _round_trip(tmp_path: Path, wthor_dir: Path, name: str, games: list) -> None:
    for f in ("WTHOR.JOU", "WTHOR.TRN"):
        shutil.copy(wthor_dir / f, tmp_path / f)
    text = write_ggf_games(games)
    again = read_ggf_text(text)
    out = tmp_path / name
    write_wthor(again, out)
    original = (wthor_dir / name).read_bytes()
    written = out.read_bytes()
    assert written[HEADER.size :] == original[HEADER.size :]
    # Header: same game count, year and depth (only the creation date differs).
    assert written[4:16] == original[4:16]
    assert len(written) == HEADER.size + GAME.size * len(games)
    # Every name was known already: the name files are untouched.
    for f in ("WTHOR.JOU", "WTHOR.TRN"):
        assert (tmp_path / f).read_bytes() == (wthor_dir / f).read_bytes()


def _ggf_values(
    text: str,
) -> list[tuple[dict[str, str], list[tuple[str, str, float | None, float | None]]]]:
    """A GGF file as plain values, parsed independently of the module under test."""
    out = []
    for body in re.findall(r"\(;(.*?);\)", text, re.S):
        tags: dict[str, str] = {}
        moves = []
        for tag, value in re.findall(r"([A-Z]+)\[([^\]]*)\]", body):
            if tag in ("B", "W"):
                parts = (value.split("/") + ["", ""])[:3]
                sq = parts[0].lower()
                sq = "pass" if sq in ("pa", "pass") else sq
                moves.append(
                    (
                        tag,
                        sq,
                        float(parts[1]) if parts[1] else None,
                        float(parts[2]) if parts[2] else None,
                    )
                )
            elif tag == "RE":
                tags[tag] = str(float(value.split(":")[0]))
            else:
                tags[tag] = value
        out.append((tags, moves))
    return out


def test_ggf_to_json_to_ggf_keeps_every_value(ggf_file):
    text = ggf_file.read_text()
    games = read_ggf_text(text)
    assert len(games) == 12
    again = loads(dumps(games))
    assert again == games
    assert _ggf_values(write_ggf_games(again)) == _ggf_values(text)


def test_ggf_real_results_and_clocks(ggf_file):
    games = read_ggf_text(ggf_file.read_text())
    first = games[0]
    assert (first.black, first.white, first.place) == ("Saio1200", "Saio3000", "GGS/os")
    assert first.date == "2003-12-15"
    assert first.time_control == "05:00//02:00"
    assert first.extra["RB"] == "2196.37"
    assert first.moves[0].square == "d3" and first.moves[0].time == 0.01
    assert first.moves[7].eval == 2.39
    assert [g.result for g in games].count((32, 32)) == 11
    assert (33, 31) in [g.result for g in games]
    assert any(m.square is None for g in games for m in g.moves)  # the file has passes


def test_real_games_round_trip_through_transcripts(games_2001, ggf_file):
    sample = games_2001[::50] + read_ggf_text(ggf_file.read_text())
    for game in sample:
        text = transcript(game)
        assert text == text.lower() and " " not in text
        again = parse_transcript(text)
        assert [(m.player, m.square) for m in again.moves] == [
            (m.player, m.square) for m in game.moves
        ]
        assert again.final_position() == game.final_position()


def test_write_ggf_of_a_wthor_game_keeps_names_and_numbers(wthor_dir):
    game = load_games(wthor_dir / "WTH_1977.wtb")[0]
    text = write_ggf(game)
    assert "PB[Inoue Hiroshi]" in text and "EV[World Championship]" in text
    assert "RE[+4.000]" in text
    assert read_ggf_text(text)[0] == game
