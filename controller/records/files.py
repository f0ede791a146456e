"""Games in and out of files, the format chosen by the file's extension.

``.wtb`` WTHOR (names from ``WTHOR.JOU``/``WTHOR.TRN`` beside it), ``.ggf`` GGF,
``.txt`` transcripts (one game per line), ``.json`` Kaeshi's lossless JSON form.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from controller.records.ggf import scan_ggf_text, write_ggf_games
from controller.records.jsonform import dumps, scan_json_text
from controller.records.model import GameRecord, RecordError
from controller.records.scan import Scan
from controller.records.transcript import scan_transcripts, write_transcripts
from controller.records.wthor import scan_wthor, write_wthor

EXTENSIONS = (".wtb", ".ggf", ".txt", ".json")


def record_format(path: str | Path) -> str:
    """The format (extension) of ``path``; raise a clear error for anything else."""
    return _kind(Path(path))


def _kind(path: Path) -> str:
    ext = path.suffix.lower()
    if ext not in EXTENSIONS:
        raise RecordError(f"{path}: unknown record format {ext or '(no extension)'!r}; "
                          f"use one of {', '.join(EXTENSIONS)}")
    return ext


def record_filename(game: GameRecord, ext: str = ".ggf") -> str:
    """``Hasegawa-Tamaru-2026-11-28.ggf``: a download named after the players and date.

    Letters beyond ASCII stay (browsers take them, quoted as RFC 6266 says); anything
    that could leave a folder or upset a shell becomes ``_``.
    """
    parts = [re.sub(r"[^\w.-]+", "_", p.strip(), flags=re.UNICODE).strip("._-")
             for p in (game.black, game.white, game.date)]
    stem = "-".join(p for p in parts if p)[:100] or "kaeshi-game"
    return stem + ext


def _text(path: Path) -> str:
    data = path.read_bytes()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")  # old GGF files from servers predating UTF-8


def scan_file(path: str | Path, names_dir: str | Path | None = None) -> Scan:
    """Every game of a file, with the reason for each game that could not be read."""
    path = Path(path)
    kind = _kind(path)
    if kind == ".wtb":
        return scan_wthor(path, names_dir)
    readers: dict[str, Callable[[str, str], Scan]] = {
        ".ggf": scan_ggf_text,
        ".txt": scan_transcripts,
        ".json": scan_json_text,
    }
    return readers[kind](_text(path), str(path))


def load_games(path: str | Path, names_dir: str | Path | None = None) -> list[GameRecord]:
    """All games of a record file; raise :class:`RecordError` naming the first bad game.

    For ``.wtb`` files the player and tournament names come from ``WTHOR.JOU`` and
    ``WTHOR.TRN`` in ``names_dir`` (default: the file's own directory, any case).
    """
    return scan_file(path, names_dir).records()


def save_games(games: list[GameRecord], path: str | Path,
               names_dir: str | Path | None = None) -> None:
    """Write games in the format of ``path``'s extension.

    ``.wtb`` also creates or extends ``WTHOR.JOU``/``WTHOR.TRN`` in ``names_dir``
    (default: beside ``path``). Nothing is written when a game cannot be stored.
    """
    path = Path(path)
    kind = _kind(path)
    if kind == ".wtb":
        write_wthor(games, path, names_dir)
        return
    writers: dict[str, Callable[[list[GameRecord]], str]] = {
        ".ggf": write_ggf_games,
        ".txt": write_transcripts,
        ".json": dumps,
    }
    try:
        text = writers[kind](games)
    except RecordError as exc:
        raise RecordError(f"{path}: {exc}") from None
    path.write_text(text, encoding="utf-8")
