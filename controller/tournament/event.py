"""The tournament state: roster, lottery, rounds, results, withdrawals.

Every change goes through one method that checks its input first and changes
nothing when it refuses, so the command line can replay a stored list of actions
and the hall hub can call the same methods live.  Nothing here reads a clock or a
file.
"""

from __future__ import annotations

from collections.abc import Sequence

from controller.boardsize import SIZES, STANDARD
from controller.tournament import knockout as ko
from controller.tournament import latecomers
from controller.tournament.flow import pair_knockout, pair_open
from controller.tournament.game import Correction, Game, Round
from controller.tournament.leagues import split_leagues
from controller.tournament.lottery import (
    join_seeds,
    knockout_lottery,
    open_extension,
    open_lottery,
)
from controller.tournament.model import (
    DivisionSettings,
    Player,
    TournamentError,
    settings_for,
)
from controller.tournament.ranking import (
    GameResult,
    Record,
    add_result,
    open_records,
)
from controller.tournament.state import EventState
from controller.tournament.toss import toss_placer
from controller.tournament.verdict import result_winner


class Tournament(EventState):
    """One division's event: the one writer of its state (what the state says, its
    standings and ranking, is :class:`~controller.tournament.state.EventState`'s).  See
    the package docstring for the order of calls."""

    def __init__(self, roster: Sequence[Player], division: str, name: str = "",
                 extend: bool = False, size: int = STANDARD) -> None:
        """``extend``: the organiser's confirmation that a field larger than the rules
        describe is run as the extension named in :attr:`extension`; ``size``: the
        board the event is played on (a 6x6 side event): its results count up to
        its squares."""
        self.settings: DivisionSettings = settings_for(division)
        if isinstance(size, bool) or size not in SIZES:
            raise TournamentError(f"board size must be one of {', '.join(map(str, SIZES))}, "
                                  f"not {size!r}")
        self.size: int = size
        self.name = name
        self.roster = list(roster)
        self.players: dict[str, Player] = {}
        holders: dict[int, str] = {}
        for k, p in enumerate(self.roster, start=1):
            if p.name in self.players:
                raise TournamentError(f"roster entry {k}: {p.name!r} is on the roster twice")
            self.players[p.name] = p
            if p.seed is not None and p.seed in holders:
                raise TournamentError(
                    f"roster entry {k}: {p.name} and {holders[p.seed]} both hold seed {p.seed}"
                )
            if p.seed is not None:
                holders[p.seed] = p.name
        self.present = [p.name for p in self.roster if not p.absent]
        #: Set when the field is beyond what the rules describe and the organiser
        #: confirmed running it anyway; every round's notes and every output name it.
        self.extension: str | None = None
        if self.settings.system == "league":
            bad = [p.name for p in self.roster if p.seed is not None and not 1 <= p.seed <= 4]
            if bad:
                raise TournamentError(f"open-division seeds are 1–4: {bad[0]}")
            self.extension = open_extension(len(self.roster), extend, len(self.present))
        else:
            ko.check_size(len(self.present))
            bad = [p.name for p in self.roster
                   if p.seed is not None and not 1 <= p.seed <= len(self.present)]
            if bad:
                raise TournamentError(
                    f"seed number of {bad[0]} is outside 1–{len(self.present)}"
                )
        if not self.present:
            raise TournamentError("nobody on the roster is present")
        self.seed: int | None = None
        self.numbers: dict[str, int] = {}
        self.groups: dict[str, str] = {}  # league (open) or knock-out group
        self.rounds: list[Round] = []
        self.withdrawn: dict[str, int] = {}  # name -> rounds completed when withdrawn
        self.stage_of: dict[str, str] = {}
        self.league_done: dict[str, str | None] = {}
        self.league_knockout: set[str] = set()
        self.semi_round: int | None = None
        self.final_round: int | None = None
        self.records: dict[str, Record] = {}  # incremental ledger of league games
        self.results: list[GameResult] = []
        self.corrections: list[Correction] = []  # the arbiter's, in journal order
        self.stored_seq = 0  # the event file's last action this state holds (the store's)

    # ------------------------------------------------------------------ lottery
    def draw_lottery(self, seeds: Sequence[str]) -> None:
        if self.seed is not None:
            raise TournamentError("the lottery has already been drawn")
        seed = join_seeds(seeds)
        if self.settings.system == "league":
            numbers = open_lottery(self.roster, seed)
            playing = {n: numbers[n] for n in self.present}
            self.groups = split_leagues(playing)
        else:
            numbers = knockout_lottery(self.roster, seed)
            for name, number in numbers.items():
                self.groups[name] = ko.slot_of(number)[0]
        self.seed = seed
        self.numbers = numbers
        for name in self.present:
            self.stage_of[name] = "league" if self.settings.system == "league" else "knockout"

    # ------------------------------------------------------------------ changes
    def withdraw(self, name: str) -> None:
        if name not in self.players:
            raise TournamentError(f"no player named {name!r} on the roster")
        if name not in self.stage_of:
            raise TournamentError(f"{name} is absent, so cannot withdraw")
        if name in self.withdrawn:
            raise TournamentError(f"{name} has already withdrawn")
        if self.current is not None:
            for g in self.current.games:
                if not g.done and name in (g.first, g.second):
                    raise TournamentError(
                        f"{name} has a game without a result at table {g.table}; "
                        "enter it first (a forfeit is a loss)"
                    )
        self.withdrawn[name] = self.completed_rounds()

    def record_toss(self, table: int, black: str, draw_win: str) -> None:
        """The 伏せ石: who plays black and who holds the draw-win right (引き分け勝ち).
        The other right — choosing the colour — went to the other player."""
        if self.current is None:
            raise TournamentError(f"no round has been paired, so no table {table}")
        g = self.current.table(table)
        players = (g.first, g.second)
        for who in (black, draw_win):
            if who not in players:
                raise TournamentError(f"table {table}: {who!r} does not play there")
        if g.done:
            raise TournamentError(f"table {table} already has a result")
        g.black = black
        g.white = g.second if black == g.first else g.first
        g.draw_win = draw_win
        g.colour_chooser = g.second if draw_win == g.first else g.first

    def record_result(
        self, table: int, outcome: str, discs: tuple[int, int] | None = None,
        reason: str = "normal",
    ) -> bool:
        """Enter a table's result; returns False when the same result was already in.
        One that cannot be true is refused with the reason (``verdict``)."""
        if self.current is None:
            raise TournamentError(f"no round has been paired, so no table {table}")
        g = self.current.table(table)
        if g.done:
            if (g.outcome == outcome and (discs is None or g.discs == discs)
                    and g.reason == reason):
                return False
            had = "" if g.discs is None else f" {g.discs[0]}-{g.discs[1]}"
            new = "" if discs is None else f" {discs[0]}-{discs[1]}"
            raise TournamentError(
                f"table {table} already has the result {g.outcome}{had}; "
                f"refusing {outcome}{new} (an arbiter's correction is entered as one)"
            )
        winner = result_winner(g, outcome, discs, reason, self.size)
        g.outcome, g.winner, g.discs, g.reason = outcome, winner, discs, reason
        self._count(g)
        return True

    def report_late(self, table: int, player: str, state: str,
                    remaining_ms: int | None = None) -> bool:
        """A late arrival's state at ``table`` (rules 11–12); False when unchanged."""
        return latecomers.report_late(self.current, table, player, state, remaining_ms,
                                      self.settings.minutes)

    def record_forfeit(self, table: int, loser: str) -> bool:
        """``loser`` did not play (不戦敗): the other wins; counted, not rated.
        Returns False when the same forfeit was already in."""
        g, outcome, winner = latecomers.forfeit_outcome(self.current, table, loser)
        if g.done:
            return False
        g.outcome, g.winner, g.discs, g.forfeit = outcome, winner, None, True
        g.reason = "forfeit"
        self._count(g)
        return True

    def recount(self) -> None:
        """Rebuild the ledger from the games as they now stand (after a correction)."""
        self.results = [GameResult(g.round, g.stage, g.winner, g.loser)
                        for r in self.rounds for g in r.games if g.winner is not None]
        self.records = open_records(self.results)

    def _count(self, g: Game) -> None:
        assert g.winner is not None
        result = GameResult(g.round, g.stage, g.winner, g.loser)
        self.results.append(result)
        if g.stage in ("league", "placement"):
            add_result(self.records, result)

    # ------------------------------------------------------------------ pairing
    def pair_next_round(self) -> Round:
        if self.seed is None:
            raise TournamentError("draw the lottery before pairing")
        if self.current is not None and not self.current.complete:
            missing = [str(g.table) for g in self.current.games if not g.done]
            raise TournamentError(
                f"round {self.current.number} still lacks results at table(s) "
                + ", ".join(missing)
            )
        if self.finished:
            raise TournamentError("the event is finished; there is no further round")
        number = len(self.rounds) + 1
        if self.settings.system == "league":
            games, notes = pair_open(self, number)
        else:
            games, notes = pair_knockout(self, number)
        table = 0
        for g in games:
            if g.second is None:
                g.winner = g.first
                continue
            table += 1
            g.table = table
            g.black, g.white = g.first, g.second
            a, b = self.players[g.first], self.players[g.second]
            g.toss_by = toss_placer(a.name, a.rank, a.born, b.name, b.rank, b.born)
        if self.extension:
            notes = [self.extension, *notes]
        rnd = Round(number, games, notes)
        self.rounds.append(rnd)
        for g in games:
            if g.is_bye:
                self._count(g)
        return rnd

