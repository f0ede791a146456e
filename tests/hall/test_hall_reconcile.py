"""Explaining a board that changed while the link was down."""

from __future__ import annotations

import random

from controller.hall.reconcile import reconcile
from controller.position import Position
from controller.squares import Color

START = Position.start()


def test_unchanged_board_needs_no_moves():
    r = reconcile(START.board_string(), START.board_string())
    assert r.explained and r.moves == () and r.boards == ()


def test_one_and_two_moves_are_reconstructed():
    p1 = START.play("d3")
    p2 = p1.play("c3")
    r = reconcile(START.board_string(), p2.board_string())
    assert r.explained
    assert r.moves == ((Color.BLACK, "d3"), (Color.WHITE, "c3"))
    assert r.boards == (p1.board_string(), p2.board_string())


def find_forced_pass() -> tuple[Position, str, str]:
    """A position, a move after which the opponent must pass, and the mover's next move."""
    rng = random.Random(5)
    for _ in range(2000):
        pos = START
        while not pos.is_game_over():
            if not pos.legal_moves():
                pos = pos.pass_turn()
                continue
            for sq in pos.legal_squares():
                nxt = pos.play(sq)
                if nxt.must_pass():
                    again = nxt.pass_turn()
                    return pos, sq, again.legal_squares()[0]
            pos = pos.play(rng.choice(pos.legal_squares()))
    raise AssertionError("no forced pass found")


def test_forced_pass_is_inserted():
    pos, first, second = find_forced_pass()
    mover = pos.to_move
    end = pos.play(first).pass_turn().play(second)
    r = reconcile(pos.board_string(), end.board_string(), mover)
    assert r.explained
    assert r.moves == ((mover, first), (mover.opponent, None), (mover, second))
    assert len(r.boards) == 2


def test_removed_disc_is_not_explained():
    board = START.board_string()
    changed = board.replace("X", "-", 1)
    r = reconcile(board, changed)
    assert not r.explained and "removed" in r.reason


def test_board_no_legal_sequence_reaches_is_not_explained():
    board = START.board_string()
    r = reconcile(board, "X" + board[1:])
    assert not r.explained and "no sequence of legal moves" in r.reason


def test_unknown_squares_are_not_guessed():
    board = START.board_string()
    r = reconcile(board, board[:10] + "?" + board[11:])
    assert not r.explained and "unknown" in r.reason


def test_too_many_moves_are_not_searched():
    rng = random.Random(3)
    pos = START
    for _ in range(8):
        pos = pos.play(rng.choice(pos.legal_squares()))
    r = reconcile(START.board_string(), pos.board_string())
    assert not r.explained and "too many" in r.reason


def find_commuting_pair() -> tuple[Position, str, str]:
    """A position where a black and a white move can be played in either order."""
    rng = random.Random(11)
    for _ in range(200):
        pos = START
        for _ in range(rng.randrange(6, 20)):
            if pos.is_game_over():
                break
            pos = (
                pos.pass_turn()
                if not pos.legal_moves()
                else pos.play(rng.choice(pos.legal_squares()))
            )
        b = pos.with_to_move(Color.BLACK)
        w = pos.with_to_move(Color.WHITE)
        for a in b.legal_squares():
            for c in w.legal_squares():
                x = b.play(a)
                if not x.is_legal(c):
                    continue
                y = w.play(c)
                if y.is_legal(a) and x.play(c).board_string() == y.play(a).board_string():
                    return pos, a, c
    raise AssertionError("no commuting pair found")


def test_side_to_move_decides_between_two_move_orders():
    pos, black_move, white_move = find_commuting_pair()
    after = pos.with_to_move(Color.BLACK).play(black_move).play(white_move).board_string()
    unknown = reconcile(pos.board_string(), after)
    assert not unknown.explained and "several" in unknown.reason
    known = reconcile(pos.board_string(), after, Color.BLACK)
    assert known.explained
    assert known.moves == ((Color.BLACK, black_move), (Color.WHITE, white_move))
