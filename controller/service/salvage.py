"""A damaged journal: find the damage before SQLite hides it, keep the file, save what reads.

SQLite is quiet about two kinds of damage that matter here. A write-ahead log
whose header or a frame's checksum is broken is ignored from that frame on, so
steps that were shown vanish without a word; and a damaged database file raises
``DatabaseError`` at whatever query first touches a bad page. So the journal is
checked before and right after it is opened:

* :func:`inspect_wal` reads the ``-wal`` file as the SQLite file format
  describes it (header, frames, cumulative checksums) and says how much of it is
  whole, committed steps and how much SQLite will drop;
* :func:`salvage` copies every game and entry of a damaged database (one that fails
  ``PRAGMA integrity_check`` or a row's checksum, or cannot be opened) that can still
  be read and is whole into a fresh journal, saying exactly what came back and what
  did not; it reads the damaged file read-only, and :func:`move_aside` then renames
  it, with its ``-wal``, so the copy kept is the bytes found.

Nothing here decides to start a new game: the journal reports, the service shows
the report, and a damaged file is never deleted.
"""

from __future__ import annotations

import logging
import os
import shutil
import sqlite3
import struct
import time
from dataclasses import dataclass, field
from pathlib import Path

from controller.service.rows import (
    entry_crc,
    entry_fault,
    game_crc,
    game_fault,
    has_crc,
    ranges,
    text_factory,
)

log = logging.getLogger("kaeshi.service")

_WAL_MAGIC = (0x377F0682, 0x377F0683)
_WAL_HEADER = 32
_FRAME_HEADER = 24


@dataclass(frozen=True, slots=True)
class WalReport:
    """What a ``-wal`` file holds: ``committed`` frames SQLite will use, the rest dropped."""

    size: int
    committed: int  # frames up to and including the last whole, valid commit
    dropped_frames: int  # whole frames after it that will not be used
    dropped_bytes: int  # bytes after it (frames and any partial frame)
    damaged: bool  # a broken header, or a frame of this log whose checksum fails
    detail: str = ""


def _checksum(data: bytes, s0: int, s1: int, big: bool) -> tuple[int, int]:
    words = struct.unpack((">" if big else "<") + f"{len(data) // 4}I", data)
    for i in range(0, len(words), 2):
        s0 = (s0 + words[i] + s1) & 0xFFFFFFFF
        s1 = (s1 + words[i + 1] + s0) & 0xFFFFFFFF
    return s0, s1


def inspect_wal(path: Path) -> WalReport | None:
    """The state of ``path`` (a ``-wal`` file), or None when there is none or it is empty."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    if not data:
        return None
    size = len(data)
    if size < _WAL_HEADER:
        return WalReport(size, 0, 0, size, True, f"{size} bytes, shorter than a WAL header")
    magic, version, page, _seq, salt1, salt2, c1, c2 = struct.unpack(">8I", data[:_WAL_HEADER])
    if magic not in _WAL_MAGIC or version != 3007000 or page < 512 or page & (page - 1):
        return WalReport(size, 0, 0, size, True, "its header is not a WAL header")
    big = bool(magic & 1)
    s0, s1 = _checksum(data[:24], 0, 0, big)
    if (s0, s1) != (c1, c2):
        return WalReport(size, 0, 0, size, True, "its header checksum fails")
    frame = _FRAME_HEADER + page
    offset, frames, committed, committed_end = _WAL_HEADER, 0, 0, _WAL_HEADER
    damaged, detail = False, ""
    while offset + frame <= size:
        head = data[offset:offset + _FRAME_HEADER]
        _pgno, commit, f_salt1, f_salt2, f1, f2 = struct.unpack(">6I", head)
        if (f_salt1, f_salt2) != (salt1, salt2):
            break  # a frame left from before the log was restarted: not part of it
        n0, n1 = _checksum(head[:8] + data[offset + _FRAME_HEADER:offset + frame], s0, s1, big)
        if (n0, n1) != (f1, f2):
            damaged, detail = True, f"frame {frames + 1} fails its checksum"
            break
        s0, s1 = n0, n1
        frames += 1
        offset += frame
        if commit:
            committed, committed_end = frames, offset
    rest = size - committed_end
    dropped = (rest // frame) if rest >= frame else 0
    if rest and not detail:
        detail = f"{dropped} whole frame(s) and {rest} bytes after the last whole step"
    return WalReport(size, committed, dropped, rest, damaged, detail)


@dataclass
class Salvage:
    """What :func:`salvage` moved aside and copied back."""

    kept_as: Path
    games: int = 0
    entries: int = 0
    moves: int = 0
    lost: list[str] = field(default_factory=list)

    def describe(self) -> str:
        got = (f"recovered {self.games} game(s), {self.entries} journal entries "
               f"({self.moves} moves)")
        lost = "; not recovered: " + "; ".join(self.lost) if self.lost else "; nothing was lost"
        return f"{got}{lost}; the damaged file is kept as {self.kept_as}"


def aside_name(path: Path, stamp: str | None = None) -> Path:
    """A free ``<name>.damaged-<stamp>`` name beside ``path`` for its damaged copy."""
    stamp = stamp or time.strftime("%Y%m%d-%H%M%S")
    target = path.with_name(f"{path.name}.damaged-{stamp}")
    n = 1
    while any(Path(f"{target}{s}").exists() for s in ("", "-wal", "-shm")):
        n += 1
        target = path.with_name(f"{path.name}.damaged-{stamp}-{n}")
    return target


def move_aside(path: Path, target: Path | None = None) -> Path:
    """Rename ``path`` and its ``-wal``/``-shm`` to ``target`` (default: :func:`aside_name`).

    A rename keeps the bytes exactly as found: the copy kept as evidence is the
    damaged file itself. The main file goes first: a kill before it leaves the
    journal whole in place; a kill after it leaves a ``-wal`` that the journal's
    recovery moves after it (``Journal._finish_recovery``).
    """
    target = target or aside_name(path)
    for suffix in ("", "-wal", "-shm"):
        src = Path(f"{path}{suffix}")
        if src.exists():
            os.replace(src, Path(f"{target}{suffix}"))
    return target


def salvage(damaged: Path, fresh: sqlite3.Connection, batch: int = 500,
            kept_as: Path | None = None) -> Salvage:
    """Copy what can be read from ``damaged`` into ``fresh`` (read only: it is evidence).

    ``kept_as`` is where the damaged file will be kept, for the report.

    Entries are read in ``seq`` order in batches; where a batch fails, the rows are
    tried one by one so a single bad page costs only the rows on it.
    """
    report = Salvage(kept_as or damaged)
    try:
        src = sqlite3.connect(f"file:{damaged}?mode=ro", uri=True, isolation_level=None)
    except sqlite3.Error as exc:
        report.lost.append(f"everything (the file cannot be opened: {exc})")
        return report
    src.text_factory = text_factory
    try:
        _copy_games(src, fresh, report)
        _copy_entries(src, fresh, report, batch)
    finally:
        src.close()
    return report


def _copy_games(src: sqlite3.Connection, fresh: sqlite3.Connection, report: Salvage) -> None:
    crc = "crc" if _has_crc(src, "games") else "NULL"
    try:
        rows = src.execute(f"SELECT id, started, finished, info, {crc} FROM games").fetchall()
    except sqlite3.Error as exc:
        report.lost.append(f"the list of games ({exc})")
        return
    damaged = 0
    for game_id, started, finished, info, check in rows:
        if game_fault(game_id, started, finished, info, check):
            damaged += 1
            continue
        fresh.execute("INSERT OR IGNORE INTO games(id, started, finished, info, crc) "
                      "VALUES (?, ?, ?, ?, ?)",
                      (game_id, started, finished, info,
                       game_crc(game_id, started, finished, info)))
        report.games += 1
    if damaged:
        report.lost.append(f"{damaged} damaged game row(s)")


def _has_crc(src: sqlite3.Connection, table: str) -> bool:
    try:
        return has_crc(src, table)
    except sqlite3.Error:
        return False


def _copy_entries(
    src: sqlite3.Connection, fresh: sqlite3.Connection, report: Salvage, batch: int
) -> None:
    """Every entry that reads and is whole (checksum, JSON, a usable input) is copied.

    Rows are walked by ``seq`` a batch at a time from the last one read, so a damaged
    row number (a bit flipped into a huge ``seq``) costs nothing; where a batch cannot
    be read, the next ``batch`` numbers are tried one by one and the walk goes on
    after them.
    """
    crc = "crc" if _has_crc(src, "entries") else "NULL"
    cols = f"seq, game, step, kind, t, wall, data, {crc}"
    after_query = f"SELECT {cols} FROM entries WHERE seq > ? ORDER BY seq LIMIT ?"
    one_query = f"SELECT {cols} FROM entries WHERE seq = ?"
    missing: list[int] = []
    damaged: list[int] = []
    known_games = {r[0] for r in fresh.execute("SELECT id FROM games")}
    last, failures = 0, 0
    while True:
        try:
            rows = src.execute(after_query, (last, batch)).fetchall()
        except sqlite3.Error as exc:
            failures += 1
            if failures > 200:  # nothing past here reads: say so and stop
                report.lost.append(f"every journal entry after seq {last} ({exc})")
                break
            rows = []
            for seq in range(last + 1, last + batch + 1):
                try:
                    rows.extend(src.execute(one_query, (seq,)).fetchall())
                except sqlite3.Error:
                    missing.append(seq)
            last += batch
            if not rows:
                continue
        else:
            if not rows:
                break
            last = rows[-1][0]
        fresh.execute("BEGIN")
        for seq, game, step, kind, t, wall, data, check in rows:
            if entry_fault(game, step, kind, t, wall, data, check):
                damaged.append(seq)
                continue
            if game not in known_games:  # its game row was lost: keep the entries findable
                fresh.execute("INSERT OR IGNORE INTO games(id, started, finished, info, crc) "
                              "VALUES (?, ?, NULL, '{}', ?)",
                              (game, wall, game_crc(game, wall, None, "{}")))
                known_games.add(game)
                report.lost.append(f"the settings of game {game} (defaults used)")
            done = fresh.execute(
                "INSERT OR IGNORE INTO entries(seq, game, step, kind, t, wall, data, crc) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (seq, game, step, kind, t, wall, data, entry_crc(game, step, kind, t, wall, data)))
            if not done.rowcount:  # a damaged page gave this row number twice
                damaged.append(seq)
                continue
            report.entries += 1
            if kind == "event" and '"event":"move"' in data:
                report.moves += 1
        fresh.execute("COMMIT")
    if missing:
        report.lost.append(f"{len(missing)} journal entries on damaged pages "
                           f"(seq {ranges(missing)})")
    if damaged:
        report.lost.append(f"{len(damaged)} damaged journal entries, left out "
                           f"(seq {ranges(damaged)})")


def keep_damaged_wal(path: Path) -> str | None:
    """Copy a WAL aside when SQLite would drop part of it; the note says what is dropped
    (None when no whole step is lost: a cut-off tail is only logged)."""
    wal = Path(f"{path}-wal")
    report = inspect_wal(wal)
    if report is None or not report.dropped_bytes:
        return None
    if not report.damaged:
        # Frames past the last commit: a step cut short by a crash (never confirmed,
        # so never shown), or a file cut at its end. The content cannot tell them
        # apart; moves are checkpointed, so either way at most the readings since
        # the last move are dropped, and the next reading shows the board again.
        log.warning("%s: %d bytes after the last whole step are dropped (a step cut "
                    "short by a crash, or a file cut short)", wal, report.dropped_bytes)
        return None
    kept = wal.with_name(f"{wal.name}.damaged-{time.strftime('%Y%m%d-%H%M%S')}")
    shutil.copyfile(wal, kept)
    return (
        f"the write-ahead log {wal.name} is damaged ({report.detail}): "
        f"{report.committed} frames of whole steps recovered, {report.dropped_frames} "
        f"frames ({report.dropped_bytes} bytes) could not be used; a copy is kept as "
        f"{kept}"
    )

