"""The journal's file on disk: its writer's lock, its damage check, and a recovery's swap.

Everything here works on paths, before or beside the journal's own connection:

* one journal has one writer: :func:`hold_lock` takes an exclusive ``flock`` on
  ``<journal>.lock`` beside the journal's real path (symbolic links resolved) and
  writes the holder's PID in it, so a second service is refused with the PID that
  holds it (the kernel drops the lock with a dead process); :func:`lock_file` locks
  the journal file itself, so a second path to the same file (a hard link, a bind
  mount) is refused too: the lock belongs to the file, not to a name;
* :func:`inspect` checks a journal through a read-only connection, which can never
  checkpoint or rewrite it: SQLite's ``integrity_check`` and every row's checksum;
* a recovery builds the fresh journal beside the damaged one (``<name>.recovering``)
  and swaps it in only once complete (:func:`recovering`, :func:`complete`).
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
from pathlib import Path
from typing import Any

from controller.errors import KaeshiError
from controller.service.rows import scan, text_factory


class JournalError(KaeshiError):
    """A journal that cannot be opened or read; names the file."""


def inspect(path: Path) -> str:
    """What is damaged in the journal at ``path`` ('' when whole): SQLite's
    ``integrity_check`` for the file's structure (indexes included: the game's entries
    are read through one), then every row against its checksum."""
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None,
                             timeout=10)
    except sqlite3.Error as exc:
        raise JournalError(f"{path}: cannot open the journal ({exc})") from None
    db.text_factory = text_factory  # a row that is not UTF-8 is damage, named, not a halt
    try:
        rows = db.execute("PRAGMA integrity_check").fetchall()
        found = [" ".join(str(r[0]).split()) for r in rows if str(r[0]) != "ok"]
        if found:
            return "; ".join(found[:3]) + (" ..." if len(found) > 3 else "")
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if not {"games", "entries"} <= tables:
            return ""  # cut short while it was first created: opening completes it
        return scan(db)
    except sqlite3.DatabaseError as exc:
        if not is_damage(exc):
            raise JournalError(f"{path}: cannot open the journal ({exc})") from None
        return str(exc)
    finally:
        db.close()


def recovering(path: Path) -> Path:
    return path.with_name(f"{path.name}.recovering")


def complete(path: Path) -> bool:
    """Whether the recovered journal beside ``path`` was finished (it says what it holds)."""
    tmp = recovering(path)
    if Path(f"{tmp}-wal").exists():
        return False  # still open when the service died: written only partly
    return meta(tmp, "recovered") is not None


def meta(path: Path, key: str, db: sqlite3.Connection | None = None) -> str | None:
    """One value of a journal's ``meta`` table (None if it is not there or not readable)."""
    try:
        conn = db or sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            row = conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        finally:
            if db is None:
                conn.close()
    except sqlite3.Error:
        return None
    return None if row is None else str(row[0])


def remove_db(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def sync_dir(folder: Path) -> None:
    """Make a rename in ``folder`` durable (a power cut must not undo it)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def is_damage(exc: sqlite3.DatabaseError) -> bool:
    """Whether SQLite says the file's contents are damaged (not merely unreachable)."""
    text = str(exc).lower()
    if not isinstance(exc, sqlite3.OperationalError):
        return True
    return any(w in text for w in ("malformed", "not a database", "corrupt"))


def lock_path(path: Path) -> Path:
    """The lock file beside a journal (``<name>.lock``), its symbolic links resolved:
    two names of one file through links share one lock."""
    real = Path(os.path.realpath(path))
    return real.with_name(f"{real.name}.lock")


class FileLock:
    """An exclusive ``flock`` on the journal file itself (device and inode), held on a
    descriptor of its own: SQLite's own locks are ``fcntl`` locks, which a ``flock``
    neither takes nor disturbs."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self._fd: int | None = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        except OSError as exc:
            raise JournalError(f"{path}: cannot open the journal ({exc})") from None
        st = os.fstat(self._fd)
        self.file = (st.st_dev, st.st_ino)
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self.close()
            raise JournalError(
                f"{path}: the journal file is in use by another process under another "
                "name (a hard link or a second mount of it); one journal has one writer: "
                "stop that process, or give this one another journal.path") from None

    def holds(self, path: Path) -> bool:
        """Whether the file now at ``path`` is the one locked (a recovery swaps it)."""
        try:
            st = os.stat(path)
        except OSError:
            return False
        return (st.st_dev, st.st_ino) == self.file

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the descriptor releases the lock
            self._fd = None

    def __del__(self) -> None:  # a journal dropped unclosed lets go, as its lock file does
        self.close()


def lock_file(path: Path, held: FileLock | None = None) -> FileLock | None:
    """The lock of the file now at ``path`` (None: no file yet); ``held``, the lock
    taken before, is kept if it is that file's and released if not."""
    if held is not None and held.holds(path):
        return held
    if held is not None:
        held.close()
    return FileLock(path) if path.exists() else None


def hold_lock(path: Path) -> Any:
    """Take the journal's exclusive lock (``flock`` on its lock file) and write our PID in it.

    The kernel drops the lock with the process, so a killed service never leaves a
    stale lock behind; the PID in the file is only there to name the holder.
    """
    where = lock_path(path)
    try:
        f = open(where, "a+", encoding="ascii")  # noqa: SIM115 - held until close
    except OSError as exc:
        raise JournalError(f"{path}: cannot open the journal's lock file {where} ({exc})") from None
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        f.seek(0)
        holder = f.read(32).strip()
        f.close()
        who = f"process {holder}" if holder.isdigit() else "another process"
        raise JournalError(
            f"{path}: the journal is in use by {who} (lock {where}); one journal has one "
            "writer: stop that process, or give this one another journal.path") from None
    f.seek(0)
    f.truncate()
    f.write(f"{os.getpid()}\n")
    f.flush()
    return f


def refuse_foreign(path: Path) -> None:
    """A file that is no SQLite database at all is somebody else's: never move it aside."""
    try:
        with open(path, "rb") as f:
            head = f.read(16)
    except OSError as exc:
        raise JournalError(f"{path}: cannot open the journal ({exc})") from None
    if head and not b"SQLite format 3\x00".startswith(head[:16]):
        raise JournalError(f"{path}: cannot open the journal (the file is not an SQLite "
                           "database; is journal.path pointing at another file?)")
