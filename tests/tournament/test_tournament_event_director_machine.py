"""The director under random days on a board of any size: results (some impossible,
some not even counts), corrections, late arrivals, withdrawals and crashes (the event
file reopened between any two steps).

Invariants: the event always reaches a final ranking or says what it waits for; no
round is paired twice (a past pairing never changes); every standing is what the
journal replays to."""

from __future__ import annotations

import random
import sqlite3
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from controller.boardsize import SIZES, board_size
from controller.scorecard import LATE_STATES
from controller.tournament.event import Tournament
from controller.tournament.leaderboard import leaderboard, waiting_for
from controller.tournament.model import Player, TournamentError
from controller.tournament_store import store
from controller.tournament_store.roster import EventConfig

BY = {"by": "arbiter", "why": "the score card"}


def pair_count(path: Path) -> int:
    with sqlite3.connect(path) as db:
        return db.execute("SELECT COUNT(*) FROM actions WHERE kind = 'pair'").fetchone()[0]


def count(t: Tournament, black_sixteenths: int) -> tuple[int, int]:
    """A filled board's count on the event's board: black's share in sixteenths
    (10/16 is 40-24 on 8x8, 36-28 is 9/16)."""
    squares = board_size(t.size).squares
    black = squares * black_sixteenths // 16
    return black, squares - black


def finish(t: Tournament) -> None:
    """Play the event to its end from here (on a copy): every missing table gets a
    result its state allows, every due round its pairing."""
    for _ in range(12):
        if t.finished:
            return
        rnd = t.current
        assert rnd is not None
        for g in rnd.games:
            if g.done:
                continue
            late = g.late
            if late is not None and late.state != "playing":
                t.record_forfeit(g.table, late.player)  # type: ignore[arg-type]
            else:
                t.record_result(g.table, "black", count(t, 10))  # type: ignore[arg-type]
        if not t.finished:
            t.pair_next_round()
    raise AssertionError(f"not finished after 12 more rounds: {waiting_for(t)}")


class DirectorDay(RuleBasedStateMachine):
    @initialize(players=st.sampled_from([(8, "open"), (13, "open"), (18, "women")]),
                seed=st.integers(0, 10_000), size=st.sampled_from(SIZES))
    def new_event(self, players: tuple[int, str], seed: int, size: int) -> None:
        n, division = players
        self.dir = tempfile.TemporaryDirectory()
        self.path = Path(self.dir.name) / "e.sqlite"
        roster = [Player(f"P{k:02d}", rank=f"{k % 5 + 1}段", born=str(1950 + k))
                  for k in range(n)]
        self.t = store.create(self.path, EventConfig("x", division, extend=True, size=size),
                              roster)
        self.squares = board_size(size).squares
        store.commit(self.path, self.t, "lottery", {"seeds": [str(seed), "2", "3"]})
        store.commit(self.path, self.t, "pair", {})
        self.rng = random.Random(seed)
        self.seen: dict[int, list[tuple[object, ...]]] = {}

    def teardown(self) -> None:
        if hasattr(self, "dir"):
            self.dir.cleanup()

    def _do(self, kind: str, payload: dict, pair: bool = False) -> None:
        before = self.path.read_bytes()
        try:
            store.commit(self.path, self.t, kind, payload, pair=pair)
        except TournamentError as exc:
            assert str(exc)  # refused with a reason
            assert self.path.read_bytes() == before  # and nothing stored

    def _open_tables(self) -> list[int]:
        rnd = self.t.current
        return [] if rnd is None else [g.table for g in rnd.games  # type: ignore[misc]
                                       if g.table is not None and not g.done]

    @rule(k=st.integers(0, 50), outcome=st.sampled_from(["black", "white", "draw"]),
          b=st.integers(0, 101), hub=st.booleans(),
          reason=st.sampled_from(["normal", "normal", "time", "both_flags", "foul"]),
          shape=st.sampled_from(["count"] * 6 + ["one", "three", "text", "bool", "float"]))
    def result(self, k: int, outcome: str, b: int, hub: bool, reason: str,
               shape: str) -> None:
        tables = self._open_tables()
        if not tables:
            return
        sq = self.squares
        w = self.rng.choice([sq - b, max(0, sq - 4 - b), b])  # sometimes impossible
        discs = {"count": [b, w], "one": [b], "three": [b, w, 0], "text": f"{b}-{w}",
                 "bool": [True, w], "float": [b + 0.5, w]}[shape]  # not even a count
        self._do("result", {"table": tables[k % len(tables)], "outcome": outcome,
                            "discs": discs, "reason": reason}, pair=hub)

    @rule()
    def pair(self) -> None:
        self._do("pair", {})

    @rule(k=st.integers(0, 50), step=st.sampled_from(LATE_STATES),
          minutes=st.integers(0, 25))
    def late(self, k: int, step: str, minutes: int) -> None:
        tables = self._open_tables()
        if not tables:
            return
        g = self.t.current.table(tables[k % len(tables)])  # type: ignore[union-attr]
        who = g.late.player if g.late else g.second
        remaining = minutes * 60_000 if step in ("arrived", "playing") else None
        self._do("late", {"table": g.table, "player": who, "state": step,
                          "remaining_ms": remaining})

    @rule(k=st.integers(0, 50), hub=st.booleans())
    def forfeit(self, k: int, hub: bool) -> None:
        tables = self._open_tables()
        if tables:
            g = self.t.current.table(tables[k % len(tables)])  # type: ignore[union-attr]
            self._do("forfeit", {"table": g.table,
                                 "loser": g.late.player if g.late else g.first}, pair=hub)

    @rule(r=st.integers(0, 10), k=st.integers(0, 50),
          what=st.sampled_from(["result", "colours", "forfeit", "clear"]))
    def correct(self, r: int, k: int, what: str) -> None:
        rounds = self.t.rounds
        rnd = rounds[r % len(rounds)]
        done = [g for g in rnd.games if g.table is not None and g.done]
        if not done:
            return
        g = done[k % len(done)]
        payload: dict = {"what": what, "round": rnd.number, "table": g.table, **BY}
        if what == "result":
            payload.update(outcome="white", discs=list(count(self.t, 5)))
        elif what == "forfeit":
            payload["loser"] = g.first
        self._do("correct", payload)

    @rule(k=st.integers(0, 50))
    def withdraw(self, k: int) -> None:
        names = sorted(self.t.present)
        self._do("withdraw", {"name": names[k % len(names)]})

    @rule(k=st.integers(0, 50))
    def reinstate(self, k: int) -> None:
        if self.t.withdrawn:
            names = sorted(self.t.withdrawn)
            self._do("correct", {"what": "reinstate", "name": names[k % len(names)], **BY})

    @rule(hub=st.booleans())
    def rest_of_the_round(self, hub: bool) -> None:
        """Every other table signs a plain result (the day moves on)."""
        for table in self._open_tables():
            g = self.t.current.table(table)  # type: ignore[union-attr]
            if g.late is not None and g.late.state != "playing":
                self._do("forfeit", {"table": table, "loser": g.late.player}, pair=hub)
            else:
                b, w = count(self.t, 8)  # level: white wins by two (30-34 on 8x8)
                self._do("result", {"table": table, "outcome": "white",
                                    "discs": [b - 2, w + 2]}, pair=hub)

    @rule()
    def crash(self) -> None:
        self.t = store.load(self.path)[1]

    @invariant()
    def replays_to_the_same_standings(self) -> None:
        if not hasattr(self, "t"):
            return
        again = store.load(self.path)[1]
        assert again.standings() == self.t.standings() == self.t.standings_from_scratch()
        assert leaderboard(again) == leaderboard(self.t)

    @invariant()
    def no_round_paired_twice(self) -> None:
        if not hasattr(self, "t"):
            return
        assert pair_count(self.path) == len(self.t.rounds)
        for rnd in self.t.rounds:
            seats = [(g.first, g.second, g.table) for g in rnd.games]
            assert self.seen.setdefault(rnd.number, seats) == seats

    @invariant()
    def finishes_or_says_what_it_waits_for(self) -> None:
        if not hasattr(self, "t"):
            return
        waiting = waiting_for(self.t)
        if self.t.finished:
            assert waiting == "" and leaderboard(self.t).final
            return
        assert waiting
        copy = store.load(self.path)[1]
        finish(copy)
        assert leaderboard(copy).final


TestDirectorDay = DirectorDay.TestCase
TestDirectorDay.settings = settings(max_examples=10, stateful_step_count=30, deadline=None,
                                    suppress_health_check=[HealthCheck.too_slow])
