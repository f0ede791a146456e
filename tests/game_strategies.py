"""Hypothesis strategies for whole games, shared by the rules and records tests."""

from __future__ import annotations

from hypothesis import strategies as st

from controller.position import Position


@st.composite
def games(draw: st.DrawFn) -> list[str]:
    """A legal move list (passes implied), picked move by move."""
    pos = Position.start()
    moves: list[str] = []
    for choice in draw(st.lists(st.integers(0, 1000), min_size=1, max_size=60)):
        if pos.is_game_over():
            break
        if not pos.legal_moves():
            pos = pos.pass_turn()
        squares = pos.legal_squares()
        moves.append(squares[choice % len(squares)])
        pos = pos.play(moves[-1])
    return moves
