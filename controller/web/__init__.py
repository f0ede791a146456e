"""The live web page: board, clocks, moves, record download, and the arbiter's view.

``WebServer`` is imported on first use, so that the pure parts (what each audience may
see, :mod:`controller.web.disclosure`) load without the web stack.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from controller.web.disclosure import Disclosure, disclosure
from controller.web.facade import (
    ActionError,
    ChangeNotifier,
    ServiceFacade,
    View,
    arbiter_safe,
    for_view,
    player_safe,
    record_for_view,
)

if TYPE_CHECKING:
    from controller.web.server import WebServer

__all__ = [
    "ActionError",
    "ChangeNotifier",
    "Disclosure",
    "ServiceFacade",
    "View",
    "WebServer",
    "arbiter_safe",
    "disclosure",
    "for_view",
    "player_safe",
    "record_for_view",
]


def __getattr__(name: str) -> Any:
    if name == "WebServer":
        from controller.web.server import WebServer

        return WebServer
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
