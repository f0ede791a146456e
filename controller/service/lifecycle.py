"""A game's start and end in the service: its settings, the journal's new game, and
its record files.

A game starts from the configuration (and a hub's next-game order), and ends by
writing its records before the journal marks it finished, so a failure between the
two resumes the game and writes the same records again rather than losing them.
"""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Any

from controller.service.config import Config
from controller.service.core import GameCore, GameSettings
from controller.service.games import write_game_files
from controller.service.journal import JournalError

if TYPE_CHECKING:
    from controller.service.app import Service

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
        press_wait=press_wait,
    )


class LifecycleMixin:
    """Game start and end methods of :class:`~controller.service.app.Service`."""

    def _new_game(self: Service) -> None:
        assert self.journal is not None
        settings = settings_from_config(self.config, self._source_settled(),
                                        self._source_press_wait())
        if self.next_game_overrides:
            settings = GameSettings.from_dict({**settings.to_dict(),
                                               **self.next_game_overrides})
            self.next_game_overrides = None
        info: dict[str, Any] = {"settings": settings.to_dict(),
                                "source": self.config["source.kind"]}
        sig = self._log_signature()
        if sig is not None:
            info["log"] = sig
        self.game = self.journal.new_game(info, self._wall())
        self.core = GameCore(settings)
        self.events = []
        self.events_total = 0
        self._board_seen = False
        self._recent_boards = (None, None)
        self._set_base(0.0)
        log.info("new game %s", self.game.id)

    def replace_unstarted_game(self: Service) -> bool:
        """A hub's next_game: if no move of the current game is made yet, start the new
        game at once (the empty one is closed); otherwise it waits for this one's end."""
        core = self.core
        if (core is None or self.journal is None or self.game is None or core.game_over
                or core.started or core.arbiter.moves):
            return False
        # The new game is written first: whichever write fails, the journal's latest
        # unfinished game is the one in play, so a restart resumes the right one.
        old, overrides = self.game, self.next_game_overrides
        try:
            self._new_game()
        except (JournalError, sqlite3.Error) as exc:
            self.next_game_overrides = overrides  # still wanted once the journal is back
            self._journal_down(str(exc), self.now())
            return False
        try:
            self.journal.finish_game(old.id, self._wall())
        except JournalError as exc:
            # the empty game stays unfinished in the journal; nothing of it is lost
            self._journal_down(str(exc), self.now())
        self._refresh_state()
        self._show()
        return True

    def _finish_game(self: Service) -> None:
        """Write the record files, then mark the game finished in the journal."""
        assert self.core is not None and self.journal is not None and self.game is not None
        self._finish_pending = True
        folder = Path(self.config["games.folder"])
        try:
            self.finished_files = write_game_files(self.core.record(), self.game.id, folder)
        except OSError as exc:
            log.error("cannot write the game record into %s: %s", folder, exc)
            self.message = f"cannot write the game record: {exc}"
            return
        try:
            self.journal.finish_game(self.game.id, self._wall())
        except JournalError as exc:
            # the records are written; the journal still says "unfinished", so a restart
            # resumes this game and finishes it again (same record) rather than losing it
            log.error("%s", exc)
            self._hold_for_journal(
                str(exc), self.core.t, f"JOURNAL FAILED ({exc}): the game record is "
                "written, but the journal could not mark the game finished")
            return
        self._finish_pending = False
        names = ", ".join(p.name for p in self.finished_files)
        log.info("game %s written to %s: %s", self.game.id, folder, names)
        # the page shows file names only: the service's folders are no one else's business
        self.message = f"Game record saved: {names}. Download it with the link above."
