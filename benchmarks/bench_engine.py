"""The engine: a round trip through the pipe (position -> move) and a whole-game review.

Kaeshi's own engine over NBoard and GTP, started as a child process exactly as the
service starts any engine. The review is of a real 60-move game (the first game of
WTHOR 2001) at the defaults (the configuration's level and time per move, with the
client's usual grace and nothing more), end to end: process start, one ``hint`` per
position, the annotated record.
"""

from __future__ import annotations

import os
import statistics
import time
from pathlib import Path

from controller.engine.client import EngineClient, EngineSpec, Game
from controller.engine.process import own_engine_argv
from controller.engine.review import annotate, review_game
from controller.position import Position
from controller.records import load_games, write_ggf
from controller.service.config import defaults

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("KAESHI_SHARED", ROOT.parent / "shared"))
WTHOR = SHARED / "data" / "games" / "wthor" / "WTH_2001.wtb"


def round_trips(protocol: str, games: list[Game]) -> None:
    client = EngineClient(EngineSpec(tuple(own_engine_argv(protocol, 1)), protocol, 1, 30.0))
    t0 = time.perf_counter()
    client.choose(games[0])
    start = time.perf_counter() - t0
    times, failed = [], 0
    for game in games:
        t0 = time.perf_counter()
        failed += client.choose(game) is None
        times.append(time.perf_counter() - t0)
    client.close()
    times.sort()
    print(f"{protocol} round trip at level 1 (position -> move), {len(times)} midgame "
          f"positions: median {statistics.median(times) * 1000:.1f} ms, "
          f"p95 {times[int(0.95 * len(times))] * 1000:.1f} ms, failed {failed} "
          f"(first request, engine start included: {start * 1000:.0f} ms)")


def main() -> None:
    if not WTHOR.is_file():
        print(f"skipped: {WTHOR} not found (set KAESHI_SHARED)")
        return
    records = load_games(WTHOR)
    game = records[0]
    squares = tuple(m.square for m in game.moves)
    # positions 10-40 plies into the game: the engine's own search is the same for
    # both protocols, so the figure is mostly the pipe and the protocol
    openings = [Game(Position.start(), squares[:n]) for n in range(10, 41)]
    for protocol in ("nboard", "gtp"):
        round_trips(protocol, openings)
    config = defaults()
    level, seconds = config["engine.level"], float(config["engine.time"])
    spec = EngineSpec(tuple(own_engine_argv("nboard", level, seconds)), "nboard", level,
                      seconds)
    client = EngineClient(spec)
    t0, c0 = time.perf_counter(), time.process_time()
    review = review_game(game, client)
    write_ggf(annotate(game, review))
    wall = time.perf_counter() - t0
    client.close()
    depths = [m.depth for m in review.moves if m.depth is not None]
    empties = [64 - (p.black | p.white).bit_count() for p in game.positions()]
    exact = next((m.number for m, e in zip(review.moves, empties, strict=False)
                  if m.depth is not None and m.depth == e), None)
    print(f"review of a {len(game.moves)}-move game at the defaults (level {level}, "
          f"{seconds:g} s a position, {spec.deadline:g} s before an answer is late): "
          f"{wall:.1f} s wall ({len(review.moves)} positions, "
          f"{wall / len(review.moves) * 1000:.0f} ms each; bound "
          f"{len(review.moves) * seconds:.0f} s), failures {client.failures}; depth "
          f"{min(depths)}-{max(depths)} (median {statistics.median(depths):g}), exact "
          f"from move {exact}; this process's CPU {time.process_time() - c0:.2f} s")
