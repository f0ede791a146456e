"""Transcripts: a game as the squares played, ``f5d6c3d3c4...``.

The form players write on score sheets and paste into chat, so reading forgives
what people type — any letter case, spaces and line breaks between moves, passes
written as ``--``, ``PA`` or ``pass`` or left out — while writing gives the
canonical form: lowercase squares run together, passes left out.

A transcript file (``.txt``) holds one game per line; blank lines and lines
starting with ``#`` are skipped. Transcripts carry no names, clocks or result and
always start from the centre-four start: a game from any other start is refused
on writing, naming the game, rather than written as if it began at the standard
start (it would read back as a different game, or not at all). A game on a board
other than 8x8 is written with its size in front, ``6x6 c2b2...`` or
``10x10 f5d6...``; a line without one is an 8x8 game, as every transcript was.
"""

from __future__ import annotations

import re

from controller.boardsize import COLUMN_LETTERS as COLUMNS
from controller.boardsize import STANDARD, board_size
from controller.position import HANDICAP_CORNERS, Position
from controller.records.model import GameRecord, RecordError
from controller.records.replay import Step, replay
from controller.records.scan import Scan
from controller.squares import SIZES, parse_square

_PASS = ("pass", "pa", "--")
_SIZE_PREFIX = re.compile(r"\s*(" + "|".join(map(str, SIZES)) + r")[xX×](\d+)(?=\s|[a-zA-Z]|$)")


def split_size(text: str) -> tuple[int, str]:
    """The board size a transcript line names in front (8 when it names none) and the
    moves after it; a size prefix of a board Kaeshi does not play is refused."""
    m = _SIZE_PREFIX.match(text)
    if m is None:
        odd = re.match(r"\s*(\d+)[xX×](\d+)", text)
        if odd is not None:
            raise RecordError(f"{odd.group().strip()!r}: not a board size Kaeshi plays "
                              f"(transcripts name {', '.join(board_size(n).label for n in SIZES)})")
        return STANDARD, text
    if m.group(1) != m.group(2):
        raise RecordError(f"{m.group().strip()!r}: a board is square (6x6, 8x8 or 10x10)")
    return int(m.group(1)), text[m.end():]


def size_prefix(size: int) -> str:
    """What a transcript writes in front of a game of this size (nothing for 8x8)."""
    return "" if size == STANDARD else f"{board_size(size).label} "


def _token_pattern(size: int) -> re.Pattern[str]:
    rows = "10|[1-9]" if size == 10 else f"[1-{size}]"
    return re.compile(rf"\s*(pass|pa|--|[{COLUMNS[:size]}](?:{rows}))", re.IGNORECASE)


def parse_tokens(text: str, size: int = STANDARD) -> list[Step]:
    """The moves of a transcript; raise naming the first character that is not a move."""
    pattern = _token_pattern(size)
    steps: list[Step] = []
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
    """A record of one transcript; illegal moves raise naming the move number.

    Without ``start`` the game starts from the centre four of the size the line names."""
    size, text = split_size(text)
    if start is not None and size != STANDARD and size != start.size:
        raise RecordError(f"the transcript is of a {board_size(size).label} board, "
                          f"the start given is {board_size(start.size).label}")
    start = start or Position.start(size)
    moves, _ = replay(start, parse_tokens(text, start.size))
    return GameRecord(start=start, moves=moves, **info)  # type: ignore[arg-type]


def transcript(game: GameRecord, name: str = "") -> str:
    """The canonical transcript: lowercase squares run together, passes left out.

    Raise for a game that does not start from the standard position, naming it as
    ``name`` (default: its game id and players) and its start.
    """
    if not game.has_centre_start():
        raise RecordError(
            f"{name or _game_name(game)}: a transcript holds only games from the "
            f"centre-four start, and this one starts from {_start_name(game.start)} "
            "(keep it as GGF or JSON)"
        )
    if game.stood():
        raise RecordError(
            f"{name or _game_name(game)}: a transcript cannot hold it: after move "
            f"{', '.join(map(str, game.stood()))} play went on from a board the rules do "
            "not give (an irregular move that stood); keep it as GGF or JSON")
    return size_prefix(game.start.size) + "".join(game.transcript_moves())


def _game_name(game: GameRecord) -> str:
    """The game as a person finds it: the id the games folder files it under, the players."""
    kid = game.extra.get("KID", "")
    players = f"{game.black or 'Black'} vs {game.white or 'White'}"
    if kid:
        return f"game {kid} ({players})"
    return f"game {players}" if game.black or game.white else "the game"


def _start_name(start: Position) -> str:
    if start.size != STANDARD:
        return f"a set-up position on {board_size(start.size).a_label} board"
    for stones in range(1, len(HANDICAP_CORNERS) + 1):
        if start == Position.handicap(stones):
            return f"a {stones}-disc handicap"
    return f"a set-up position with {start.to_move.value} to move"


def scan_transcripts(text: str, source: str) -> Scan:
    """Every game of a transcript file (one per line; blank and ``#`` lines skipped)."""
    scan = Scan(source)
    for line_no, line in enumerate(text.splitlines(), 1):
        content = line.strip()
        if not content or content.startswith("#"):
            continue
        try:
            size, moves_text = split_size(content)
            start = Position.start(size)
            moves, final = replay(start, parse_tokens(moves_text, size))
        except RecordError as exc:
            scan.fail(f"line {line_no}: {exc}")
            continue
        scan.add(GameRecord(start=start, moves=moves), final)
    return scan


def write_transcripts(games: list[GameRecord]) -> str:
    """A transcript file; raise for a game a transcript cannot hold."""
    lines = []
    for index, game in enumerate(games, 1):
        lines.append(transcript(game, f"game {index}"))
    return "".join(line + "\n" for line in lines)
