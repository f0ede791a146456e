"""The requests that change a table's game from its page, each body read once here.

* ``POST /api/arbiter/<action>`` with a JSON body, the arbiter's only (cookie or
  bearer token): ``pause``, ``resume``, ``adjust_time`` ``{"color": "black",
  "seconds": -30}``, ``accept_position``, ``correct_position`` ``{"board": "<one - X O
  per square>"}``, and a late player's steps (``late`` ``{"color": "white"}``,
  ``late_arrived``, ``late_play_on``, ``late_forfeit``);
* ``POST /api/dispute`` ``{"color": "black"}``: a player disputes the result (rule 15).

A body that does not say what the action needs is refused with a 400 and the reason,
before the facade is asked; what the facade refuses (``ActionError``, a board string
of the wrong size) is a 400 with its own words. The server's refusal handler turns
both into a sentence (:mod:`controller.web.refusal`) or JSON for a script.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from controller.boardsize import size_of_board_string
from controller.errors import KaeshiError
from controller.squares import Color, validate_board_string
from controller.web.facade import ServiceFacade
from controller.web.guard import read_json

log = logging.getLogger("kaeshi.web")

#: The longest time an arbiter may add or take away at once.
MAX_ADJUST_SECONDS = 24 * 3600


def action_routes(facade: ServiceFacade, is_arbiter: Callable[[Request], bool],
                  answer: Callable[[dict[str, Any]], Response]) -> list[Route]:
    """The routes; ``is_arbiter`` says whether a request comes from the arbiter (and may
    raise for a client that tried too many wrong tokens), ``answer`` writes the JSON."""

    async def action(request: Request) -> Response:
        name = request.path_params["action"]
        if not is_arbiter(request):
            raise HTTPException(403, "arbiter actions need the arbiter token")
        body = await read_json(request)
        f = facade
        handlers: dict[str, Callable[[], object]] = {
            "pause": f.pause,
            "resume": f.resume,
            "accept_position": f.accept_position,
            "adjust_time": lambda: f.adjust_time(*adjust_args(body)),
            "correct_position": lambda: f.correct_position(board_arg(body)),
            "late": lambda: f.late_step("late", color_arg(body, "late")),
            "late_arrived": lambda: f.late_step("late_arrived"),
            "late_play_on": lambda: f.late_step("late_play_on"),
            "late_forfeit": lambda: f.late_step("late_forfeit"),
        }
        if name not in handlers:
            raise HTTPException(404, f"no such arbiter action: {name[:40]}")
        await _done(handlers[name])
        log.info("arbiter action: %s %s", name, body or "")
        return answer({"ok": True, "action": name})

    async def dispute(request: Request) -> Response:
        """No token: a dispute can only send the result to the arbiter, never settle
        one; a confirmation needs the player's own clock button."""
        body = await read_json(request)
        color = color_arg(body, "dispute")
        await _done(lambda: facade.dispute_result(color))
        log.info("%s disputes the result", color.value)
        return answer({"ok": True, "dispute": color.value})

    return [Route("/api/arbiter/{action}", action, methods=["POST"]),
            Route("/api/dispute", dispute, methods=["POST"])]


async def _done(call: Callable[[], object]) -> None:
    """Run the facade's action (awaited if it is a coroutine); its refusal is a 400."""
    try:
        result = call()
        if inspect.isawaitable(result):
            await result
    except (ValueError, KaeshiError) as exc:  # ActionError, BoardStringError ...
        raise HTTPException(400, str(exc)) from None


def color_arg(body: dict[str, Any], action: str) -> Color:
    try:
        return Color.parse(str(body.get("color", "")))
    except ValueError as exc:
        raise HTTPException(400, f"{action}: {exc}") from None


def adjust_args(body: dict[str, Any]) -> tuple[Color, float]:
    color = color_arg(body, "adjust_time")
    seconds = body.get("seconds")
    if isinstance(seconds, bool) or not isinstance(seconds, int | float) or seconds != seconds:
        raise HTTPException(
            400, "adjust_time: 'seconds' must be a number (negative takes time away)"
        )
    if abs(seconds) > MAX_ADJUST_SECONDS:
        raise HTTPException(400, "adjust_time: 'seconds' is out of range")
    return color, float(seconds)


def board_arg(body: dict[str, Any]) -> str:
    board = body.get("board")
    if not isinstance(board, str):
        raise HTTPException(
            400, "correct_position: 'board' must be a string of - X O, one per square"
        )
    try:
        # of the table's board, whichever size it plays (the game refuses another size)
        return validate_board_string(board, size_of_board_string(board))
    except ValueError as exc:
        raise HTTPException(400, f"correct_position: {exc}") from None
