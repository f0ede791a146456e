"""``kaeshi perft`` against the published Othello perft table and the naive reference."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_position_naive import grid, naive_perft

from controller.cli import main
from controller.perft import perft
from controller.position import Position

#: Leaves of the game tree from the standard start (passes count as a ply).
PUBLISHED = [4, 12, 56, 244, 1396, 8200, 55092, 390216, 3005288]


def run_perft(capsys: pytest.CaptureFixture[str], *argv: str) -> int:
    assert main(["perft", *argv]) == 0
    return int(capsys.readouterr().out.strip())


@pytest.mark.parametrize("depth", range(1, 10))
def test_perft_command_matches_published_table(capsys, depth):
    assert run_perft(capsys, str(depth)) == PUBLISHED[depth - 1]


def test_perft_depth_zero_is_one_leaf(capsys):
    assert run_perft(capsys, "0") == 1


def test_perft_without_symmetry_or_hashing_agrees():
    start = Position.start()
    for depth in range(1, 7):
        assert perft(start, depth, symmetry=False, hashing=False) == PUBLISHED[depth - 1]


@pytest.mark.parametrize(("size", "depth"), [(6, 6), (10, 4)])
def test_other_board_sizes_match_the_reference(capsys, size, depth):
    start = Position.start(size)
    expected = [naive_perft(grid(start), size, "X", d) for d in range(1, depth + 1)]
    got = [run_perft(capsys, str(d), "--size", str(size)) for d in range(1, depth + 1)]
    assert got == expected


def test_perft_from_a_board_string_with_white_to_move(capsys):
    pos = Position.handicap(2)
    expected = naive_perft(grid(pos), 8, "O", 4)
    assert run_perft(capsys, "4", "--board", pos.board_string(), "--to-move", "O") == expected


def test_perft_counts_a_finished_game_as_one_leaf(capsys):
    only_black = "X" + "-" * 63  # nobody can move: the game is over at the root
    assert run_perft(capsys, "5", "--board", only_black) == 1


def test_perft_counts_a_pass_as_a_ply(capsys):
    # Black a1, white b1, white to move: white has no move, black then takes b1 with c1.
    board = ["-"] * 64
    board[0], board[1] = "X", "O"
    pos = "".join(board)
    assert run_perft(capsys, "1", "--board", pos, "--to-move", "O") == 1  # the pass
    assert run_perft(capsys, "2", "--board", pos, "--to-move", "O") == 1  # pass, then c1
    assert run_perft(capsys, "3", "--board", pos, "--to-move", "O") == 1  # game over
    assert naive_perft(list(pos), 8, "O", 3) == 1


def test_negative_depth_is_a_clean_error(capsys):
    assert main(["perft", "-1"]) == 1
    assert "depth" in capsys.readouterr().err


def _documented_counts() -> dict[int, list[int]]:
    """The per-size perft rows of docs/rules-engine.md."""
    page = (Path(__file__).resolve().parents[2] / "docs" / "rules-engine.md").read_text()
    rows = re.findall(r"^\| (\d+)×\1 \| 1–\d+ \| ([\d, ]+) \|$", page, re.M)
    return {int(n): [int(x) for x in counts.split(", ")] for n, counts in rows}


@pytest.mark.parametrize(("size", "depth"), [(6, 8), (10, 8)])
def test_perft_of_other_sizes_matches_the_documented_counts(capsys, size, depth):
    documented = _documented_counts()[size]
    got = [run_perft(capsys, str(d), "--size", str(size)) for d in range(1, depth + 1)]
    assert got == documented[:depth]
