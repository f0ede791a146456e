"""The live web page: board, clocks, moves, record download, and the arbiter's view."""

from controller.web.facade import (
    ActionError,
    ChangeNotifier,
    ServiceFacade,
    View,
    arbiter_safe,
    for_view,
    player_safe,
)
from controller.web.server import WebServer

__all__ = [
    "ActionError",
    "ChangeNotifier",
    "ServiceFacade",
    "View",
    "WebServer",
    "arbiter_safe",
    "for_view",
    "player_safe",
]
