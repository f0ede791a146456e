"""Inputs from several devices taken in the order they happened (``order``), and a press
that waits for the camera's frames, or goes alone once the camera is gone."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from controller.browser.order import InputOrder


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
