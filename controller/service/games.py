"""The games folder: each finished game as GGF, transcript and JSON, under its game id.

JSON is the file of record (it keeps everything); GGF is what other Othello
programs read; the transcript is what players paste. Irregularities travel as
comments in all three, so a record shows what the arbiter saw and when.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import logging
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from controller.errors import KaeshiError
from controller.records import load_games, save_games, transcript, write_ggf
from controller.records.irregular import count_in_comments
from controller.records.model import GameRecord, RecordError

log = logging.getLogger("kaeshi.service")

#: Export formats: name -> (file extension, description).
FORMATS = {
    "ggf": (".ggf", "Generic Game Format, with clock times and comments"),
    "txt": (".txt", "transcript (f5d6c3...), irregularities as # comment lines"),
    "json": (".json", "everything the record holds"),
    "wtb": (".wtb", "WTHOR database (moves, names, score; written with its name files)"),
}


def write_game_files(record: GameRecord, game_id: str, folder: Path) -> list[Path]:
    """Write ``<id>.json``, ``<id>.ggf`` and ``<id>.txt``; return the files written.

    Each file is written whole and then renamed into place, so a power cut leaves
    either the old file or the new one, never half of one. A format that cannot
    hold this game is skipped with a warning naming the file and why, and the others
    are still written: a game from a handicap or set-up start has no ``.txt``, since
    a transcript cannot hold a start position.
    """
    folder.mkdir(parents=True, exist_ok=True)
    if not record.date:
        record.date = dt.date.today().isoformat()
    record.extra.setdefault("KID", game_id)
    written = []
    # GGF gets the standard tags only: the game id is the file's name
    plain = dataclasses.replace(record, extra={k: v for k, v in record.extra.items()
                                               if k != "KID"})
    renderers = {".json": lambda: _json(record), ".ggf": lambda: write_ggf(plain) + "\n",
                 ".txt": lambda: transcript_file(record)}
    for ext, render in renderers.items():
        path = folder / f"{game_id}{ext}"
        try:
            text = render()
        except RecordError as exc:
            log.warning("%s not written: %s", path.name, exc)
            continue
        _atomic_write(path, text)
        written.append(path)
    return written


def _json(record: GameRecord) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "game.json"
        save_games([record], path)
        return path.read_text(encoding="utf-8")


def transcript_file(record: GameRecord) -> str:
    """The transcript line after ``#`` lines naming players, result and irregularities.

    Every text is kept inside its ``#`` lines: a line break in a name or comment
    starts another ``#`` line, so no text can pass for a game of its own.
    """
    lines = [f"# {_one_line(record.black) or 'Black'} vs {_one_line(record.white) or 'White'}"]
    if record.event:
        lines.append(f"# {_one_line(record.event)}")
    if record.result is not None:
        note = f" ({_one_line(record.result_note)})" if record.result_note else ""
        lines.append(f"# result {record.result[0]}-{record.result[1]}{note}")
    for number, mv in enumerate(record.moves, 1):
        if mv.comment:
            head = f"move {number} {mv.player.value} {mv.square or 'pass'}: "
            lines.extend(_comment_lines(head + mv.comment))
    for c in record.comments:
        lines.extend(_comment_lines(c))
    lines.append(transcript(record))
    return "\n".join(lines) + "\n"


def _one_line(text: str) -> str:
    """``text`` on one line: line breaks (every kind ``splitlines`` knows) become spaces."""
    return " ".join(part.strip() for part in text.splitlines() if part.strip())


def _comment_lines(text: str) -> list[str]:
    return [f"# {part}" for part in text.splitlines() or [""]]


def _atomic_write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".part")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


@dataclass(frozen=True)
class GameEntry:
    """One finished game as the folder lists it.

    ``record`` is None when the moves cannot be replayed under the rules — an
    irregularity nobody pointed out changed the position, as happens at real tables —
    and ``problem`` says why; the files written at the end of the game still hold
    everything, and are what ``export`` hands out.
    """

    id: str
    black: str
    white: str
    result: tuple[int, int] | None
    result_note: str
    moves: int
    #: Irregularities that count (every one but a move taken back), as the page counts.
    flagged: int
    record: GameRecord | None = None
    problem: str = ""


def _entry(path: Path) -> GameEntry | None:
    try:
        games = load_games(path)
    except RecordError as exc:
        return _raw_entry(path, str(exc))
    except OSError as exc:
        log.warning("%s", exc)
        return None
    if not games:
        return None
    rec = games[0]
    flagged = count_in_comments(m.comment for m in rec.moves)
    return GameEntry(path.stem, rec.black, rec.white, rec.result, rec.result_note,
                     len(rec.transcript_moves()), flagged, rec)


def _raw_entry(path: Path, problem: str) -> GameEntry | None:
    """The listing fields straight from the JSON, for a game the rules cannot replay."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        game = doc["games"][0]
        moves = [m for m in game.get("moves", []) if isinstance(m, dict)]
        result = game.get("result")
        return GameEntry(
            path.stem, str(game.get("black", "")), str(game.get("white", "")),
            (int(result[0]), int(result[1])) if result else None,
            str(game.get("result_note", "")),
            sum(1 for m in moves if m.get("square")),
            count_in_comments(str(m.get("comment") or "") for m in moves),
            None, problem,
        )
    except (OSError, ValueError, KeyError, IndexError, TypeError) as exc:
        log.warning("%s: not a game record (%s)", path, exc)
        return None


def list_games(folder: Path) -> list[GameEntry]:
    """The finished games of a folder, oldest first (ids are start times)."""
    if not folder.is_dir():
        raise KaeshiError(
            f"{folder}: no games folder there (no game has been finished with it yet). "
            "Name the folder with --folder DIR, or the service's configuration with "
            "--config FILE (its games.folder); `kaeshi demo` writes into ./games")
    return [e for e in map(_entry, sorted(folder.glob("*.json"))) if e is not None]


def find_game(folder: Path, game_id: str) -> GameEntry:
    path = folder / f"{game_id}.json"
    entry = _entry(path) if path.is_file() else None
    if entry is None:
        known = ", ".join(e.id for e in list_games(folder)[-5:]) or "none"
        raise KaeshiError(f"no game {game_id!r} in {folder} (latest: {known})")
    return entry


def export_game(folder: Path, game_id: str, fmt: str, out: Path | None) -> str | None:
    """The game in ``fmt`` as text (``out`` None), or written to ``out``; returns the text.

    GGF, transcript and JSON are the files written when the game ended, as they are;
    WTHOR is made from the record, so it needs moves the rules can replay.
    """
    if fmt not in FORMATS:
        raise KaeshiError(f"unknown format {fmt!r} (one of {', '.join(FORMATS)})")
    entry = find_game(folder, game_id)
    saved = folder / f"{game_id}{FORMATS[fmt][0]}"
    if fmt == "wtb":
        if out is None:
            raise KaeshiError("the wtb format is binary: give a file with --out")
        if entry.record is None:
            raise KaeshiError(f"game {game_id} cannot be written as WTHOR: {entry.problem}")
        save_games([entry.record], out)
        return None
    if saved.is_file():
        text = saved.read_text(encoding="utf-8")
    elif entry.record is not None:
        text = {"ggf": lambda: write_ggf(entry.record) + "\n",
                "txt": lambda: transcript_file(entry.record),
                "json": lambda: _json(entry.record)}[fmt]()
    else:
        raise KaeshiError(f"game {game_id} has no {fmt} file: {entry.problem}")
    if out is not None:
        out.write_text(text, encoding="utf-8")
    return text
