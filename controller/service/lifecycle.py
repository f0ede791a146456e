"""A game's start and end in the service: its settings, the journal's new game or the
resumed one, its record files, and play going on once the journal is written again.

A game starts from the configuration (and a hub's next-game order), and ends by
writing its records before the journal marks it finished, so a failure between the
two resumes the game and writes the same records again rather than losing them.

Resuming replays the journaled inputs through a fresh pure core, so the position,
the clocks and the events come back exactly.
"""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path
from typing import Any

from controller.errors import KaeshiError
from controller.events import numbered
from controller.service.choice import SourceChoice
from controller.service.config import Config
from controller.service.core import GameCore, GameSettings
from controller.service.games import write_game_files
from controller.service.gametime import GameTime
from controller.service.journal import GameRow, JournalError
from controller.service.outputs import Outputs
from controller.service.recovery import JournalKeeper, apply_journaled
from controller.service.replay_logs import ReplayLogs
from controller.service.table import Stepper, Table

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

    def __init__(self, table: Table, time: GameTime, keeper: JournalKeeper,
                 outputs: Outputs, logs: ReplayLogs, choice: SourceChoice,
                 play: Stepper) -> None:
        self.table = table
        self.config = table.config
        self.time = time
        self.keeper = keeper
        self.outputs = outputs
        self.logs = logs
        self.choice = choice
        self.play = play
        #: The game is over but not yet marked finished in the journal.
        self.finish_pending = False
        #: The record files of the game that ended last.
        self.finished_files: list[Path] = []
        #: The settings a hub's next_game order gave the next game (applied when it starts).
        self.next_game_overrides: dict[str, Any] | None = None

    def open(self) -> None:
        """Open the journal and resume the unfinished game, or start a new one."""
        table, config = self.table, self.config
        if (config["leds.driver"] == "board" and config["source.kind"] != "hall"
                and not self.logs.injected):
            raise KaeshiError(f"{config.source}: leds.driver = \"board\" needs "
                              "source.kind = \"hall\" (the LEDs are on the sensor board)")
        if not self.logs.injected and config["source.kind"] == "sim":
            self.logs.check()  # a bad log stops start-up, before anything
        if not self.logs.injected and config["source.kind"] in ("camera", "browser"):
            check_camera_setup(config)  # a set-up of another board too
        journal = self.keeper.open(config["journal.path"])
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
                table.say("journal damaged, nothing left to resume: a new game begins")
        else:
            self.resume(game)
        if journal.recovery:
            table.say("; ".join([*journal.recovery, table.message]))

    def new_game(self) -> None:
        journal = self.keeper.journal
        assert journal is not None
        settings = settings_from_config(self.config, self.choice.settled(),
                                        self.choice.press_wait())
        if self.next_game_overrides:
            settings = GameSettings.from_dict({**settings.to_dict(),
                                               **self.next_game_overrides})
            self.next_game_overrides = None
        info: dict[str, Any] = {"settings": settings.to_dict(),
                                "source": self.config["source.kind"]}
        sig = self.logs.signature()
        if sig is not None:
            info["log"] = sig
        game = journal.new_game(info, self.time.wall_time())
        self.table.begin(game, GameCore(settings))
        self.time.set_base(0.0)
        log.info("new game %s", game.id)

    def order(self, overrides: dict[str, Any]) -> None:
        """A hub's next_game order: the next game's settings, applied when it starts."""
        self.next_game_overrides = overrides

    def amend(self, settings: dict[str, Any]) -> bool:
        """Add ``settings`` to the next game's, if one is ordered."""
        if self.next_game_overrides is None:
            return False
        self.next_game_overrides = {**self.next_game_overrides, **settings}
        return True

    def resume(self, game: GameRow) -> None:
        """Replay the journaled inputs through a fresh core: same position, same clocks."""
        journal = self.keeper.journal
        assert journal is not None
        settings = GameSettings.from_dict(game.info.get("settings", {}))
        core = GameCore(settings)
        replayed: list[dict[str, Any]] = []
        journaled: list[dict[str, Any]] = []
        last_wall = game.started
        boards: list[str | None] = [None, None]
        seen = False
        for entry in journal.entries(game.id):
            last_wall = entry.wall
            if entry.kind == "input":
                events = apply_journaled(core, entry)
                replayed.extend(numbered(events, len(core.arbiter.moves)))
                board = entry.data.get("obs", {}).get("board")
                if board is not None:
                    boards = [boards[1], board]
                    seen = True
            elif entry.kind == "event":
                journaled.append(entry.data)
        if [{k: v for k, v in d.items() if k != "n"} for d in replayed] != journaled:
            log.warning(
                "journal of game %s: replay gave %d events where %d were shown; "
                "the replay is kept", game.id, len(replayed), len(journaled)
            )
        # the game's time goes on from its last input, not from a note written after
        # it (a note's time is the wall's, and would shift a resumed replay's times)
        last_t = core.t
        self.table.resumed(game, core, replayed, (boards[0], boards[1]), seen)
        policy = self.config["clock.resume"]
        down = self.keeper.outage(last_wall)
        charged = down.boot if policy == "charge" and down.boot is not None else 0.0
        base = last_t + charged * self.time.scale
        self.time.set_base(base)
        log.info("resumed game %s at %.1fs after %d moves (%s; policy %s)",
                 game.id, base, len(core.arbiter.moves), down.describe(), policy)
        self.table.say(f"resumed after an interruption: {down.describe()}")
        if policy == "charge":
            self.table.add(f"; {charged:.1f} s charged to the side on move"
                           if down.boot is not None else "")
        if core.game_over:
            self.table.refresh_state()
            self.finish_game()  # the game ended just before the interruption
            return
        clock = core.clock
        unmeasured = policy == "charge" and down.boot is None
        if ((policy == "pause" or unmeasured) and clock is not None
                and clock.running is not None and not clock.paused):
            self.play.step({"action": "pause", "why": "restart"}, t=last_t)
            if unmeasured:
                # never charged silently: the arbiter sees both figures and decides
                self.table.add("; nothing charged (the outage cannot be measured "
                               "on a clock that does not jump): clock paused until "
                               "the arbiter adjusts it and resumes")
            else:
                self.table.add("; clock paused until the arbiter resumes it")

    def retry_journal(self) -> None:
        """Try a write; once one succeeds, leave ``journal failed`` with the clock stopped."""
        if not self.keeper.written_again():
            return
        self.table.refresh_state()
        core = self.table.core
        self.table.say("the journal is written again")
        if (core is not None and core.clock is not None and core.clock.running is not None
                and not core.paused and not core.game_over):
            self.play.step({"action": "pause", "why": "journal"}, t=self.keeper.failed_at)
            self.table.add("; the clock stands at the failure until the arbiter resumes it")
        elif core is not None and core.game_over and self.finish_pending:
            self.finish_game()
        else:
            self.keeper.note({"journal": "recovered"})
        self.keeper.release()
        self.outputs.show()

    def replace_unstarted_game(self) -> bool:
        """A hub's next_game: if no move of the current game is made yet, start the new
        game at once (the empty one is closed); otherwise it waits for this one's end."""
        core, journal = self.table.core, self.keeper.journal
        if (core is None or journal is None or self.table.game is None
                or core.game_over or core.started or core.arbiter.moves):
            return False
        # The new game is written first: whichever write fails, the journal's latest
        # unfinished game is the one in play, so a restart resumes the right one.
        old, overrides = self.table.game, self.next_game_overrides
        try:
            self.new_game()
        except (JournalError, sqlite3.Error) as exc:
            self.next_game_overrides = overrides  # still wanted once the journal is back
            self.keeper.down(str(exc), self.time.now())
            return False
        try:
            journal.finish_game(old.id, self.time.wall_time())
        except JournalError as exc:
            # the empty game stays unfinished in the journal; nothing of it is lost
            self.keeper.down(str(exc), self.time.now())
        self.table.refresh_state()
        self.outputs.show()
        return True

    def finish_game(self) -> None:
        """Write the record files, then mark the game finished in the journal."""
        core, journal, game = self.table.core, self.keeper.journal, self.table.game
        assert core is not None and journal is not None and game is not None
        self.finish_pending = True
        folder = Path(self.config["games.folder"])
        try:
            self.finished_files = write_game_files(core.record(), game.id, folder)
        except OSError as exc:
            log.error("cannot write the game record into %s: %s", folder, exc)
            self.table.say(f"cannot write the game record: {exc}")
            return
        try:
            journal.finish_game(game.id, self.time.wall_time())
        except JournalError as exc:
            # the records are written; the journal still says "unfinished", so a restart
            # resumes this game and finishes it again (same record) rather than losing it
            log.error("%s", exc)
            self.keeper.hold(
                str(exc), core.t, f"JOURNAL FAILED ({exc}): the game record is "
                "written, but the journal could not mark the game finished")
            return
        self.finish_pending = False
        names = ", ".join(p.name for p in self.finished_files)
        log.info("game %s written to %s: %s", game.id, folder, names)
        # the page shows file names only: the service's folders are no one else's business
        self.table.say(f"Game record saved: {names}. Download it with the link above.")
