"""One writer per event file: a second writer is refused naming the first, a command's
short write is waited for, a hub's is not, and a released lock is free at once."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from controller.tournament_store.writer import (
    HUB,
    Holder,
    WriterBusy,
    acquire,
    holding,
    lock_path,
    read_holder,
)


def test_a_second_writer_is_refused_naming_the_first(tmp_path: Path) -> None:
    event = tmp_path / "open.sqlite"
    first = acquire(event, HUB)
    first.announce("https://hub.local:8443")
    assert read_holder(event) == Holder(HUB, os.getpid(), "https://hub.local:8443")
    started = time.monotonic()
    with pytest.raises(WriterBusy, match=r"kaeshi hub \(process \d+ at https://hub.local:8443\) "
                                         "is writing this event") as refused:
        acquire(event, "kaeshi tournament", wait=5.0)
    assert time.monotonic() - started < 2.0  # a hub holds on: nobody waits for it
    assert refused.value.holder is not None and refused.value.holder.program == HUB
    first.release()
    assert read_holder(event) is None  # the lock file says nobody once let go
    with holding(event, "kaeshi tournament") as w:
        assert read_holder(event) == Holder("kaeshi tournament", os.getpid(), None)
        assert w.event == event
    assert lock_path(event) == tmp_path / "open.sqlite.writer"


def test_a_commands_short_write_is_waited_for(tmp_path: Path) -> None:
    event = tmp_path / "open.sqlite"
    first = acquire(event, "kaeshi tournament")
    threading.Timer(0.2, first.release).start()
    with holding(event, "kaeshi tournament", wait=5.0):
        assert read_holder(event) is not None


def test_a_lock_file_that_names_nobody_reads_as_nobody(tmp_path: Path) -> None:
    event = tmp_path / "open.sqlite"
    for text in ("", "not json", "[1]", '{"program": "x"}', '{"pid": "12"}'):
        lock_path(event).write_text(text, encoding="utf-8")
        assert read_holder(event) is None, text
    lock_path(event).write_text('{"program": "kaeshi hub", "pid": 7, "url": 3}', encoding="utf-8")
    assert read_holder(event) == Holder(HUB, 7, None)
