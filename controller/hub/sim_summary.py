"""What ``kaeshi hub simulate`` is asked for, and what it says at the end."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class SimulateOptions:
    tables: int = 8
    speed: float = 20.0
    processes: int = 0  # 0: about 25 tables per process
    errors: float = 0.03
    folder: str | None = None
    web: bool = False
    seed: int = 0
    event: str = "sim"
    games: int = 1  # games each table plays in a row (a folder of logs, one per game)


@dataclass
class TableResult:
    table: int
    journal: int  # events journaled
    hub: int  # events the hub stored
    moves: int
    equal: bool
    finished: bool


@dataclass
class Comparison:
    tables: list[TableResult]

    @property
    def equal(self) -> bool:
        return all(t.equal for t in self.tables)

    @property
    def finished(self) -> bool:
        return all(t.finished for t in self.tables)

    def lost_and_doubled(self) -> tuple[int, int]:
        lost = sum(max(0, t.journal - t.hub) for t in self.tables)
        doubled = sum(max(0, t.hub - t.journal) for t in self.tables)
        return lost, doubled


@dataclass
class Summary:
    tables: int
    seconds: float
    comparison: Comparison
    notes: list[str] = field(default_factory=list)
    games: int = 1

    @property
    def ok(self) -> bool:
        return self.comparison.equal and self.comparison.finished

    def text(self) -> str:
        c = self.comparison
        lost, doubled = c.lost_and_doubled()
        moves = sum(t.moves for t in c.tables)
        events = sum(t.journal for t in c.tables)
        lines = [
            f"{self.tables} tables played "
            f"{'a round' if self.games == 1 else f'{self.games} rounds'} in "
            f"{self.seconds:.1f} s: {moves} moves, "
            f"{events} events journaled, {sum(t.hub for t in c.tables)} stored by the hub",
            f"tables equal to their journal: {sum(t.equal for t in c.tables)}/{self.tables}; "
            f"lost {lost}, doubled {doubled}",
            *self.notes,
        ]
        return "\n".join(lines)
