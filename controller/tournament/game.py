"""Games and rounds: what a pairing produces and a result fills in."""

from __future__ import annotations

from dataclasses import dataclass, field

from controller.tournament.model import TournamentError

OUTCOMES = ("black", "white", "draw")


@dataclass
class Game:
    """One table of one round, or a bye (``second`` is ``None``, no table)."""

    round: int
    stage: str  # league, placement, knockout, semi, final, third
    group: str | None
    first: str
    second: str | None
    table: int | None = None
    black: str | None = None
    white: str | None = None
    toss_by: str | None = None
    draw_win: str | None = None
    colour_chooser: str | None = None
    outcome: str | None = None
    winner: str | None = None
    discs: tuple[int, int] | None = None
    #: 不戦敗: the loser never played (a late player's choice, or their time ran out
    #: before they came); the result counts, but is not rated (rule 12).
    forfeit: bool = False
    #: How the game ended (``controller.tournament.verdict.REASONS``).
    reason: str = "normal"
    #: The arbiter's last correction of this game, in words (shown on the sheets).
    corrected: str | None = None
    #: A late arrival at this table as the director last heard of it (rules 11–12).
    late: LateReport | None = None

    @property
    def is_bye(self) -> bool:
        return self.second is None

    @property
    def done(self) -> bool:
        return self.winner is not None

    @property
    def rated(self) -> bool:
        """Goes to the rating list: a played game, not won on byes, forfeits or rule 14."""
        return (self.done and not self.is_bye and not self.forfeit
                and self.reason not in ("both_flags", "forfeit"))

    @property
    def loser(self) -> str | None:
        if self.winner is None or self.second is None:
            return None
        return self.second if self.winner == self.first else self.first


@dataclass(frozen=True)
class LateReport:
    """Who is late at a table, in which state (``controller.scorecard.LATE_STATES``),
    and, once they arrived, the time they play on."""

    player: str
    state: str
    remaining_ms: int | None = None


@dataclass
class Round:
    number: int
    games: list[Game]
    notes: list[str] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return all(g.done for g in self.games)

    def table(self, number: int) -> Game:
        for g in self.games:
            if g.table == number:
                return g
        raise TournamentError(f"round {self.number} has no game at table {number}")


@dataclass(frozen=True)
class GameSettings:
    """What the hub sends to a table before the game starts."""

    round: int
    table: int
    stage: str
    black: str
    white: str
    minutes: int
    draws: bool
    toss_by: str | None
    draw_win: str | None
    colour_chooser: str | None


@dataclass(frozen=True)
class Correction:
    """One of the arbiter's corrections (``corrections``) as the sheets and event.json
    show it."""

    what: str
    round: int | None  # None: not a round's (a withdrawal undone)
    table: int | None
    by: str
    why: str
    text: str  # what changed, in words
