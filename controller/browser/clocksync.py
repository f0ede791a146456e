"""One time base: a device's clock mapped onto the service's monotonic clock.

The service pings each page; the page answers with its own clock at the moment the
ping came. A ping sent at service time ``s0`` and answered at ``s1``, with the device
reading ``d``, says the device's clock is ahead by ``d - (s0 + s1) / 2``, give or take
half the round trip (NTP's estimate, with the device's turn-around taken as nil). The
estimate kept is that of the sample with the shortest round trip among the recent
ones: a delayed packet widens the round trip and never moves the estimate by more
than half of it. Pings go on through the game, so a drifting device clock is
followed. Pure: the caller gives every time.

Device times are milliseconds; service times are seconds.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

#: Samples kept: the best round trip among these is the estimate.
WINDOW = 16
#: Samples before the mapping is trusted at all (frames and presses wait for it).
MIN_SAMPLES = 3
#: A round trip longer than this is no sample (a ping answered after a stall).
MAX_RTT = 2.0


@dataclass(frozen=True, slots=True)
class SyncEstimate:
    """The device's clock minus the service's (seconds), and how sure that is."""

    offset: float
    rtt: float
    samples: int

    @property
    def uncertainty(self) -> float:
        """Half the round trip: the most the true offset can differ from ``offset``."""
        return self.rtt / 2


class ClockSync:
    """The round-trip samples of one device and the mapping they give."""

    def __init__(self, window: int = WINDOW) -> None:
        self.samples: deque[tuple[float, float]] = deque(maxlen=window)  # (rtt, offset)
        self.count = 0

    def add(self, sent: float, answered: float, device_ms: float) -> bool:
        """A ping sent at service time ``sent`` and answered at ``answered``; False if
        the sample is no use (a round trip backwards or too long)."""
        rtt = answered - sent
        if not 0.0 <= rtt <= MAX_RTT:
            return False
        self.samples.append((rtt, device_ms / 1000.0 - (sent + answered) / 2))
        self.count += 1
        return True

    def estimate(self) -> SyncEstimate | None:
        if len(self.samples) < MIN_SAMPLES:
            return None
        rtt, offset = min(self.samples)
        return SyncEstimate(offset, rtt, self.count)

    def to_service(self, device_ms: float) -> float | None:
        """The service time of a device instant (None while the sync is not yet known)."""
        est = self.estimate()
        return None if est is None else device_ms / 1000.0 - est.offset
