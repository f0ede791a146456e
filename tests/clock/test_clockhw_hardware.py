"""ClockHardware on gpiozero's mock pins: buttons in, debounced and stamped at their
first edge, a frame drawn only when it changed, the buzzer, closing, and presses from
another thread; the displays' bus read back by ``clockhw_support``'s decoder.

Each display's own protocol is tested in its file (``test_clockhw_tm1637.py``,
``test_clockhw_ht16k33.py``), the registry that chooses one in ``test_clockhw_displays.py``.
"""

from __future__ import annotations

import threading
import time

import pytest
from clockhw_support import BUS_LOG, PINS, Rig, decode_bus, gpio

from controller.arbiter import Arbiter, ArbiterConfig, Mode, arbitrate
from controller.clock import GameClock, TimeControl
from controller.clockhw.hardware import ClockHardware
from controller.observation import Observation
from controller.position import Position
from controller.squares import Color


def test_clockhw_button_press_reports_player_and_time(rig: Rig) -> None:
    rig.press(PINS.white_button, 0.5)
    rig.press(PINS.black_button, 3.25)
    assert rig.presses == [(Color.WHITE, 0.5), (Color.BLACK, 3.25)]
    rig.press(PINS.pause_button, 4.0)
    assert rig.pauses == [4.0]
    assert rig.presses == [(Color.WHITE, 0.5), (Color.BLACK, 3.25)]


def test_clockhw_contact_bounce_counts_once(rig: Rig) -> None:
    b = rig.pin(PINS.black_button)
    for t, low in [(1.0, True), (1.002, False), (1.004, True), (1.006, False), (1.008, True)]:
        rig.now = t
        b.drive_low() if low else b.drive_high()
    # release with its own bounce, then a genuine second press well after
    for t, low in [(1.2, False), (1.203, True), (1.206, False)]:
        rig.now = t
        b.drive_low() if low else b.drive_high()
    rig.press(PINS.black_button, 1.5)
    assert rig.presses == [(Color.BLACK, 1.0), (Color.BLACK, 1.5)]


def test_clockhw_fast_presses_of_both_players_are_all_kept(rig: Rig) -> None:
    # debounce is per button: a press right after the opponent's is not swallowed
    rig.press(PINS.white_button, 1.0, hold=0.05)
    rig.press(PINS.black_button, 1.06, hold=0.05)
    rig.press(PINS.white_button, 1.12, hold=0.05)
    assert [c for c, _ in rig.presses] == [Color.WHITE, Color.BLACK, Color.WHITE]


def test_clockhw_unchanged_frame_is_not_rewritten(rig: Rig) -> None:
    rig.hw.show(600.0, 600.0, None, paused=False)
    before = len(BUS_LOG)
    rig.hw.show(599.6, 599.9, None, paused=False)  # both still read 10:00
    assert len(BUS_LOG) == before
    rig.hw.show(599.0, 599.9, None, paused=False)
    assert len(BUS_LOG) > before
    assert rig.display(Color.BLACK)[0] == " 959"


def test_clockhw_press_moves_the_real_clock(rig: Rig) -> None:
    clock = GameClock(TimeControl(main=300.0))
    rig.hw._on_press = clock.press  # as the service wires it
    rig.press(PINS.white_button, 1.0)  # rule 4: white's press starts black's time
    assert clock.running is Color.BLACK
    rig.press(PINS.black_button, 13.5)
    assert clock.running is Color.WHITE
    now = 20.0
    rig.hw.show(
        clock.remaining(Color.BLACK, now), clock.remaining(Color.WHITE, now), clock.running, False
    )
    assert rig.display(Color.BLACK)[0] == " 448"  # 300 - 12.5 = 287.5 -> 4:48
    assert rig.display(Color.WHITE)[0] == " 454"  # 300 - 6.5 = 293.5 -> 4:54


def test_clockhw_buzzer_sounds_for_the_given_time(rig: Rig) -> None:
    buzzer = rig.pin(PINS.buzzer)
    rig.hw.buzz(0.05)
    assert buzzer.state
    deadline = time.monotonic() + 2.0
    while buzzer.state and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not buzzer.state


def test_clockhw_close_blanks_displays_and_frees_pins(rig: Rig) -> None:
    rig.hw.show(60.0, 60.0, None, paused=False)
    rig.hw.close()
    last = decode_bus(BUS_LOG, gpio(PINS.black_clk), gpio(PINS.black_dio))[-1]
    assert last == [0x80]  # display off
    again = ClockHardware(PINS, lambda c, t: None, lambda t: None, pin_factory=rig.factory)
    again.close()


def test_clockhw_callbacks_may_come_from_another_thread(rig: Rig) -> None:
    # on a Pi gpiozero calls back on its own thread; show() and presses must not interfere
    stop = threading.Event()

    def redraw() -> None:
        k = 0.0
        while not stop.is_set():
            rig.hw.show(100 - k, 100, Color.BLACK, False)
            k += 0.1

    th = threading.Thread(target=redraw)
    th.start()
    try:
        for i in range(20):
            rig.press(PINS.white_button if i % 2 else PINS.black_button, 1.0 + i)
    finally:
        stop.set()
        th.join()
    assert len(rig.presses) == 20
    decode_bus(BUS_LOG, gpio(PINS.black_clk), gpio(PINS.black_dio))  # stream still well-formed


def test_clockhw_press_moves_clock_and_arbiter_exactly_as_a_logged_press() -> None:
    """Buttons pressed on mock pins give the same events as the same presses in a log."""
    r = Rig()
    try:
        clock = GameClock(TimeControl(main=600.0))
        arbiter = Arbiter(ArbiterConfig(mode=Mode.TOURNAMENT, clock=True))
        events = []
        fed: list[Observation] = []

        def feed(obs: Observation) -> None:
            fed.append(obs)
            events.extend(arbiter.feed(obs))

        def on_press(color: Color, t: float) -> None:  # what the service does
            clock.press(color, t)
            feed(Observation(t, press=color))

        r.hw._on_press = on_press
        start = Position.start()
        after_f5 = start.play("f5")
        after_d6 = after_f5.play("d6")
        feed(Observation(0.0, board=start.board_string()))
        feed(Observation(0.1, board=start.board_string()))
        r.press(PINS.white_button, 0.5)
        feed(Observation(2.0, board=after_f5.board_string()))
        feed(Observation(2.1, board=after_f5.board_string()))
        r.press(PINS.black_button, 2.6)
        r.now = 2.76
        r.pin(PINS.black_button).drive_low()  # bounce on release of the press ...
        r.pin(PINS.black_button).drive_high()
        feed(Observation(5.0, board=after_d6.board_string()))
        feed(Observation(5.1, board=after_d6.board_string()))
        r.press(PINS.white_button, 5.4)

        assert [e.to_dict() for e in events] == [
            e.to_dict() for e in arbitrate(fed, ArbiterConfig(mode=Mode.TOURNAMENT, clock=True))
        ]
        assert [(e["player"], e["square"]) for e in events] == [("black", "f5"), ("white", "d6")]
        assert [o.press for o in fed if o.press] == [Color.WHITE, Color.BLACK, Color.WHITE]
        assert clock.running is Color.BLACK
        assert clock.remaining(Color.BLACK, 5.4) == pytest.approx(600 - 2.1)
        assert clock.remaining(Color.WHITE, 5.4) == pytest.approx(600 - 2.8)
    finally:
        r.hw.close()
