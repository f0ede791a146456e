"""Move generation on bitboards: the inner loop of everything Kaeshi judges.

A side's discs are one Python int, bit ``row * size + col``. The 8x8 kernels are
written out by hand with literal masks because they run millions of times in perft
and the arbiter; other sizes go through :class:`Geometry`, which is general and
slower, so that 8x8 never pays for the generality.
"""

from __future__ import annotations

from functools import cache

FULL = 0xFFFF_FFFF_FFFF_FFFF
NOT_EDGE_COLS = 0x7E7E_7E7E_7E7E_7E7E  # columns b..g: a run of discs never wraps through them


def bit_indices(mask: int) -> list[int]:
    """Indices of the set bits of ``mask``, lowest first (board-string order)."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def legal_moves(p: int, o: int) -> int:
    """Squares where the side with discs ``p`` may play against discs ``o`` (8x8)."""
    empty = ~(p | o) & FULL
    oh = o & NOT_EDGE_COLS
    # east (+1)
    x = oh & (p << 1)
    x |= oh & (x << 1)
    x |= oh & (x << 1)
    x |= oh & (x << 1)
    x |= oh & (x << 1)
    x |= oh & (x << 1)
    moves = x << 1
    # west (-1)
    x = oh & (p >> 1)
    x |= oh & (x >> 1)
    x |= oh & (x >> 1)
    x |= oh & (x >> 1)
    x |= oh & (x >> 1)
    x |= oh & (x >> 1)
    moves |= x >> 1
    # south (+8)
    x = o & (p << 8)
    x |= o & (x << 8)
    x |= o & (x << 8)
    x |= o & (x << 8)
    x |= o & (x << 8)
    x |= o & (x << 8)
    moves |= x << 8
    # north (-8)
    x = o & (p >> 8)
    x |= o & (x >> 8)
    x |= o & (x >> 8)
    x |= o & (x >> 8)
    x |= o & (x >> 8)
    x |= o & (x >> 8)
    moves |= x >> 8
    # south-east (+9)
    x = oh & (p << 9)
    x |= oh & (x << 9)
    x |= oh & (x << 9)
    x |= oh & (x << 9)
    x |= oh & (x << 9)
    x |= oh & (x << 9)
    moves |= x << 9
    # north-west (-9)
    x = oh & (p >> 9)
    x |= oh & (x >> 9)
    x |= oh & (x >> 9)
    x |= oh & (x >> 9)
    x |= oh & (x >> 9)
    x |= oh & (x >> 9)
    moves |= x >> 9
    # south-west (+7)
    x = oh & (p << 7)
    x |= oh & (x << 7)
    x |= oh & (x << 7)
    x |= oh & (x << 7)
    x |= oh & (x << 7)
    x |= oh & (x << 7)
    moves |= x << 7
    # north-east (-7)
    x = oh & (p >> 7)
    x |= oh & (x >> 7)
    x |= oh & (x >> 7)
    x |= oh & (x >> 7)
    x |= oh & (x >> 7)
    x |= oh & (x >> 7)
    moves |= x >> 7
    return moves & empty


def _rays(size: int) -> tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]:
    """Per square, the rays (as masks) towards higher and towards lower indices.

    Rays shorter than two squares are dropped: they can never hold a flip.
    """
    up: list[tuple[int, ...]] = []
    down: list[tuple[int, ...]] = []
    for sq in range(size * size):
        r0, c0 = divmod(sq, size)
        ups: list[int] = []
        downs: list[int] = []
        for dr, dc in ((0, 1), (1, -1), (1, 0), (1, 1), (0, -1), (-1, 1), (-1, 0), (-1, -1)):
            mask, r, c, n = 0, r0 + dr, c0 + dc, 0
            while 0 <= r < size and 0 <= c < size:
                mask |= 1 << (r * size + c)
                n += 1
                r += dr
                c += dc
            if n >= 2:
                (ups if dr > 0 or (dr == 0 and dc > 0) else downs).append(mask)
        up.append(tuple(ups))
        down.append(tuple(downs))
    return tuple(up), tuple(down)


_UP8, _DOWN8 = _rays(8)


def flips(p: int, o: int, sq: int) -> int:
    """Discs of ``o`` turned when ``p`` plays on square ``sq`` (8x8); 0 if none.

    Along each ray the first square that is not an opponent disc decides: if it is
    one of ours, everything before it turns. Finding that square is one bit trick
    (lowest or highest set bit), so there is no inner loop.
    """
    f = 0
    not_o = ~o
    for ray in _UP8[sq]:
        b = ray & not_o
        if b:
            low = b & -b
            if low & p:
                f |= ray & (low - 1)
    for ray in _DOWN8[sq]:
        b = ray & not_o
        if b:
            high = 1 << (b.bit_length() - 1)
            if high & p:
                f |= ray & -(high << 1)
    return f


class Geometry:
    """Kernels for any square board size; used for 6x6 and 10x10 games."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.full = (1 << (size * size)) - 1
        col_a = sum(1 << (r * size) for r in range(size))
        col_last = col_a << (size - 1)
        inner = self.full & ~col_a & ~col_last
        self._dirs = (
            (1, inner),
            (size, self.full),
            (size + 1, inner),
            (size - 1, inner),
        )
        self._up, self._down = _rays(size)

    def legal_moves(self, p: int, o: int) -> int:
        empty = ~(p | o) & self.full
        moves = 0
        steps = self.size - 3
        for shift, keep in self._dirs:
            oo = o & keep
            x = oo & (p << shift)
            for _ in range(steps):
                x |= oo & (x << shift)
            moves |= x << shift
            x = oo & (p >> shift)
            for _ in range(steps):
                x |= oo & (x >> shift)
            moves |= x >> shift
        return moves & empty

    def flips(self, p: int, o: int, sq: int) -> int:
        f = 0
        not_o = ~o
        for ray in self._up[sq]:
            b = ray & not_o
            if b:
                low = b & -b
                if low & p:
                    f |= ray & (low - 1)
        for ray in self._down[sq]:
            b = ray & not_o
            if b:
                high = 1 << (b.bit_length() - 1)
                if high & p:
                    f |= ray & -(high << 1)
        return f


class _Fast8(Geometry):
    """The 8x8 geometry, dispatching to the hand-written kernels."""

    def __init__(self) -> None:
        super().__init__(8)

    def legal_moves(self, p: int, o: int) -> int:
        return legal_moves(p, o)

    def flips(self, p: int, o: int, sq: int) -> int:
        return flips(p, o, sq)


@cache
def geometry(size: int) -> Geometry:
    return _Fast8() if size == 8 else Geometry(size)
