"""The change counter the pages' streams wait on: bumped from any thread, awaited on
the loop, and an end to every wait when the server closes."""

from __future__ import annotations

import asyncio
import threading
import time

from controller.hub.web.change_count import Changes


def test_before_a_loop_is_attached_each_change_still_counts() -> None:
    changes = Changes()
    for _ in range(3):
        changes.notify()
    assert changes.version == 3


def test_a_change_from_another_thread_wakes_a_stream_waiting_on_the_loop() -> None:
    async def main() -> tuple[int, float]:
        changes = Changes()
        changes.attach(asyncio.get_running_loop())
        threading.Timer(0.05, changes.notify).start()
        started = time.monotonic()
        version = await changes.wait(0, timeout=5.0)
        return version, time.monotonic() - started

    version, waited = asyncio.run(main())
    assert version == 1
    assert waited < 2.0


def test_a_wait_with_nothing_changed_ends_at_its_timeout_with_the_same_version() -> None:
    async def main() -> int:
        changes = Changes()
        changes.attach(asyncio.get_running_loop())
        return await changes.wait(0, timeout=0.05)

    assert asyncio.run(main()) == 0


def test_closing_ends_a_sleep_long_before_its_time() -> None:
    async def main() -> tuple[bool, float]:
        changes = Changes()
        changes.attach(asyncio.get_running_loop())
        asyncio.get_running_loop().call_later(0.05, changes.close)
        started = time.monotonic()
        await changes.sleep(30.0)
        return changes.closed, time.monotonic() - started

    closed, slept = asyncio.run(main())
    assert closed
    assert slept < 5.0
