"""Transcripts: a game as the squares played, ``f5d6c3d3c4...``.

The form players write on score sheets and paste into chat, so reading forgives
what people type — any letter case, spaces and line breaks between moves, passes
written as ``--``, ``PA`` or ``pass`` or left out — while writing gives the
canonical form: lowercase squares run together, passes left out.

A transcript file (``.txt``) holds one game per line; blank lines and lines
starting with ``#`` are skipped. Transcripts carry no names, clocks or result and
always start from the standard position: anything else is refused on writing
rather than silently lost.
"""

from __future__ import annotations

import re

from controller.position import Position
from controller.records.model import GameRecord, RecordError
from controller.records.replay import Step, replay
from controller.records.scan import Scan
from controller.squares import COLUMNS, parse_square

_PASS = ("pass", "pa", "--")


def _token_pattern(size: int) -> re.Pattern[str]:
    rows = "10|[1-9]" if size == 10 else f"[1-{size}]"
    return re.compile(rf"\s*(pass|pa|--|[{COLUMNS[:size]}](?:{rows}))", re.IGNORECASE)


def parse_tokens(text: str, size: int = 8) -> list[Step]:
    """The moves of a transcript; raise naming the first character that is not a move."""
    pattern = _token_pattern(size)
    steps = []
    pos = 0
    stripped = text.rstrip()
    while pos < len(stripped):
        m = pattern.match(stripped, pos)
        if m is None:
            while stripped[pos].isspace():
                pos += 1
            raise RecordError(
                f"character {pos + 1} ({stripped[pos]!r}) of the transcript starts no move "
                f"(moves are squares a1..{COLUMNS[size - 1]}{size}, passes -- or PA), "
                f"after {len(steps)} moves"
            )
        token = m.group(1).lower()
        steps.append(Step(None if token in _PASS else parse_square(token, size)))
        pos = m.end()
    return steps


def parse_transcript(text: str, start: Position | None = None, **info: object) -> GameRecord:
    """A record of one transcript; illegal moves raise naming the move number."""
    start = start or Position.start()
    moves, _ = replay(start, parse_tokens(text, start.size))
    return GameRecord(start=start, moves=moves, **info)  # type: ignore[arg-type]


def transcript(game: GameRecord) -> str:
    """The canonical transcript: lowercase squares run together, passes left out."""
    return "".join(game.transcript_moves())


def scan_transcripts(text: str, source: str) -> Scan:
    """Every game of a transcript file (one per line; blank and ``#`` lines skipped)."""
    scan = Scan(source)
    for line_no, line in enumerate(text.splitlines(), 1):
        content = line.strip()
        if not content or content.startswith("#"):
            continue
        start = Position.start()
        try:
            moves, final = replay(start, parse_tokens(content))
        except RecordError as exc:
            scan.fail(f"line {line_no}: {exc}")
            continue
        scan.add(GameRecord(start=start, moves=moves), final)
    return scan


def write_transcripts(games: list[GameRecord]) -> str:
    """A transcript file; raise for a game a transcript cannot hold."""
    lines = []
    for index, game in enumerate(games, 1):
        if game.start != Position.start():
            raise RecordError(f"game {index}: a transcript holds only games from the "
                              "standard 8x8 start position (use GGF or JSON)")
        lines.append(transcript(game))
    return "".join(line + "\n" for line in lines)
