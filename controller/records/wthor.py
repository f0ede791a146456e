"""WTHOR databases: ``.wtb`` game files with names in ``WTHOR.JOU`` and ``WTHOR.TRN``.

A ``.wtb`` file stores each game in 68 bytes and names only by number; the
player and tournament names live in two separate files that every database user
keeps beside the game files. So reading looks for those files beside the
``.wtb`` (any letter case), and writing reuses them — appending names they lack —
or creates them, so a written database is complete on its own.

Layout (little-endian). Header, 16 bytes: century, year, month, day the file was
made; u32 number of games; u16 number of records (name files); u16 year of the
games; u8 board size (0 or 8); u8 game type; u8 depth of the theoretical scores;
u8 reserved. Game, 68 bytes: u16 tournament, u16 black player, u16 white player,
u8 black's discs at the end (empties to the winner), u8 theoretical score, 60
move bytes ``10 * row + column`` (1-based, so 11 is a1, 18 is h1 and 56 is f5;
every game in the database opens with 56), 0 after the last move; passes are not
stored.
"""

from __future__ import annotations

import datetime as dt
import re
import struct
from dataclasses import dataclass
from pathlib import Path

from controller.boardsize import STANDARD, board_size
from controller.position import Position
from controller.records.model import GameRecord, RecordError
from controller.records.replay import Step, rebuild, replay, square_index
from controller.records.scan import Scan

HEADER = struct.Struct("<4BIHHBBBB")
GAME = struct.Struct("<HHHBB60s")
PLAYER_RECORD = 20
TOURNAMENT_RECORD = 26
PLAYERS_FILE = "WTHOR.JOU"
TOURNAMENTS_FILE = "WTHOR.TRN"
#: Name WTHOR uses for an unknown player; also written for an empty name.
UNKNOWN_NAME = "???"
#: Key in :attr:`GameRecord.extra` carrying the numbers a ``.wtb`` game refers to.
EXTRA_KEY = "WTHOR"


# ------------------------------------------------------------------ squares
#: WTHOR databases hold games of the standard board only.
SIDE = STANDARD
SQUARES = board_size(SIDE).squares


def decode_square(byte: int) -> int | None:
    """Square index of a move byte (``None`` if the byte names no square)."""
    row, col = divmod(byte, 10)
    if 1 <= row <= SIDE and 1 <= col <= SIDE:
        return (row - 1) * SIDE + (col - 1)
    return None


def encode_square(index: int) -> int:
    row, col = divmod(index, SIDE)
    return 10 * (row + 1) + (col + 1)


# -------------------------------------------------------------------- names
def find_beside(directory: Path, filename: str) -> Path | None:
    """``filename`` in ``directory`` whatever its letter case (databases come from DOS)."""
    exact = directory / filename
    if exact.is_file():
        return exact
    if directory.is_dir():
        for candidate in directory.iterdir():
            if candidate.name.lower() == filename.lower() and candidate.is_file():
                return candidate
    return None


def _decode_name(raw: bytes) -> str:
    return raw.split(b"\0", 1)[0].decode("latin-1").strip()


def fit_name(name: str, record_size: int) -> str:
    """The name as a record of ``record_size`` bytes keeps it (Latin-1, NUL-terminated)."""
    raw = name.encode("latin-1", errors="replace")[: record_size - 1]
    return raw.decode("latin-1").strip()


def read_names(path: Path, record_size: int) -> list[str]:
    """Names of a ``WTHOR.JOU`` (20-byte records) or ``WTHOR.TRN`` (26-byte records)."""
    data = path.read_bytes()
    if len(data) < HEADER.size:
        raise RecordError(f"{path}: {len(data)} bytes, shorter than the 16-byte header")
    body = data[HEADER.size :]
    count = len(body) // record_size
    return [_decode_name(body[i * record_size : (i + 1) * record_size]) for i in range(count)]


@dataclass
class NameTable:
    """A name file being written: existing records stay byte for byte, new names are appended."""

    path: Path
    record_size: int
    names: list[str]
    header: bytes
    kept: bytes = b""  # the existing records, exactly as they were
    changed: bool = False

    @classmethod
    def open(cls, directory: Path, filename: str, record_size: int,
             created: dt.date) -> NameTable:
        existing = find_beside(directory, filename)
        if existing is None:
            return cls(directory / filename, record_size, [], _header(created, 0, 0, 0),
                       changed=True)
        data = existing.read_bytes()
        if len(data) < HEADER.size:
            raise RecordError(f"{existing}: {len(data)} bytes, shorter than the 16-byte header")
        names = read_names(existing, record_size)
        kept = data[HEADER.size : HEADER.size + len(names) * record_size]
        return cls(existing, record_size, names, data[: HEADER.size], kept)

    def number(self, name: str, hint: int | None = None) -> int:
        """The number of ``name``; ``hint`` (the number a record had) wins if it still fits."""
        name = fit_name(name, self.record_size)
        if not name and hint is not None and hint < len(self.names):
            return hint  # names unknown when read: trust the number the game carried
        name = name or UNKNOWN_NAME
        if hint is not None and hint < len(self.names) and self.names[hint] == name:
            return hint
        try:
            return self.names.index(name)
        except ValueError:
            pass
        if len(self.names) >= 0xFFFF:
            raise RecordError(f"{self.path}: no room for another name ({name!r})")
        self.names.append(name)
        self.changed = True
        return len(self.names) - 1

    def to_bytes(self) -> bytes:
        fields = list(HEADER.unpack(self.header))
        fields[5] = len(self.names)  # u16 number of records
        out = bytearray(HEADER.pack(*fields))
        out += self.kept
        for name in self.names[len(self.kept) // self.record_size :]:
            raw = name.encode("latin-1", errors="replace")[: self.record_size - 1]
            out += raw.ljust(self.record_size, b"\0")
        return bytes(out)

    def save(self) -> None:
        if self.changed:
            self.path.write_bytes(self.to_bytes())


def _header(created: dt.date, games: int, records: int, year: int, depth: int = 0) -> bytes:
    return HEADER.pack(created.year // 100, created.year % 100, created.month, created.day,
                       games, records, year, SIDE if games else 0, 0, depth, 0)


# ------------------------------------------------------------------ reading
def _extra(tournament: int, black: int, white: int, theory: int, depth: int) -> str:
    return f"trn={tournament} black={black} white={white} theory={theory} depth={depth}"


def parse_extra(value: str) -> dict[str, int]:
    """The numbers a game kept from its ``.wtb`` record (empty if none or unreadable)."""
    out: dict[str, int] = {}
    for item in value.split():
        key, _, number = item.partition("=")
        if re.fullmatch(r"[0-9]{1,6}", number):
            out[key] = int(number)
    return out


def scan_wthor_bytes(data: bytes, source: str, players: list[str] | None = None,
                     tournaments: list[str] | None = None) -> Scan:
    """Every game of a ``.wtb`` file's bytes; corrupt headers raise, bad games are listed."""
    scan = Scan(source)
    if len(data) < HEADER.size:
        raise RecordError(f"{source}: {len(data)} bytes, shorter than the 16-byte WTHOR header")
    (_, _, _, _, declared, _, year, board, _, depth, _) = HEADER.unpack_from(data)
    if board not in (0, SIDE):
        raise RecordError(f"{source}: header at offset 12: board size {board}; "
                          "only 8x8 databases (size 0 or 8) are supported")
    body = len(data) - HEADER.size
    count, partial = divmod(body, GAME.size)
    if partial:
        scan.warnings.append(f"{source}: final partial record of {partial} bytes "
                             f"at offset {HEADER.size + count * GAME.size} ignored")
    if declared != count:
        scan.warnings.append(f"{source}: header says {declared} games, file holds {count}")
    start = Position.start()
    for i in range(count):
        offset = HEADER.size + i * GAME.size
        trn, black, white, score, theory, raw = GAME.unpack_from(data, offset)
        where = f"offset {offset}"
        if score > SQUARES:
            scan.fail(f"{where}: real score {score} is more than {SQUARES} discs")
            continue
        steps: list[Step] = []
        problem = ""
        ended = False
        for n, byte in enumerate(raw, 1):
            if byte == 0:
                ended = True
                continue
            if ended:
                problem = f"move byte {byte} after the end of the game (move {n})"
                break
            sq = decode_square(byte)
            if sq is None:
                problem = f"move {n}: byte {byte} is not a square (11..88)"
                break
            steps.append(Step(sq))
        if problem:
            scan.fail(f"{where}: {problem}")
            continue
        try:
            moves, final = replay(start, steps)
        except RecordError as exc:
            scan.fail(f"{where}: {exc}")
            continue
        scan.add(GameRecord(
            black=_name(players, black, "player", source, scan),
            white=_name(players, white, "player", source, scan),
            event=_name(tournaments, trn, "tournament", source, scan),
            date=str(year) if year else "",
            start=start,
            moves=moves,
            result=(score, SQUARES - score),
            extra={EXTRA_KEY: _extra(trn, black, white, theory, depth)},
        ), final)
    return scan


def _name(names: list[str] | None, number: int, kind: str, source: str, scan: Scan) -> str:
    if names is None:
        return ""
    if number < len(names):
        return names[number]
    scan.warnings.append(f"{source}: game {len(scan.games) + 1}: {kind} number {number} "
                         f"is not in the name file ({len(names)} names)")
    return ""


def name_files(path: Path, names_dir: Path | None = None) -> tuple[Path | None, Path | None]:
    directory = names_dir if names_dir is not None else path.parent
    return find_beside(directory, PLAYERS_FILE), find_beside(directory, TOURNAMENTS_FILE)


def scan_wthor(path: str | Path, names_dir: str | Path | None = None) -> Scan:
    path = Path(path)
    jou, trn = name_files(path, Path(names_dir) if names_dir is not None else None)
    players = read_names(jou, PLAYER_RECORD) if jou else None
    tournaments = read_names(trn, TOURNAMENT_RECORD) if trn else None
    scan = scan_wthor_bytes(path.read_bytes(), str(path), players, tournaments)
    if jou is None or trn is None:
        scan.warnings.append(f"{path}: {PLAYERS_FILE}/{TOURNAMENTS_FILE} not found beside it; "
                             "names left empty")
    return scan


def read_wthor(path: str | Path, names_dir: str | Path | None = None) -> list[GameRecord]:
    """Games of a ``.wtb`` file, names from the ``WTHOR.JOU``/``.TRN`` beside it."""
    return scan_wthor(path, names_dir).records()


# ------------------------------------------------------------------ writing
def game_bytes(game: GameRecord, index: int, players: NameTable,
               tournaments: NameTable) -> bytes:
    """The 68-byte record of one game; raise naming the game if WTHOR cannot hold it."""
    label = game.label(index)
    if game.start.size != STANDARD:
        raise RecordError(f"{label}: WTHOR holds only {STANDARD}x{STANDARD} games, this one "
                          f"is {game.start.size}x{game.start.size} (keep it as GGF, JSON or a "
                          "transcript)")
    if not game.has_standard_start():
        raise RecordError(f"{label}: WTHOR holds only games from the standard "
                          "8x8 start position")
    stood = game.stood()
    if stood:
        moves_text = ", ".join(map(str, stood))
        raise RecordError(
            f"{label}: WTHOR cannot hold it: after move {moves_text} play went on from a "
            "board the rules do not give (an irregular move that stood, or the arbiter's "
            "ruling), and WTHOR stores the moves only. Keep this game as GGF or JSON.")
    try:
        moves, final = rebuild(game)
    except RecordError as exc:
        raise RecordError(f"{label}: {exc}") from None
    squares = [square_index(m.square) for m in moves if m.square is not None]
    if game.result is not None:
        score = game.result[0]
    else:
        score = final.final_score()[0]
    if not 0 <= score <= SQUARES:
        raise RecordError(f"game {index}: black's score {score} does not fit WTHOR "
                          f"(0..{SQUARES})")
    known = parse_extra(game.extra.get(EXTRA_KEY, ""))
    theory = known.get("theory", score)
    if not 0 <= theory <= SQUARES:
        theory = score
    black = players.number(game.black, known.get("black"))
    white = players.number(game.white, known.get("white"))
    trn = tournaments.number(game.event, known.get("trn"))
    raw = bytes(encode_square(sq) for sq in squares).ljust(60, b"\0")
    return GAME.pack(trn, black, white, score, theory, raw)


def _game_year(games: list[GameRecord], created: dt.date) -> int:
    for game in games:
        if re.fullmatch(r"[0-9]{4}", game.date[:4]) and game.date[4:5] in ("", "-", "."):
            return int(game.date[:4])
    return created.year


def write_wthor(games: list[GameRecord], path: str | Path, names_dir: str | Path | None = None,
                created: dt.date | None = None) -> None:
    """Write ``path`` and create or extend ``WTHOR.JOU``/``WTHOR.TRN`` in ``names_dir``.

    ``names_dir`` defaults to the directory of ``path``. Nothing is written if any
    game cannot be stored.
    """
    path = Path(path)
    directory = Path(names_dir) if names_dir is not None else path.parent
    created = created or dt.date.today()
    players = NameTable.open(directory, PLAYERS_FILE, PLAYER_RECORD, created)
    tournaments = NameTable.open(directory, TOURNAMENTS_FILE, TOURNAMENT_RECORD, created)
    body = b"".join(game_bytes(g, i, players, tournaments) for i, g in enumerate(games, 1))
    depth = next((parse_extra(g.extra[EXTRA_KEY]).get("depth", 0) for g in games
                  if EXTRA_KEY in g.extra), 0)
    header = _header(created, len(games), 0, _game_year(games, created), depth)
    path.write_bytes(header + body)
    players.save()
    tournaments.save()
