"""Checking record files the way an arbiter re-reads score sheets.

Every game is replayed; a finished game's stated score must be the score the
board gives (empties to the winner). A game that ends on the clock, by
resignation or by agreement is not compared: its stated score is a decision,
not a count.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from controller.records.files import scan_file
from controller.records.model import RecordError
from controller.records.scan import Scan


@dataclass
class Report:
    games: int = 0
    illegal: int = 0
    score_mismatch: int = 0
    unfinished: int = 0
    #: One line per problem, naming file, game and (for illegal moves) move.
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    #: Files that could not be read at all.
    unreadable: int = 0
    #: Games where play went on from a board the rules do not give (an irregular move
    #: that stood, or the arbiter's ruling): not errors, but a reader should know.
    stood: int = 0
    #: One line per such move, saying what was kept.
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not (self.illegal or self.score_mismatch or self.unreadable)

    def summary(self) -> str:
        text = (f"games: {self.games}, illegal: {self.illegal}, "
                f"score_mismatch: {self.score_mismatch}, unfinished: {self.unfinished}")
        return text + (f", irregular but kept: {self.stood}" if self.stood else "")


def check_scan(scan: Scan, report: Report) -> None:
    report.warnings.extend(scan.warnings)
    for entry in scan.games:
        report.games += 1
        if entry.error is not None:
            report.illegal += 1
            report.problems.append(str(entry.error))
            continue
        game, final = entry.game, entry.final
        assert game is not None and final is not None
        if game.stood():
            report.stood += 1
        for n in game.stood():
            mv = game.moves[n - 1]
            what = f"{mv.player.value} {mv.square or 'pass'}"
            said = " ".join(mv.comment.split()) if mv.comment else ""
            report.notes.append(
                f"{scan.source}: game {entry.index}: move {n} ({what}): the board as it "
                f"stood was kept and play went on from it" + (f" — {said}" if said else ""))
        if not final.is_game_over():
            report.unfinished += 1
            continue
        if game.result is None or game.result_note:
            continue
        board = final.final_score()
        if board != game.result:
            report.score_mismatch += 1
            report.problems.append(
                f"{scan.source}: game {entry.index}: stated result "
                f"{game.result[0]}-{game.result[1]}, but the board ends {board[0]}-{board[1]}"
            )


def verify_files(paths: Iterable[str | Path], names_dir: str | Path | None = None) -> Report:
    report = Report()
    for path in paths:
        try:
            scan = scan_file(path, names_dir)
        except (RecordError, OSError) as exc:
            report.unreadable += 1
            report.problems.append(str(exc))
            continue
        check_scan(scan, report)
    return report
