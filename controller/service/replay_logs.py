"""A replay of several games in a row: ``source.log`` naming a folder of observation logs.

A table that replays a day (or a simulated hall's table) plays each log of the folder
as one game, in name order, one after the other, as a real table plays the games of a
day. Each game's journal entry names the log it replays (its path and size), which is
how a restarted service knows where it is: an unfinished game resumes its own log, and
otherwise the first log no finished game has replayed is next. A single log file is one
game, as always.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from controller.boardsize import STANDARD
from controller.errors import KaeshiError
from controller.observation import LogHeader, read_log
from controller.service.config import Config
from controller.service.journal import GameRow, Journal

log = logging.getLogger("kaeshi.service")

#: What counts as an observation log in a folder.
LOG_SUFFIX = ".jsonl"


def log_files(path: str | Path) -> list[Path]:
    """The logs ``path`` names: itself, or a folder's ``*.jsonl`` files in name order."""
    path = Path(path)
    if not path.is_dir():
        return [path]
    files = sorted(p for p in path.iterdir() if p.is_file() and p.name.endswith(LOG_SUFFIX))
    if not files:
        raise KaeshiError(f"observation logs {path}: the folder holds no *{LOG_SUFFIX} log")
    return files


def survey(path: Path, size: int = STANDARD) -> tuple[int, LogHeader | None]:
    """Read a whole log of a ``size`` board once, keeping only its count and its header
    (a camera's log says its frame rate there): a bad line stops start-up, named."""
    try:
        with open(path, encoding="utf-8") as f:
            header, observations = read_log(f, size)
            return sum(1 for _ in observations), header
    except (KaeshiError, OSError, UnicodeDecodeError) as exc:
        raise KaeshiError(f"observation log {path}: {exc}") from None


def signature(path: Path) -> dict[str, Any] | None:
    """A log's identity in the journal (path and size)."""
    try:
        size = path.stat().st_size
    except OSError:
        return None
    return {"path": str(path.resolve()), "size": size}


def _key(sig: object) -> str:
    return json.dumps(sig, sort_keys=True)


class ReplayLogs:
    """Which log a replaying service plays now (``source.log``: one log or a folder).

    ``injected``: the service was handed its source (a test's, the demo's board), so
    there is no configured log to play."""

    def __init__(self, config: Config, injected: bool) -> None:
        self.config = config
        self.injected = injected
        #: Observations of every log of ``source.log`` (checked at start-up).
        self.counts: dict[Path, int] = {}
        #: The header of every log that has one (``kaeshi watch`` wrote it).
        self.headers: dict[Path, LogHeader | None] = {}
        #: The log of the game in play, and its observation count.
        self.file: Path | None = None
        self.count: int | None = None

    def check(self) -> None:
        """Every log of ``source.log`` read once (a bad one stops start-up), counted."""
        path = self.config["source.log"]
        if not path:
            raise KaeshiError(f"{self.config.source}: source.kind = \"sim\" needs source.log "
                              "(an observation log, or a folder of them)")
        try:
            files = log_files(path)
        except OSError as exc:
            raise KaeshiError(f"observation logs {path}: {exc}") from None
        size = self.config["game.size"]
        surveyed = {f: survey(f, size) for f in files}
        self.counts = {f: count for f, (count, _) in surveyed.items()}
        self.headers = {f: header for f, (_, header) in surveyed.items()}
        self.file = files[0]
        self.count = self.counts[files[0]]

    def folder(self) -> bool:
        """Whether ``source.log`` is a folder of logs (one game each)."""
        return (not self.injected and self.config["source.kind"] == "sim"
                and len(self.counts) > 0 and Path(self.config["source.log"]).is_dir())

    def header(self) -> LogHeader | None:
        """The header of the log in play: a camera's log says how it was watched."""
        if self.injected or self.config["source.kind"] != "sim" or self.file is None:
            return None
        return self.headers.get(self.file)

    def use(self, path: Path) -> None:
        self.file = path
        self.count = self.counts.get(path)

    def signature(self) -> dict[str, Any] | None:
        """The log in play's identity (path and size), so a finished replay is not redone."""
        if self.injected or self.config["source.kind"] != "sim":
            return None
        return signature(self.file or Path(self.config["source.log"]))

    def choose(self, journal: Journal, game: GameRow | None) -> GameRow | None:
        """The log to play: the unfinished ``game``'s own, else the first one no finished
        game replayed. Returns the last finished game when every log is replayed."""
        files = list(self.counts)
        if game is not None:
            mine = game.info.get("log")
            for f in files:
                if _key(signature(f)) == _key(mine):
                    self.use(f)
            return None
        games = journal.games()
        done = {_key(g.info.get("log")) for g in games if g.finished is not None}
        for f in files:
            if _key(signature(f)) not in done:
                self.use(f)
                return None
        return games[-1] if games else None

    def replayed_already(self, journal: Journal) -> GameRow | None:
        """The finished game that replayed this very log to its end, if the last one did."""
        sig = self.signature()
        if sig is None:
            return None
        games = journal.games()
        last = games[-1] if games else None
        if last is not None and last.finished is not None and last.info.get("log") == sig:
            return last
        return None

    def next_log(self) -> Path | None:
        """The folder's next log after the one just played, if one is left."""
        if not self.folder() or self.file is None:
            return None
        files = list(self.counts)
        later = files[files.index(self.file) + 1:] if self.file in files else []
        return later[0] if later else None


class ReplayClock:
    """Where a replayed log's own times sit in game time: shifted once per log, so the
    game's time continues (a replay, killed and resumed or not, is the same game)."""

    def __init__(self) -> None:
        self.offset: float | None = None  # service time minus log time, this log
        #: The game time the service opened at (a replay's first reading continues it).
        self.open_base = 0.0

    def opened(self, base: float) -> None:
        self.open_base = base

    def next_log(self) -> None:
        """The folder's next log: a new game, from game time 0."""
        self.offset = None
        self.open_base = 0.0

    def time_of(self, t: float) -> float:
        """The game time of a reading the log stamps ``t``."""
        if self.offset is None:
            self.offset = max(0.0, self.open_base - t)
        return t + self.offset

    def pending_time(self, pending: float) -> float:
        """The game time of the reading the log holds next (the offset may not be fixed yet)."""
        offset = self.offset if self.offset is not None else max(0.0, self.open_base - pending)
        return pending + offset
