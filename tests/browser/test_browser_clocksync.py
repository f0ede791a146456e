"""One time base (``clocksync``): the estimate of a device's clock, within its uncertainty,
and the samples it refuses."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from controller.browser.clocksync import ClockSync


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
