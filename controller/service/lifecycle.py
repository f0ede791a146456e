"""A game's start and end in the service: its settings, the journal's new game, and
its record files.

A game starts from the configuration (and a hub's next-game order), and ends by
writing its records before the journal marks it finished, so a failure between the
two resumes the game and writes the same records again rather than losing them.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from controller.errors import KaeshiError
from controller.service.bootclock import BootStamp
from controller.service.config import Config
from controller.service.core import GameCore, GameSettings
from controller.service.games import write_game_files
from controller.service.journal import GameRow, Journal, JournalError
from controller.service.recovery import JournalKeeper
from controller.service.replay_logs import ReplayLogs

log = logging.getLogger("kaeshi.service")


def settings_from_config(config: Config, settled: bool = False,
                         press_wait: float = 0.0) -> GameSettings:
    """A new game's settings; ``settled``: its source debounces every board itself;
    ``press_wait``: seconds a press waits for the frames after it."""
    return GameSettings(
        mode=config["game.mode"],
        black=config["game.black"],
        white=config["game.white"],
        event=config["game.event"],
        place=config["game.place"],
        draws_allowed=config["game.draws_allowed"],
        draw_win_right=config["game.draw_win_right"],
        clock=config["clock.enabled"],
        main=float(config["clock.main"]),
        increment=float(config["clock.increment"]),
        delay=float(config["clock.delay"]),
        settled=settled,
        handicap=config["game.handicap"],
        size=config["game.size"],
        press_wait=press_wait,
    )


class PlayedTable(Protocol):
    """What starting and ending a game changes of the service."""

    config: Config
    journal: Journal | None
    game: GameRow | None
    core: GameCore | None
    message: str
    events: list[dict[str, Any]]
    events_total: int
    recent_boards: tuple[str | None, str | None]
    board_seen: bool
    #: The settings a hub's next_game order gave the next game (applied when it starts).
    next_game_overrides: dict[str, Any] | None
    #: The record files of the game that ended last.
    finished_files: list[Path]
    boot_clock: Callable[[], BootStamp]

    def now(self) -> float: ...
    def wall_time(self) -> float: ...
    def set_base(self, t: float) -> None: ...
    def refresh_state(self) -> None: ...
    def show(self, arrival: float | None = None) -> None: ...
    def source_settled(self) -> bool: ...
    def source_press_wait(self) -> float: ...


def check_camera_setup(config: Config) -> None:
    """Refuse, at start-up, a camera set-up made on another board than ``game.size``:
    every square would be misnamed. A file that cannot be read is left to the
    camera's source, which says so and tries again (it may be written later)."""
    from controller.vision.calibration_file import (
        CalibrationError,
        check_board_size,
        load_calibration,
    )

    path = config["source.camera_setup"]
    if not path:
        return
    try:
        made = load_calibration(path, bare=True).setup.size
    except CalibrationError:
        return
    try:
        check_board_size(path, made, config["game.size"], "game.size", setting=True)
    except CalibrationError as exc:
        raise KaeshiError(f"{config.source}: source.camera_setup: {exc}") from None


class ReplayDone(KaeshiError):
    """The configured log was already replayed to its end; nothing is left to do."""


class GameLifecycle:
    """A game's start and end (see the module docstring)."""

    def __init__(self, table: PlayedTable, logs: ReplayLogs, keeper: JournalKeeper) -> None:
        self.table = table
        self.logs = logs
        self.keeper = keeper
        #: The game is over but not yet marked finished in the journal.
        self.finish_pending = False

    def open(self) -> None:
        """Open the journal and resume the unfinished game, or start a new one."""
        table, config = self.table, self.table.config
        if (config["leds.driver"] == "board" and config["source.kind"] != "hall"
                and not self.logs.injected):
            raise KaeshiError(f"{config.source}: leds.driver = \"board\" needs "
                              "source.kind = \"hall\" (the LEDs are on the sensor board)")
        if not self.logs.injected and config["source.kind"] == "sim":
            self.logs.check()  # a bad log stops start-up, before anything
        if not self.logs.injected and config["source.kind"] in ("camera", "browser"):
            check_camera_setup(config)  # a set-up of another board too
        try:
            journal = table.journal = Journal(config["journal.path"],
                                              boot_clock=table.boot_clock)
        except OSError as exc:
            raise JournalError(f"{config['journal.path']}: {exc}") from None
        for line in journal.recovery:
            log.warning("%s", line)
        try:
            game = journal.unfinished_game()
            if self.logs.folder():
                done = self.logs.choose(journal, game)
            else:
                done = self.logs.replayed_already(journal) if game is None else None
        except sqlite3.Error as exc:
            raise JournalError(f"{journal.path}: cannot read the journal ({exc})") from None
        if done is not None:
            journal.close()
            raise ReplayDone(
                f"the log {config['source.log']} was already replayed to its end as "
                f"game {done.id} (records in {config['games.folder']}); nothing to "
                "replay. Give another log, or another journal.path, to replay it again."
            )
        if game is None:
            self.new_game()
            if journal.recovery:
                table.message = "journal damaged, nothing left to resume: a new game begins"
        else:
            self.keeper.resume(game)
        if journal.recovery:
            table.message = "; ".join([*journal.recovery, table.message])

    def new_game(self) -> None:
        assert self.table.journal is not None
        settings = settings_from_config(self.table.config, self.table.source_settled(),
                                        self.table.source_press_wait())
        if self.table.next_game_overrides:
            settings = GameSettings.from_dict({**settings.to_dict(),
                                               **self.table.next_game_overrides})
            self.table.next_game_overrides = None
        info: dict[str, Any] = {"settings": settings.to_dict(),
                                "source": self.table.config["source.kind"]}
        sig = self.logs.signature()
        if sig is not None:
            info["log"] = sig
        self.table.game = self.table.journal.new_game(info, self.table.wall_time())
        self.table.core = GameCore(settings)
        self.table.events = []
        self.table.events_total = 0
        self.table.board_seen = False
        self.table.recent_boards = (None, None)
        self.table.set_base(0.0)
        log.info("new game %s", self.table.game.id)

    def replace_unstarted_game(self) -> bool:
        """A hub's next_game: if no move of the current game is made yet, start the new
        game at once (the empty one is closed); otherwise it waits for this one's end."""
        core = self.table.core
        if (core is None or self.table.journal is None or self.table.game is None
                or core.game_over or core.started or core.arbiter.moves):
            return False
        # The new game is written first: whichever write fails, the journal's latest
        # unfinished game is the one in play, so a restart resumes the right one.
        old, overrides = self.table.game, self.table.next_game_overrides
        try:
            self.new_game()
        except (JournalError, sqlite3.Error) as exc:
            self.table.next_game_overrides = overrides  # still wanted once the journal is back
            self.keeper.down(str(exc), self.table.now())
            return False
        try:
            self.table.journal.finish_game(old.id, self.table.wall_time())
        except JournalError as exc:
            # the empty game stays unfinished in the journal; nothing of it is lost
            self.keeper.down(str(exc), self.table.now())
        self.table.refresh_state()
        self.table.show()
        return True

    def finish_game(self) -> None:
        """Write the record files, then mark the game finished in the journal."""
        table = self.table
        core, journal, game = table.core, table.journal, table.game
        assert core is not None and journal is not None and game is not None
        self.finish_pending = True
        folder = Path(self.table.config["games.folder"])
        try:
            self.table.finished_files = write_game_files(core.record(),
                                                         game.id, folder)
        except OSError as exc:
            log.error("cannot write the game record into %s: %s", folder, exc)
            self.table.message = f"cannot write the game record: {exc}"
            return
        try:
            journal.finish_game(game.id, self.table.wall_time())
        except JournalError as exc:
            # the records are written; the journal still says "unfinished", so a restart
            # resumes this game and finishes it again (same record) rather than losing it
            log.error("%s", exc)
            self.keeper.hold(
                str(exc), core.t, f"JOURNAL FAILED ({exc}): the game record is "
                "written, but the journal could not mark the game finished")
            return
        self.finish_pending = False
        names = ", ".join(p.name for p in self.table.finished_files)
        log.info("game %s written to %s: %s", game.id, folder, names)
        # the page shows file names only: the service's folders are no one else's business
        self.table.message = f"Game record saved: {names}. Download it with the link above."
