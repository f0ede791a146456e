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
from typing import TYPE_CHECKING, Any

from controller.errors import KaeshiError
from controller.observation import read_observations
from controller.service.journal import GameRow

if TYPE_CHECKING:
    from controller.service.app import Service

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


def count_observations(path: Path) -> int:
    """Read a whole log once, keeping nothing: a bad line stops start-up, named."""
    try:
        with open(path, encoding="utf-8") as f:
            return sum(1 for _ in read_observations(f))
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


class ReplayLogsMixin:
    """Which log a replaying :class:`~controller.service.app.Service` plays now."""

    def _check_logs(self: Service) -> None:
        """Every log of ``source.log`` read once (a bad one stops start-up), counted."""
        path = self.config["source.log"]
        if not path:
            raise KaeshiError(f"{self.config.source}: source.kind = \"sim\" needs source.log "
                              "(an observation log, or a folder of them)")
        try:
            files = log_files(path)
        except OSError as exc:
            raise KaeshiError(f"observation logs {path}: {exc}") from None
        self._log_counts = {f: count_observations(f) for f in files}
        self._log_file = files[0]
        self._log_count = self._log_counts[files[0]]

    def _log_folder(self: Service) -> bool:
        return (self._source is None and self.config["source.kind"] == "sim"
                and len(self._log_counts) > 0 and Path(self.config["source.log"]).is_dir())

    def _use_log(self: Service, path: Path) -> None:
        self._log_file = path
        self._log_count = self._log_counts.get(path)

    def _choose_log(self: Service, game: GameRow | None) -> GameRow | None:
        """The log to play: the unfinished ``game``'s own, else the first one no finished
        game replayed. Returns the last finished game when every log is replayed."""
        assert self.journal is not None
        files = list(self._log_counts)
        if game is not None:
            mine = game.info.get("log")
            for f in files:
                if _key(signature(f)) == _key(mine):
                    self._use_log(f)
            return None
        games = self.journal.games()
        done = {_key(g.info.get("log")) for g in games if g.finished is not None}
        for f in files:
            if _key(signature(f)) not in done:
                self._use_log(f)
                return None
        return games[-1] if games else None

    def _next_log(self: Service) -> Path | None:
        """The folder's next log after the one just played, if one is left."""
        if not self._log_folder() or self._log_file is None:
            return None
        files = list(self._log_counts)
        later = files[files.index(self._log_file) + 1:] if self._log_file in files else []
        return later[0] if later else None
