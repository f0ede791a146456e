"""Status of the link to the sensor board, as the service and the arbiter see it.

The driver never stops on a pulled cable or a restarted board: it says what
happened with a :class:`LinkStatus` in the same stream as the observations, so the
service can show it and the arbiter can treat inferred moves with care.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class LinkState(StrEnum):
    CONNECTED = "connected"
    """First handshake done; identity known."""
    DISCONNECTED = "disconnected"
    """The link went away (cable pulled, board silent); the driver keeps retrying."""
    RECONNECTED = "reconnected"
    """The link is back and the board is as it was."""
    BOARD_RESTARTED = "board_restarted"
    """The firmware restarted (watchdog or power) without the port going away."""
    MOVES_INFERRED = "moves_inferred"
    """The board changed while out of reach; exactly one legal move sequence explains it
    and its boards follow as observations."""
    POSITION_UNCERTAIN = "position_uncertain"
    """The board changed while out of reach and no unique legal sequence explains it;
    the new board follows as an observation and an arbiter should look."""
    PROTOCOL_MISMATCH = "protocol_mismatch"
    """The firmware speaks another protocol version; the driver stops."""
    CLOSED = "closed"
    """The driver was closed; nothing more follows."""


@dataclass(frozen=True, slots=True)
class LinkStatus:
    """One link event. ``moves`` holds (player, square or None for a pass)."""

    t: float
    state: LinkState
    message: str
    before: str | None = None
    after: str | None = None
    moves: tuple[tuple[str, str | None], ...] = field(default=())

    @property
    def up(self) -> bool:
        """Whether the board is reachable after this event."""
        return self.state not in _DOWN

    def __str__(self) -> str:
        return self.message

    def to_dict(self) -> dict[str, object]:
        d: dict[str, object] = {"t": round(self.t, 6), "link": self.state.value,
                                "message": self.message}
        if self.before is not None:
            d["before"] = self.before
        if self.after is not None:
            d["after"] = self.after
        if self.moves:
            d["moves"] = [{"player": p, "square": s} for p, s in self.moves]
        return d


_DOWN = frozenset({LinkState.DISCONNECTED, LinkState.PROTOCOL_MISMATCH, LinkState.CLOSED})


@dataclass
class LinkStats:
    """Health figures of the link since the driver was opened."""

    frames: int = 0
    crc_errors: int = 0
    skipped_bytes: int = 0
    dropped_frames: int = 0
    bad_payloads: int = 0
    retries: int = 0
    disconnects: int = 0
    restarts: int = 0
