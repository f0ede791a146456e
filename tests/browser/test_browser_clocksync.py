"""One time base: the clock sync's estimate, and inputs taken in the order they happened."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from controller.browser.clocksync import ClockSync
from controller.browser.order import InputOrder


@given(st.floats(-1e4, 1e4), st.lists(st.tuples(st.floats(0.001, 0.3), st.floats(0.001, 0.3)),
                                      min_size=3, max_size=30))
def test_the_estimate_is_within_its_uncertainty_of_the_true_offset(offset, delays):
    sync = ClockSync()
    t = 100.0
    for up, down in delays:
        device_ms = (t + up + offset) * 1000.0  # the device's clock when the ping came
        sync.add(t, t + up + down, device_ms)
        t += 1.0
    est = sync.estimate()
    assert est is not None
    assert abs(est.offset - offset) <= est.uncertainty + 1e-6
    assert abs(sync.to_service((50.0 + offset) * 1000.0) - 50.0) <= est.uncertainty + 1e-6


def test_the_sync_waits_for_enough_samples_and_drops_absurd_round_trips():
    sync = ClockSync()
    assert not sync.add(10.0, 9.0, 1.0)  # answered before it was sent
    assert not sync.add(10.0, 20.0, 1.0)  # a stall, no sample
    sync.add(1.0, 1.1, 5000.0)
    sync.add(2.0, 2.1, 6000.0)
    assert sync.estimate() is None and sync.to_service(1.0) is None
    sync.add(3.0, 3.1, 7000.0)
    assert sync.estimate() is not None


@given(st.lists(st.tuples(st.floats(0, 20), st.floats(0.0, 0.4), st.booleans()),
                min_size=1, max_size=40), st.integers(0, 2**16))
def test_inputs_delayed_less_than_the_latency_are_released_in_their_own_order(inputs, seed):
    """Each input reaches the order up to 0.4 s after its stamp; released as time goes
    by, they come out sorted by stamp, and none is lost."""
    order = InputOrder(latency=0.4, hold_max=10.0)
    arrivals = sorted((at + delay, at, press) for at, delay, press in inputs)
    out: list[float] = []
    now = 0.0
    rng = random.Random(seed)
    for arrive, at, press in arrivals:
        while now < arrive:
            out += [a for a, _ in order.release(now)]
            now += rng.uniform(0.01, 0.2)
        order.camera_read(arrive, arrive)  # the camera has read up to now
        order.push(at, "x", arrive, press=press)
    for _ in range(200):
        now += 0.1
        order.camera_read(now, now)
        out += [a for a, _ in order.release(now)]
    assert out == sorted(at for at, _, _ in inputs)
    assert order.late == 0


def test_a_press_waits_for_the_camera_while_it_is_gone_then_goes_alone():
    order = InputOrder(latency=0.5, hold_max=5.0)
    order.camera_read(10.0, 10.0)
    order.push(11.0, "press", 11.1, press=True)
    assert order.release(12.0) == []  # frames of 10-11 s may still come
    assert order.pending_at(12.0) <= 10.0  # and the arbiter waits for them
    order.camera_read(11.2, 12.1)
    assert order.release(12.2) == [(11.0, "press")]
    order.camera_read(19.5, 19.6)  # the last frame read; then the camera is gone
    order.push(20.0, "press", 20.0, press=True)
    assert order.release(21.0) == []
    assert order.release(24.0) == []
    assert order.release(24.7) == [(20.0, "press")]  # the camera gone too long: it goes
