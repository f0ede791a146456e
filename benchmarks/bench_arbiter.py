"""Arbiter accuracy and speed on WTH_2001 played on the simulated board.

1. Every game, no injected errors: irregularities must be zero and the final
   score the stored one.
2. 2,000+ games with injected irregularities (every kind, every correction path),
   half with a clock and half without, hands over the board, one-frame noise and
   every habit of ``SimOptions.habits``: recall and precision of the
   irregularities (kind, player, squares, move) and of the corrections, false
   flags per game against faults injected, and the arbiter's time per observation.
3. The development set of an independent generator (``arbiter-dev``), scored by
   its own ``tools/check_arbiter.py`` in tournament and home mode.
4. Random whole 6x6 and 10x10 games (and 8x8 beside them) with injected irregularities
   (every habit, a clock, one-frame noise): event logs identical to the truth, and the
   time per observation.

Only the arbiter is timed (process CPU time), never the simulator. ``KAESHI_BENCH_ARBITER_GAMES``
changes the size of part 2 (default 2000).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from controller.arbiter import ArbiterConfig, arbitrate
from controller.events import Event
from controller.position import Position
from controller.records import load_games
from controller.simulator import SimOptions, random_game, simulate_game
from controller.simulator.table import PRESS_WAIT

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("KAESHI_SHARED", ROOT.parent / "shared"))
WTB = SHARED / "data" / "games" / "wthor" / "WTH_2001.wtb"
DEV = SHARED / "data" / "arbiter-dev"
CHECK = SHARED / "tools" / "check_arbiter.py"
ERRORS = 0.08
NOISE = 0.03


def flagged(events: list[Event]) -> Counter[tuple]:
    """Irregularities and corrections keyed by the turn they belong to."""
    out: Counter[tuple] = Counter()
    turn = 0
    for e in events:
        if e.event in ("move", "pass"):
            turn += 1
        elif e.event == "irregularity":
            out[("irregularity", turn, e["player"], e["kind"], tuple(e["squares"]))] += 1
        elif e.event == "corrected":
            out[("corrected", turn, e["kind"], tuple(e["squares"]))] += 1
    return out


def timed(observations: list, clock: bool) -> tuple[list[Event], float]:
    # the habits press as people do: each press waits for the raw frames after it
    config = ArbiterConfig(clock=clock, press_wait=PRESS_WAIT)
    start = time.process_time()  # CPU time: the figure holds on a busy machine too
    events = arbitrate(observations, config)
    return events, time.process_time() - start


def error_free(games: list) -> None:
    wrong_score = flags = 0
    obs = 0
    spent = 0.0
    for i, game in enumerate(games):
        clock = i % 2 == 0
        sim = simulate_game(game, SimOptions(seed=i, clock=clock, noise=NOISE, habits=True))
        events, dt = timed(sim.observations, clock)
        spent += dt
        obs += len(sim.observations)
        flags += sum(e.event == "irregularity" for e in events)
        end = events[-1] if events else None
        if end is None or end.event != "game_over" or (end["black"], end["white"]) != game.result:
            wrong_score += 1
    print(f"error-free replay: {len(games)} games, {obs} observations, "
          f"irregularities {flags}, final score different from WTHOR {wrong_score}, "
          f"{spent / obs * 1e6:.1f} us/observation")


def with_errors(games: list) -> None:
    truth_n = found_n = hit_n = 0
    fix_truth = fix_found = fix_hit = 0
    kinds: Counter[str] = Counter()
    exact = obs = 0
    false_total = over_bound = 0
    spent = 0.0
    for i, game in enumerate(games):
        clock = i % 2 == 0
        sim = simulate_game(game, SimOptions(errors=ERRORS, seed=10_000 + i, clock=clock,
                                             noise=NOISE, habits=True))
        events, dt = timed(sim.observations, clock)
        spent += dt
        obs += len(sim.observations)
        want, got = flagged(sim.truth), flagged(events)
        hit = want & got
        false = sum(n for key, n in (got - want).items() if key[0] == "irregularity")
        false_total += false
        over_bound += false > len(sim.injected)
        for key, n in want.items():
            if key[0] == "irregularity":
                truth_n += n
                kinds[key[3]] += n
            else:
                fix_truth += n
        for key, n in got.items():
            if key[0] == "irregularity":
                found_n += n
            else:
                fix_found += n
        for key, n in hit.items():
            if key[0] == "irregularity":
                hit_n += n
            else:
                fix_hit += n
        exact += [e.to_dict() | {"t": 0} for e in events] == \
            [e.to_dict() | {"t": 0} for e in sim.truth]
    recall = hit_n / truth_n if truth_n else 1.0
    precision = hit_n / found_n if found_n else 1.0
    print(f"injected errors: {len(games)} games (half with a clock), {ERRORS:.0%} of moves, "
          f"noise {NOISE:.0%} of frames, hands over the board, every habit")
    print(f"  irregularities: {truth_n} in truth, {found_n} reported, "
          f"recall {recall:.4%}, precision {precision:.4%}")
    print(f"  corrections:    {fix_truth} in truth, {fix_found} reported, {fix_hit} matched")
    print(f"  by kind: {dict(sorted(kinds.items()))}")
    print(f"  event logs identical to the truth: {exact}/{len(games)}")
    print(f"  false flags: {false_total}; games with more false flags than faults "
          f"injected: {over_bound}")
    print(f"  arbiter: {obs} observations, {spent:.2f} s, {spent / obs * 1e6:.1f} us/observation")


def other_sizes(count: int = 100) -> None:
    for size in (6, 8, 10):  # 8x8 beside them, on the same random games
        exact = obs = 0
        spent = 0.0
        for i in range(count):
            sim = simulate_game(random_game(size, i), SimOptions(
                errors=ERRORS, seed=9000 + i, clock=True, noise=NOISE, habits=True))
            config = ArbiterConfig(start=Position.start(size), press_wait=PRESS_WAIT)
            start = time.process_time()
            events = arbitrate(sim.observations, config)
            spent += time.process_time() - start
            obs += len(sim.observations)
            exact += [e.to_dict() | {"t": 0} for e in events] == \
                [e.to_dict() | {"t": 0} for e in sim.truth]
        print(f"{size}x{size}: {count} random games with a clock, {NOISE:.0%} noise, "
              f"{ERRORS:.0%} of moves irregular: event logs identical to the truth "
              f"{exact}/{count}; arbiter {spent / obs * 1e6:.1f} us/observation")


def kaeshi_command() -> str | None:
    """The ``kaeshi`` of this environment (beside the interpreter), else the one on PATH."""
    here = Path(sys.executable).parent / "kaeshi"
    return str(here) if here.is_file() else shutil.which("kaeshi")


def dev_set() -> None:
    """The independent generator's scenarios, scored by its own checker."""
    kaeshi = kaeshi_command()
    if not (DEV.is_dir() and CHECK.is_file()) or kaeshi is None:
        print(f"development set: skipped ({DEV} or {CHECK} or kaeshi not found)")
        return
    for mode in ("tournament", "home"):
        proc = subprocess.run(
            [sys.executable, str(CHECK), str(DEV), "--cmd", f"{kaeshi} arbitrate",
             "--mode", mode, "--jobs", "2", "--show", "0"],
            capture_output=True, text=True, check=False)
        lines = proc.stdout.strip().splitlines()
        last = lines[-1] if lines else proc.stderr.strip()
        print(f"development set ({mode}): {last}")


def main() -> None:
    if not WTB.is_file():
        print(f"skipped: {WTB} not found (set KAESHI_SHARED)")
        return
    games = load_games(WTB)
    size = int(os.environ.get("KAESHI_BENCH_ARBITER_GAMES", "2000"))
    error_free(games)
    with_errors(games[:size])
    sys.stdout.flush()
    dev_set()
    other_sizes()


if __name__ == "__main__":
    main()
