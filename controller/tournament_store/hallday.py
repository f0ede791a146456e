"""A tournament day in the hall, on one machine and without a broker: the tables'
score cards (rule 15 sign-off, rules 11–12 late arrivals), the hub's result desk
and the director, joined by the hall protocol's own encoding.

Each table's state goes through ``encode_state``/``decode_state`` exactly as it
crosses MQTT, and the desk takes what the table settled (``take_from_table``); the
arbiter is called only for a result the desk leaves waiting.  Every action the
director accepts is committed to the event file, so the day can be exported and
checked like any other event.  Results and lateness are drawn from a seeded
generator; nothing here reads the wall clock (table times are seconds from the start
of each round).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path

from controller.boardsize import STANDARD, board_size
from controller.hall_protocol.protocol import (
    DownlinkCommand,
    GameResult,
    TableState,
    TableStatus,
    decode_state,
    encode_state,
)
from controller.hub.director import TournamentDirector
from controller.hub.results import Pairing, ResultDesk
from controller.position import Position
from controller.scorecard import LateArrival, SignOff
from controller.tournament.event import Tournament
from controller.tournament_store import store
from controller.tournament_store.roster import EventConfig
from controller.tournament_store.simulate import SIMULATED_DATE, random_roster


@dataclass
class HallDay:
    """What happened at the tables, counted as the players and the arbiter met it."""

    results: int = 0  # games with a board result
    signed: int = 0  # both players signed at the table, nobody else asked
    arbiter: list[str] = field(default_factory=list)  # results the arbiter confirmed
    late_played: list[str] = field(default_factory=list)
    forfeits: list[str] = field(default_factory=list)
    sent: int = 0  # next_game orders sent to tables

    def text(self) -> str:
        lines = [f"{self.results} results: {self.signed} signed by both players at the "
                 f"table, {len(self.arbiter)} confirmed by the arbiter",
                 *(f"  arbiter: {x}" for x in self.arbiter),
                 f"{len(self.late_played)} late arrival(s) played on, "
                 f"{len(self.forfeits)} took the forfeit",
                 *(f"  late: {x}" for x in self.late_played + self.forfeits),
                 f"{self.sent} next_game orders sent to the tables"]
        return "\n".join(lines)


def _board(black: int, white: int, size: int) -> str:
    return "X" * black + "O" * white + "-" * (board_size(size).squares - black - white)


class _Table:
    """One table's side for one game: its state as it would publish it."""

    def __init__(self, p: Pairing, minutes: float, size: int) -> None:
        self.p = p
        self.minutes = minutes
        self.size = size
        self.game = f"r{p.round}t{p.table}"
        self.late: LateArrival | None = None
        self.signoff: SignOff | None = None
        self.result: GameResult | None = None

    def status(self, at: float) -> TableStatus:
        over = self.result is not None
        s = TableState(self.p.table, self.game, self.p.round, self.p.black, self.p.white,
                       "tournament", "game_over" if over else "playing",
                       _board(self.result.black, self.result.white, self.size)
                       if self.result else Position.start(self.size).board_string(),
                       None if over else "black", None, [], self.result, 0, 60 if over else 0,
                       at, self.signoff, self.late, size=self.size)
        wire = decode_state(encode_state(s), self.p.table)  # as the hub receives it
        return TableStatus(self.p.table, True, wire, at)


def hall_day(path: Path, players: int, seed: int, division: str = "open",
             extend: bool = False, size: int = STANDARD, date: str = SIMULATED_DATE
             ) -> tuple[Tournament, HallDay]:
    """Play a whole event into the event file ``path``: in round 1 one table's result is
    disputed and one player arrives late and plays on; in round 2 one late player takes
    the forfeit; every other result is signed by both players at the table."""
    rng = random.Random(seed)
    config = EventConfig("Hall day", division, date, "JPN", "kaeshi", extend, size)
    t = store.create(path, config, random_roster(rng, players, division))
    store.commit(path, t, "lottery", {"seeds": [f"{rng.randrange(100000):05d}"
                                                for _ in range(3)]})
    director = TournamentDirector(t, path)
    day = HallDay()
    sent: list[tuple[int, DownlinkCommand]] = []
    desk = ResultDesk(director, lambda table, cmd: sent.append((table, cmd)))
    pairings = director.pair_next_round()
    desk.send_pairings(pairings)
    while pairings:
        round_no = pairings[0].round
        plan = rng.sample([p.table for p in pairings], min(3, len(pairings)))
        late_play = plan[0] if round_no == 1 else None
        dispute = plan[1] if round_no == 1 and len(plan) > 1 else None
        forfeit = plan[2 % len(plan)] if round_no == 2 else None
        nxt: list[Pairing] = []
        for p in pairings:
            table = _Table(p, t.settings.minutes, t.size)
            if p.table in (late_play, forfeit):
                nxt += _late(desk, table, day, take_forfeit=p.table == forfeit,
                             delay=rng.uniform(120, 900))
                if table.late is not None and table.late.lost_unplayed:
                    continue
            nxt += _play(desk, table, day, rng, disputed=p.table == dispute)
        pairings = nxt
    day.sent = len(sent)
    return t, day


def _late(desk: ResultDesk, table: _Table, day: HallDay, take_forfeit: bool,
          delay: float) -> list[Pairing]:
    """Rules 11–12: white has not come; on the arbiter's word at the round's start black
    presses and white's time runs; white arrives ``delay`` seconds later."""
    p = table.p
    table.late = LateArrival(p.white, p.black, table.minutes)
    desk.take_from_table(table.status(0.0))
    table.late = table.late.start_clock(0.0)
    desk.take_from_table(table.status(0.0))
    table.late = table.late.arrive(delay)
    desk.take_from_table(table.status(delay))
    table.late = table.late.take_forfeit() if take_forfeit else table.late.play_on()
    outcome = desk.take_from_table(table.status(delay))
    left = table.late.remaining_ms or 0
    line = (f"round {p.round} table {p.table}: {p.white} came {delay / 60:.1f} min late, "
            f"{left / 60000:.1f} min left")
    if take_forfeit:
        day.forfeits.append(line + ", took the forfeit")
    else:
        day.late_played.append(line + ", played on")
    return outcome.next_pairings if outcome else []


def _play(desk: ResultDesk, table: _Table, day: HallDay, rng: random.Random,
          disputed: bool) -> list[Pairing]:
    """The game ends on the board; both players answer at the table (a clock press to
    confirm); a dispute leaves the result to the arbiter, who corrects the count."""
    squares = board_size(table.size).squares
    low = squares * 5 // 16  # black's share of the filled board: 20-44 on 8x8
    black = rng.randrange(low, squares - low + 1)
    if 2 * black == squares:
        black += 1
    b, w = black, squares - black
    table.result = GameResult(b, w, "black" if b > w else "white")
    table.signoff = SignOff(b, w, table.result.winner, size=table.size)
    day.results += 1
    end = 1800.0
    table.signoff = table.signoff.answer("black", True)
    desk.take_from_table(table.status(end))
    table.signoff = table.signoff.answer("white", not disputed)
    status = table.status(end + 5)
    outcome = desk.take_from_table(status)
    if outcome is not None:
        day.signed += 1
        return outcome.next_pairings
    assert desk.awaiting(status), f"table {table.p.table}: nobody took its result"
    # the arbiter recounts: one disc was the other colour (the winner stays the winner)
    fixed = (b + 1, w - 1) if b > w else (b - 1, w + 1)
    confirmed = desk.confirm(status, fixed[0], fixed[1], table.game)
    day.arbiter.append(f"round {table.p.round} table {table.p.table}: {b}-{w} disputed, "
                       f"confirmed {fixed[0]}-{fixed[1]}")
    return confirmed.next_pairings
