"""Perft: count the leaves of the game tree, to prove the move generator right.

Counting convention (the published Othello table): a pass is one ply, and a game
that ends before the depth is reached is one leaf.

Three standard speed-ups keep this fast in pure Python, none of which changes the
count: the last ply is counted in bulk (popcount of the move mask), positions seen
again by transposition reuse their count, and at the root only one move of each
symmetry class is searched (the start position's four moves are all alike).
"""

from __future__ import annotations

from controller.bitboard import flips, geometry, legal_moves
from controller.boardsize import STANDARD
from controller.position import Position
from controller.symmetry import transform_mask, transforms_fixing


def perft(position: Position, depth: int, *, symmetry: bool = True, hashing: bool = True) -> int:
    """Number of leaves ``depth`` plies below ``position``."""
    if depth < 0:
        raise ValueError("depth must be >= 0")
    p, o = position.mover, position.other
    if position.size != STANDARD:
        return _perft_general(p, o, depth, position.size)
    if depth == 0:
        return 1
    moves = legal_moves(p, o)
    if not moves or not symmetry:
        return _perft8(p, o, depth, {} if hashing else None)
    # Only one move of each orbit under the symmetries that fix the position.
    fixing = transforms_fixing(position)
    total = 0
    seen = 0
    memo: dict[tuple[int, int, int], int] | None = {} if hashing else None
    rest = moves
    while rest:
        bit = rest & -rest
        rest ^= bit
        if seen & bit:
            continue
        orbit = 0
        for t in fixing:
            orbit |= transform_mask(bit, t)
        seen |= orbit
        sq = bit.bit_length() - 1
        f = flips(p, o, sq)
        total += orbit.bit_count() * _perft8(o & ~f, p | f | bit, depth - 1, memo)
    return total


def _perft8(p: int, o: int, depth: int, memo: dict[tuple[int, int, int], int] | None) -> int:
    if depth == 0:
        return 1
    moves = legal_moves(p, o)
    if not moves:
        if not legal_moves(o, p):
            return 1
        return _perft8(o, p, depth - 1, memo)
    if depth == 1:
        return moves.bit_count()
    if memo is not None and depth >= 3:
        key = (p, o, depth)
        hit = memo.get(key)
        if hit is not None:
            return hit
    total = 0
    if depth == 2:
        # Bulk-count the last ply inline: no call per child.
        while moves:
            bit = moves & -moves
            moves ^= bit
            f = flips(p, o, bit.bit_length() - 1)
            np, no = o & ~f, p | f | bit
            m = legal_moves(np, no)
            if m:
                total += m.bit_count()
            else:
                total += 1  # a pass, or the game ends: one leaf either way
    else:
        while moves:
            bit = moves & -moves
            moves ^= bit
            f = flips(p, o, bit.bit_length() - 1)
            total += _perft8(o & ~f, p | f | bit, depth - 1, memo)
    if memo is not None and depth >= 3:
        memo[(p, o, depth)] = total
    return total


def _perft_general(p: int, o: int, depth: int, size: int,
                   memo: dict[tuple[int, int, int], int] | None = None) -> int:
    """Perft on a board of any size: the same bulk count of the last ply and the same
    transposition table as 8x8, on the general geometry's kernels."""
    geo = geometry(size)
    if memo is None:
        memo = {}
    if depth == 0:
        return 1
    moves = geo.legal_moves(p, o)
    if not moves:
        if not geo.legal_moves(o, p):
            return 1
        return _perft_general(o, p, depth - 1, size, memo)
    if depth == 1:
        return moves.bit_count()
    key = (p, o, depth)
    hit = memo.get(key)
    if hit is not None:
        return hit
    total = 0
    while moves:
        bit = moves & -moves
        moves ^= bit
        f = geo.flips(p, o, bit.bit_length() - 1)
        total += _perft_general(o & ~f, p | f | bit, depth - 1, size, memo)
    memo[key] = total
    return total
