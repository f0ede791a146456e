"""What reading a file found: every game, or why a game could not be read.

Readers for users (``load_games``) stop at the first bad game; ``kaeshi record
verify`` must go on and count. Both use the same scan, so they can never disagree
about what a file holds.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from controller.position import Position
from controller.records.model import GameRecord, RecordError


@dataclass
class ScannedGame:
    """Game number ``index`` (1-based) of a file: the record, or the reason it has none."""

    index: int
    game: GameRecord | None = None
    error: RecordError | None = None
    #: The position after the last move, as the reader's replay found it.
    final: Position | None = None


@dataclass
class Scan:
    source: str
    games: list[ScannedGame] = field(default_factory=list)
    #: Problems that lost nothing but that a user should hear about (e.g. a short file).
    warnings: list[str] = field(default_factory=list)

    def add(self, game: GameRecord, final: Position) -> None:
        self.games.append(ScannedGame(len(self.games) + 1, game, None, final))

    def fail(self, message: str) -> None:
        error = RecordError(f"{self.source}: game {len(self.games) + 1}: {message}")
        self.games.append(ScannedGame(len(self.games) + 1, None, error))

    def records(self) -> list[GameRecord]:
        """All games; raise the first game's error if any game could not be read."""
        out = []
        for entry in self.games:
            if entry.error is not None:
                raise entry.error
            assert entry.game is not None
            out.append(entry.game)
        return out
