"""What an event's state says without changing it: the round being played, who has
met whom, the standings and the final ranking.

Split from :mod:`controller.tournament.event`, whose `Tournament`
(the one writer of this state) inherits it: everything here reads the rounds, the
lottery's numbers and the league ledger, and nothing here changes them, so the
pairing (:mod:`controller.tournament.flow`) and every sheet read the event through it.
"""

from __future__ import annotations

from collections.abc import Sequence

from controller.tournament.game import Correction, Game, GameSettings, Round
from controller.tournament.model import (
    DivisionSettings,
    Entrant,
    Player,
    TournamentError,
)
from controller.tournament.ranking import (
    GameResult,
    KnockoutStanding,
    OpenStanding,
    Record,
    knockout_ranking,
    open_provisional,
    open_records,
)


class EventState:
    """The event's state and every question asked of it (set up and changed only by
    :class:`~controller.tournament.event.Tournament`)."""

    settings: DivisionSettings
    size: int  # the board's side
    name: str
    roster: list[Player]
    players: dict[str, Player]
    present: list[str]
    #: Set when the field is beyond what the rules describe and the organiser
    #: confirmed running it anyway; every round's notes and every output name it.
    extension: str | None
    seed: int | None
    numbers: dict[str, int]
    groups: dict[str, str]  # league (open) or knock-out group
    rounds: list[Round]
    withdrawn: dict[str, int]  # name -> rounds completed when withdrawn
    stage_of: dict[str, str]
    league_done: dict[str, str | None]
    league_knockout: set[str]
    semi_round: int | None
    final_round: int | None
    records: dict[str, Record]  # incremental ledger of league games
    results: list[GameResult]
    corrections: list[Correction]  # the arbiter's, in journal order
    stored_seq: int  # the event file's last action this state holds (the store's)

    # ------------------------------------------------------------------ queries
    @property
    def current(self) -> Round | None:
        return self.rounds[-1] if self.rounds else None

    @property
    def finished(self) -> bool:
        return self.final_round is not None and bool(self.rounds) and (
            self.rounds[-1].number == self.final_round and self.rounds[-1].complete
        )

    def active(self, name: str) -> bool:
        return name in self.stage_of and name not in self.withdrawn

    def completed_rounds(self) -> int:
        return sum(1 for r in self.rounds if r.complete)

    def played(self, name: str) -> frozenset[str]:
        out = set()
        for r in self.rounds:
            for g in r.games:
                if g.second is not None and name in (g.first, g.second):
                    out.add(g.second if g.first == name else g.first)
        return frozenset(out)

    def game_settings(self, table: int) -> GameSettings:
        if self.current is None:
            raise TournamentError(f"no round has been paired, so no table {table}")
        g = self.current.table(table)
        assert g.black is not None and g.white is not None
        return GameSettings(
            round=g.round, table=table, stage=g.stage, black=g.black, white=g.white,
            minutes=self.settings.minutes, draws=self.settings.draws, toss_by=g.toss_by,
            draw_win=g.draw_win, colour_chooser=g.colour_chooser,
        )

    # ------------------------------------------------------------------ standings
    def qualified_extra(self, upto: int | None = None) -> dict[str, int]:
        """Note *2: rounds a league winner did not play in a league count as won —
        each completed round (up to ``upto``) until the winner withdraws (*3)."""
        if self.settings.system != "league":
            return {}
        done = [r for r in self.rounds[:upto] if r.complete]
        out: dict[str, int] = {}
        for winner in self.league_done.values():
            if winner is None:
                continue
            until = self.withdrawn.get(winner, len(self.rounds))
            mine = [r for r in done if r.number <= until]
            counted = sum(
                1 for r in mine for g in r.games
                if g.stage in ("league", "placement") and winner in (g.first, g.second)
            )
            out[winner] = len(mine) - counted
        return out

    def standings(self) -> Sequence[OpenStanding | KnockoutStanding]:
        """Provisional ranking from the incremental ledger."""
        if self.seed is None:
            raise TournamentError("draw the lottery before asking for standings")
        if self.settings.system == "league":
            return open_provisional(
                self.numbers, self.present, self.records, self.qualified_extra()
            )
        return self.knockout_history()[-1]

    def standings_from_scratch(self) -> Sequence[OpenStanding | KnockoutStanding]:
        """The same ranking rebuilt from the games alone (for checking)."""
        results = [
            GameResult(g.round, g.stage, g.winner, g.loser)
            for r in self.rounds for g in r.games if g.winner is not None
        ]
        if self.settings.system == "league":
            return open_provisional(
                self.numbers, self.present, open_records(results), self.qualified_extra()
            )
        places = self.places() if self.finished else {}
        return knockout_ranking(self.numbers, self.present, results, places)[-1]

    def standings_after(self, round_number: int) -> Sequence[OpenStanding | KnockoutStanding]:
        """The provisional ranking as it stood after ``round_number`` (0: before round 1)."""
        if self.settings.system != "league":
            return self.knockout_history()[round_number]
        results = [GameResult(g.round, g.stage, g.winner, g.loser)
                   for r in self.rounds[:round_number] for g in r.games if g.winner is not None]
        return open_provisional(self.numbers, self.present, open_records(results),
                                self.qualified_extra(round_number))

    def knockout_history(self) -> list[list[KnockoutStanding]]:
        places = self.places() if self.finished else {}
        return knockout_ranking(self.numbers, self.present, self.results, places)

    def places(self) -> dict[str, int]:
        """1st/2nd from the final, 3rd (and 4th in the open division) from the
        third-place match."""
        out: dict[str, int] = {}
        for r in self.rounds:
            for g in r.games:
                if g.stage == "final" and g.done:
                    out[g.winner] = 1  # type: ignore[index]
                    if g.loser:
                        out[g.loser] = 2
                if g.stage == "third" and g.done:
                    out[g.winner] = 3  # type: ignore[index]
                    if g.loser and self.settings.system == "league":
                        out[g.loser] = 4
        return out

    def final_ranking(self) -> list[str]:
        """最終順位: the places from the final games, then wins; ties on wins keep the
        order of the last provisional ranking (decision)."""
        if not self.finished:
            raise TournamentError("the event is not finished yet")
        places = self.places()
        standing = self.standings()
        order = {s.name: k for k, s in enumerate(standing)}
        wins = {s.name: s.wins for s in standing}
        return sorted(
            self.present,
            key=lambda n: (places.get(n, 99), -wins[n] if n not in places else 0, order[n]),
        )

    # ------------------------------------------------------------------ pairing
    def order_and_wins(self) -> tuple[dict[str, int], dict[str, int]]:
        standing = self.standings()
        return ({s.name: k for k, s in enumerate(standing)},
                {s.name: s.wins for s in standing})

    def pool_entrants(self, names: Sequence[str], order: dict[str, int],
              wins: dict[str, int]) -> list[Entrant]:
        met: dict[str, set[str]] = {n: set() for n in names}
        byes: set[str] = set()
        for r in self.rounds:
            for g in r.games:
                if g.second is None:
                    byes.add(g.first)  # any bye counts towards "at most one bye"
                    continue
                met.get(g.first, set()).add(g.second)
                met.get(g.second, set()).add(g.first)
        return [
            Entrant(n, wins[n], n in byes, frozenset(met[n]))
            for n in sorted(names, key=lambda n: order[n])
        ]

    def finals_game(self, number: int, stage: str, a: str | None, b: str | None,
                     group: str | None) -> list[Game]:
        """A semi-final, final or third-place game; a missing or withdrawn side gives
        the other a bye (walk-over), decision."""
        sides = [n for n in (a, b) if n is not None and n not in self.withdrawn]
        if not sides:
            return []
        if len(sides) == 1:
            return [Game(number, stage, group, sides[0], None)]
        return [Game(number, stage, group, sides[0], sides[1])]
