"""Fit the own engine's pattern evaluation to WTHOR games and write its data file.

    python -m training.train_patterns [--wthor FILE] [--ridge 10] [--out FILE]

Every position of every game in the WTHOR file (read with the project's WTHOR
reader) is an example: its patterns (:mod:`controller.engine.patterns`) and the
final margin from the mover's view — the file's theoretical score (perfect play from
24 empties, as WTHOR stores it) for positions up to that point, the game's result
after it. One least-squares fit per game phase, ridge-regularised so that a pattern
seen rarely stays near zero, solved by conjugate gradients (numpy only). The fit is
deterministic: the same file gives the same weights. One game in ten is held out and
the fit's error on it is printed next to the square-weight evaluation's.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from pathlib import Path

import numpy as np

from controller.engine.patterns import (
    BIAS,
    DATA_FILE,
    MOBILITY,
    OFFSET,
    PHASES,
    SCALE,
    SIZE,
    TABLES,
    features,
    mobility,
    phase_of,
)
from controller.engine.search import square_evaluation
from controller.records import load_games
from controller.records.model import GameRecord

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("KAESHI_SHARED", ROOT.parent / "shared"))
WTHOR = SHARED / "data" / "games" / "wthor" / "WTH_2001.wtb"
#: Every HOLD_OUT-th game is kept out of the fit to measure it.
HOLD_OUT = 10
#: Positions with at least this many empties take the theoretical score as target.
THEORY_EMPTIES = 24


def held_out(index: int) -> bool:
    return index % HOLD_OUT == 0


def _digits(index: int, n: int) -> list[int]:
    return [index // 3 ** i % 3 for i in range(n)]


def _value(digits: list[int]) -> int:
    return sum(d * 3 ** i for i, d in enumerate(digits))


def canonical() -> np.ndarray:
    """For every raw index of a phase, the index its symmetric twins share: a line and
    its reverse, a 3x3 corner and its mirror in the corner's diagonal."""
    canon = np.arange(SIZE)
    for name, size in TABLES.items():
        off = OFFSET[name]
        for index in range(size):
            if name == "corner":
                d = _digits(index, 9)
                twin = _value([d[3 * c + r] for r in range(3) for c in range(3)])
            else:
                n = 8 if name in ("edge", "row2", "row3", "row4") else int(name[4:])
                twin = _value(_digits(index, n)[::-1])
            canon[off + index] = off + min(index, twin)
    return canon


def targets(record: GameRecord) -> tuple[float, float | None]:
    """(final margin, theoretical margin or None), black's view."""
    final = float(record.result[0] - record.result[1]) if record.result else 0.0
    m = re.search(r"theory=(\d+)", record.extra.get("WTHOR", ""))
    theory = None if m is None else 2.0 * int(m.group(1)) - 64.0
    return final, theory


def examples(records: list[GameRecord], keep: object) -> dict[int, tuple[list, list, list]]:
    """Per phase: pattern indices, mobility and target of every position of the kept
    games (positions where the mover has a move; the mover's view)."""
    out: dict[int, tuple[list, list, list]] = {k: ([], [], []) for k in range(PHASES)}
    for i, rec in enumerate(records):
        if not keep(i) or rec.result is None:  # type: ignore[operator]
            continue
        final, theory = targets(rec)
        for pos in rec.positions()[:-1]:
            if not pos.legal_moves():
                continue
            p, o = pos.mover, pos.other
            empties = 64 - (p | o).bit_count()
            black = theory if theory is not None and empties >= THEORY_EMPTIES else final
            y = black if pos.to_move.value == "black" else -black
            idx, mob, ys = out[phase_of(p, o)]
            idx.append(features(p, o))
            mob.append(mobility(p, o))
            ys.append(y)
    return out


def fit(idx: np.ndarray, mob: np.ndarray, y: np.ndarray, canon: np.ndarray,
        ridge: float, iterations: int = 200) -> np.ndarray:
    """Ridge least squares over a phase's weights (canonical entries shared), by
    Jacobi-preconditioned conjugate gradients on the normal equations."""
    cidx = canon[idx]
    n, k = cidx.shape
    flat = cidx.ravel()

    def forward(w: np.ndarray) -> np.ndarray:
        return w[cidx].sum(axis=1) + mob * w[MOBILITY] + w[BIAS]

    def backward(r: np.ndarray) -> np.ndarray:
        g = np.bincount(flat, weights=np.repeat(r, k), minlength=SIZE)
        g[MOBILITY] += mob @ r
        g[BIAS] += r.sum()
        return g

    penalty = np.full(SIZE, ridge)
    penalty[[MOBILITY, BIAS]] = 1e-6

    def normal(w: np.ndarray) -> np.ndarray:
        return backward(forward(w)) + penalty * w

    diag = np.bincount(flat, minlength=SIZE).astype(float)
    diag[MOBILITY] = float(mob @ mob)
    diag[BIAS] = float(n)
    precond = 1.0 / (diag + penalty)
    w = np.zeros(SIZE)
    r = backward(y) - normal(w)
    z = precond * r
    d = z.copy()
    rz = r @ z
    for _ in range(iterations):
        q = normal(d)
        alpha = rz / (d @ q)
        w += alpha * d
        r -= alpha * q
        z = precond * r
        rz_new = r @ z
        if rz_new < 1e-10 * max(1.0, float(y @ y)):
            break
        d = z + (rz_new / rz) * d
        rz = rz_new
    w[np.arange(SIZE) != canon] = 0.0  # only canonical entries are parameters
    return w[canon]  # every raw index takes its canonical twin's weight


def rmse(pred: np.ndarray, y: np.ndarray) -> float:
    return float(np.sqrt(np.mean((pred - y) ** 2))) if len(y) else float("nan")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m training.train_patterns")
    ap.add_argument("--wthor", type=Path, default=WTHOR)
    ap.add_argument("--ridge", type=float, default=10.0)
    ap.add_argument("--out", type=Path, default=DATA_FILE)
    args = ap.parse_args(argv)
    if not args.wthor.is_file():
        print(f"no WTHOR file at {args.wthor} (set KAESHI_SHARED)", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    records = load_games(args.wthor)
    train = examples(records, lambda i: not held_out(i))
    test = examples(records, held_out)
    print(f"{len(records)} games; {sum(len(v[2]) for v in train.values())} training "
          f"positions, {sum(len(v[2]) for v in test.values())} held out "
          f"({time.perf_counter() - t0:.0f} s to read)")
    canon = canonical()
    weights = np.zeros((PHASES, SIZE))
    for phase in range(PHASES):
        idx, mob, y = (np.array(a, dtype=float if j else np.int64)
                       for j, a in enumerate(train[phase]))
        weights[phase] = fit(idx.astype(np.int64), mob, y, canon, args.ridge)
        tidx, tmob, ty = (np.array(a) for a in test[phase])
        pred = weights[phase][tidx].sum(axis=1) + tmob * weights[phase][MOBILITY] \
            + weights[phase][BIAS]
        print(f"phase {phase} (discs {4 + 10 * phase}-{13 + 10 * phase}): "
              f"{len(y)} positions, held-out error {rmse(pred, ty):.2f} discs "
              f"(predicting 0: {rmse(np.zeros_like(ty), ty):.2f})")
    print(f"square weights and mobility, best scaled, held out, all phases: "
          f"{square_error(records):.2f} discs")
    stored = np.clip(np.round(weights * SCALE), -32768, 32767).astype(np.int16)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.out, weights=stored, scale=np.array(SCALE))
    print(f"wrote {args.out} ({args.out.stat().st_size // 1024} KiB) in "
          f"{time.perf_counter() - t0:.0f} s")
    return 0


def square_error(records: list[GameRecord]) -> float:
    """The square-weight evaluation's held-out error, scaled by least squares."""
    xs, ys = [], []
    for i, rec in enumerate(records):
        if not held_out(i) or rec.result is None:
            continue
        final, theory = targets(rec)
        for pos in rec.positions()[:-1]:
            if pos.legal_moves():
                black = theory if theory is not None and \
                    64 - (pos.black | pos.white).bit_count() >= THEORY_EMPTIES else final
                xs.append(square_evaluation(pos.mover, pos.other))
                ys.append(black if pos.to_move.value == "black" else -black)
    x, y = np.array(xs), np.array(ys)
    scale = float(x @ y / (x @ x))
    return rmse(scale * x, y)


if __name__ == "__main__":
    sys.exit(main())
