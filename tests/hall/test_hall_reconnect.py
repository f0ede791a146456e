"""Settling after a reconnection is timed on the board's clock, not on when the host reads.

A busy host can read the first frames after a reconnection late and all at once; the
boards the board sent while its sensors were still unsure must not pass for settled ones.
"""

from __future__ import annotations

import pytest

from controller.hall.link import LinkState, LinkStatus
from controller.hall.reconnect import SETTLE_TIME, Reconnection
from controller.hall.reports import Reports
from controller.observation import Observation
from controller.position import Position

START = Position.start().board_string()
UNSURE = START[:10] + "?" + START[11:]
SETTLE_MS = round(SETTLE_TIME * 1000)


def reconnected() -> tuple[Reconnection, Reports]:
    reports = Reports(clock=lambda: 0.0)
    rec = Reconnection(reports, official_position=Position.start)
    rec.lost(now=1.0)
    rec.connected()
    return rec, reports


def drain(reports: Reports) -> list[Observation | LinkStatus]:
    items = []
    while (item := reports.get(timeout=0)) is not None:
        items.append(item)
    return items


def test_unsure_boards_read_late_are_still_held_back():
    rec, reports = reconnected()
    # sent 10 ms apart right after the reconnection, read together two seconds later
    rec.on_board(UNSURE, t_ms=5000, now=3.0)
    rec.on_board(UNSURE, t_ms=5010, now=3.0)
    assert drain(reports) == []
    rec.on_board(START, t_ms=5020, now=3.0)
    items = drain(reports)
    assert [i.state for i in items if isinstance(i, LinkStatus)] == [LinkState.RECONNECTED]
    assert "unchanged" in items[0].message
    assert [i.board for i in items if isinstance(i, Observation)] == [START]


@pytest.mark.parametrize("first_ms", [5000, 0xFFFFFFFF - 100])  # also across the u32 wrap
def test_a_square_still_unknown_once_settled_is_flagged(first_ms: int):
    rec, reports = reconnected()
    rec.on_board(UNSURE, t_ms=first_ms, now=3.0)
    # however late the host is, only the board's clock says the sensors had their time
    rec.check_pending(t_ms=(first_ms + SETTLE_MS - 1) & 0xFFFFFFFF, now=60.0)
    assert drain(reports) == []
    rec.check_pending(t_ms=(first_ms + SETTLE_MS) & 0xFFFFFFFF, now=60.0)
    items = drain(reports)
    assert isinstance(items[0], LinkStatus)
    assert items[0].state is LinkState.POSITION_UNCERTAIN
    assert (items[0].before, items[0].after) == (START, UNSURE)
    assert [i.board for i in items if isinstance(i, Observation)] == [UNSURE]
