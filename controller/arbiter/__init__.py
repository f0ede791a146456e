"""The arbiter: judges every physical move as the tournament rules do (see ``core``)."""

from controller.arbiter.config import ArbiterConfig, Mode
from controller.arbiter.core import Arbiter, arbitrate
from controller.arbiter.views import Overlay

__all__ = [
    "Arbiter",
    "ArbiterConfig",
    "Mode",
    "Overlay",
    "arbitrate",
]
