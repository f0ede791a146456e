"""What the web page sees of the service: snapshots for each view, and the arbiter's actions.

The web server defines the interface (``controller.web.facade.ServiceFacade``); the
service takes it on through this mixin, so the wiring in ``app`` stays about data
flow. Actions are ordinary journaled inputs: they go through the service's one
step function, so they are on disk before anyone sees their effect.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from controller.leds.plan import plan_overlay
from controller.service.core import ActionRefused
from controller.squares import Color
from controller.web.facade import ActionError, View

if TYPE_CHECKING:
    from controller.records.model import GameRecord
    from controller.service.app import Service

log = logging.getLogger("kaeshi.service")


class FacadeMixin:
    """The :class:`~controller.web.ServiceFacade` methods of :class:`Service`."""

    def snapshot(self: Service, view: View = "player") -> dict[str, Any]:
        core = self.core
        if core is None:
            return {"version": self.notifier.version, "state": self.states.state.value,
                    "mode": self.config["game.mode"], "board": "-" * 64, "events": []}
        arb = core.arbiter
        position = arb.position
        board = arb.last_board or position.board_string()
        b, w = position.counts()
        mode = core.settings.mode
        advisory = view == "arbiter" or mode == "home"  # rule 21: no advice to players
        moves = [
            {"n": i, "player": m.player.value, "square": m.square, "t": m.time,
             **({"comment": m.comment} if advisory and m.comment else {})}
            for i, m in enumerate(arb.moves, 1)
        ]
        overlay = arb.overlay()
        audience = "arbiter" if view == "arbiter" else "players"
        # Legal moves light the LEDs only when configured; the web page's home view
        # always gets them, because its "show legal moves" box is the players' request.
        on_leds = view == "arbiter" or self.config["leds.show_legal"]
        legal = self._legal() if (on_leds or mode == "home") else None
        plan = plan_overlay(mode, overlay, self.states.state.value,
                            legal if on_leds else None, audience)
        snap: dict[str, Any] = {
            "version": self.notifier.version,
            "game": self.game.id if self.game else None,
            "mode": mode,
            "state": self.states.state.value,
            "board": board,
            "position": position.board_string(),
            "to_move": None if core.game_over else position.to_move.value,
            "counts": {"black": b, "white": w},
            "players": {"black": core.settings.black, "white": core.settings.white},
            "black": core.settings.black,
            "white": core.settings.white,
            "clocks": core.clocks(self.shown_time()),
            "moves": moves,
            "last_move": overlay.last_move,
            "events": list(self.events[-50:]),
            "events_total": self.events_total,
            "overlay": {sq: cell.to_json() for sq, cell in plan.items()},
            "message": self.message,
            "irregularities": self._open_flags(),
            "legal": legal or [],
            "url": self.url,
        }
        snap["flags"] = snap["irregularities"] if advisory else []
        return snap

    def _open_flags(self: Service) -> list[dict[str, Any]]:
        assert self.core is not None
        return self.core.arbiter.open_flags()

    async def wait_change(self: Service, version: int) -> int:
        return await self.notifier.wait_change(version)

    def game_record(self: Service) -> GameRecord:
        # everything, comments included: the web server filters it per view
        assert self.core is not None
        return self.core.record()

    def _action(self: Service, data: dict[str, Any]) -> None:
        if self.core is None:
            raise ActionError("the service is still starting")
        try:
            self._step(data)
        except ActionRefused as exc:
            raise ActionError(str(exc)) from None
        log.info("arbiter action: %s", data)

    def pause(self: Service) -> None:
        if self.core is not None and self.core.paused:
            raise ActionError("the clock is already paused")
        self._action({"action": "pause"})

    def resume(self: Service) -> None:
        if self.core is not None and not self.core.paused:
            raise ActionError("the clock is not paused")
        self._action({"action": "resume"})

    def adjust_time(self: Service, color: Color, seconds: float) -> None:
        self._action({"action": "adjust", "color": Color(color).value, "seconds": seconds})

    def accept_position(self: Service) -> None:
        self._action({"action": "accept"})

    def correct_position(self: Service, board: str) -> None:
        self._action({"action": "correct", "board": board})
