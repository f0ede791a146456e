"""The GPIO clock on gpiozero's mock pins: buttons in, TM1637 bit streams out.

The displays' pin changes are recorded in order and decoded here, independently of
the driver, back into bus transactions, bytes and digits.
"""

from __future__ import annotations

import threading
import time

import pytest
from gpiozero.pins.mock import MockFactory, MockPin

from controller.arbiter import Arbiter, ArbiterConfig, Mode, arbitrate
from controller.clock import GameClock, TimeControl
from controller.clockhw import ClockPins
from controller.clockhw.gpio import GpioError
from controller.clockhw.hardware import ClockHardware
from controller.observation import Observation
from controller.position import Position
from controller.squares import Color

PINS = ClockPins()
DIGITS = {v: k for k, v in {
    "0": 0x3F, "1": 0x06, "2": 0x5B, "3": 0x4F, "4": 0x66, "5": 0x6D,
    "6": 0x7D, "7": 0x07, "8": 0x7F, "9": 0x6F, "-": 0x40, " ": 0x00,
}.items()}  # fmt: skip

BUS_LOG: list[tuple[str, bool]] = []


class RecordingPin(MockPin):
    """A mock pin that appends every level change, in order, to one shared log."""

    def _change_state(self, value: bool) -> bool:
        changed = super()._change_state(value)
        if changed:
            BUS_LOG.append((self.info.name, bool(value)))
        return changed


def gpio(n: int | str) -> str:
    return f"GPIO{n}"


def decode_bus(log: list[tuple[str, bool]], clk: str, dio: str) -> list[list[int]]:
    """Transactions (start .. stop) on one display's two lines, as lists of bytes.

    A TM1637 samples DIO on each rising CLK edge; DIO may only change while CLK is low,
    except for start (DIO falls, CLK high) and stop (DIO rises, CLK high). Every ninth
    clock is the acknowledge slot; the stop takes one more clock with DIO low. Edges on
    an idle bus (power-up) carry nothing.
    """
    level = {clk: False, dio: False}  # mock pins start low, then the bus idles high
    transactions: list[list[int]] = []
    bits: list[int] | None = None
    for name, value in log:
        if name not in level:
            continue
        if name == dio and level[clk]:
            if not value:
                assert bits is None, "start condition inside a transaction"
                bits = []
            else:
                if bits is None:  # DIO rising on an idle bus (power-up): no meaning
                    level[name] = value
                    continue
                # the stop raises CLK with DIO low before DIO rises: one clock past the bytes
                assert len(bits) % 9 == 1, f"stop after {len(bits)} clocks, not whole bytes"
                assert bits[-1] == 0, "DIO must be low when CLK rises for the stop"
                bits = bits[:-1]
                data = []
                for k in range(0, len(bits), 9):
                    assert bits[k + 8] == 0, "ACK slot: DIO held low, never fighting the chip"
                    data.append(sum(b << i for i, b in enumerate(bits[k : k + 8])))
                transactions.append(data)
                bits = None
        elif name == clk and value:
            if bits is not None:  # the chip ignores clocks outside a transaction
                bits.append(int(level[dio]))
        level[name] = value
    assert bits is None, "transaction never stopped"
    return transactions


def decode_display(transactions: list[list[int]]) -> tuple[str, bool, int]:
    """The text, colon and brightness of the last complete frame written."""
    assert len(transactions) >= 3
    data_cmd, address, control = transactions[-3:]
    assert data_cmd == [0x40], "data command: write with auto-increment"
    assert address[0] == 0xC0 and len(address) == 5, "address 0 then four digits"
    assert control[0] & 0xF8 == 0x88, "display control: on"
    text = "".join(DIGITS[b & 0x7F] for b in address[1:])
    colon = bool(address[2] & 0x80)
    assert not any(b & 0x80 for i, b in enumerate(address[1:]) if i != 1)
    return text, colon, control[0] & 0x07


class Rig:
    def __init__(self) -> None:
        BUS_LOG.clear()
        self.now = 0.0
        self.factory = MockFactory(pin_class=RecordingPin)
        self.presses: list[tuple[Color, float]] = []
        self.pauses: list[float] = []
        self.hw = ClockHardware(
            PINS,
            on_press=lambda c, t: self.presses.append((c, t)),
            on_pause=self.pauses.append,
            pin_factory=self.factory,
            time_source=lambda: self.now,
            half_period=0,
        )

    def pin(self, n: int | str) -> MockPin:
        return self.factory.pin(n)

    def press(self, n: int | str, at: float, hold: float = 0.15) -> None:
        self.now = at
        self.pin(n).drive_low()
        self.now = at + hold
        self.pin(n).drive_high()

    def display(self, color: Color) -> tuple[str, bool, int]:
        clk, dio = (
            (PINS.black_clk, PINS.black_dio)
            if color is Color.BLACK
            else (PINS.white_clk, PINS.white_dio)
        )
        return decode_display(decode_bus(BUS_LOG, gpio(clk), gpio(dio)))


@pytest.fixture
def rig():
    r = Rig()
    yield r
    r.hw.close()
    r.factory.reset()


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


def test_clockhw_displays_show_times_digit_by_digit(rig: Rig) -> None:
    rig.hw.show(1197.5, 1200.0, Color.WHITE, paused=False)
    assert rig.display(Color.BLACK) == ("1958", True, PINS.brightness)
    assert rig.display(Color.WHITE) == ("2000", True, PINS.brightness)
    rig.hw.show(1197.5, 1199.2, Color.WHITE, paused=False)  # running colon off
    assert rig.display(Color.WHITE) == ("2000", False, PINS.brightness)
    rig.hw.show(9.4, 75.0, None, paused=True)
    assert rig.display(Color.BLACK) == (" 94 ", True, PINS.dim_brightness)
    assert rig.display(Color.WHITE) == (" 115", True, PINS.dim_brightness)


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


def test_clockhw_pin_in_use_is_named(rig: Rig) -> None:
    with pytest.raises(GpioError, match="GPIO 5 for the black display CLK"):
        ClockHardware(PINS, lambda c, t: None, lambda t: None, pin_factory=rig.factory)
    # the failed attempt released what it had claimed: the first clock still works
    rig.press(PINS.black_button, 2.0)
    assert rig.presses == [(Color.BLACK, 2.0)]


def test_clockhw_pins_reject_double_use() -> None:
    with pytest.raises(ValueError, match="GPIO 17 is assigned twice"):
        ClockPins(white_button=17)


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


# ------------------------------------------------------------ displays by name
def test_clockhw_displays_come_from_the_registry_the_configuration_names() -> None:
    from controller.clockhw.displays import CLOCK_DISPLAYS
    from controller.service.config import BY_NAME, parse_config

    option = BY_NAME["clock.display"]
    assert option.choices == tuple(CLOCK_DISPLAYS) and option.default == "tm1637"
    assert all(f"`{name}` ({kind.help})" in option.doc for name, kind in CLOCK_DISPLAYS.items())
    assert parse_config('[clock]\ndisplay = "none"\n')["clock.display"] == "none"
    with pytest.raises(ValueError, match="unknown clock display 'lcd'"):
        ClockHardware(PINS, lambda c, t: None, lambda t: None, display="lcd")


def test_clockhw_without_displays_keeps_the_buttons_and_leaves_the_display_lines_free(
        rig: Rig) -> None:
    rig.hw.close()
    BUS_LOG.clear()
    presses: list[tuple[Color, float]] = []
    hw = ClockHardware(PINS, lambda c, t: presses.append((c, t)), lambda t: None,
                       pin_factory=rig.factory, time_source=lambda: rig.now, display="none")
    try:
        hw.show(60.0, 50.0, Color.BLACK, paused=False)
        displays = {gpio(p) for p in (PINS.black_clk, PINS.black_dio, PINS.white_clk,
                                      PINS.white_dio)}
        assert not [name for name, _ in BUS_LOG if name in displays]  # nothing drawn
        rig.press(PINS.white_button, 3.0)
        assert presses == [(Color.WHITE, 3.0)]
        # the display lines were never claimed: another device may take them
        rig.factory.pin(PINS.black_clk)  # exists and is free
        from gpiozero import DigitalOutputDevice
        DigitalOutputDevice(PINS.black_clk, pin_factory=rig.factory).close()
    finally:
        hw.close()


# ------------------------------------------------------------ HT16K33 backpack
def decode_i2c(log: list[tuple[str, bool]], scl: str, sda: str) -> list[list[int]]:
    """Transactions on one display's two lines, as I2C defines them: start (SDA falls,
    SCL high), bits most significant first sampled on each rising SCL, a ninth clock
    per byte for the acknowledge, stop (SCL rises with SDA low, then SDA rises). SDA
    may change only while SCL is low, otherwise."""
    level = {scl: False, sda: False}
    transactions: list[list[int]] = []
    bits: list[int] | None = None
    for name, value in log:
        if name not in level:
            continue
        if name == sda and level[scl]:
            if not value:
                assert bits is None, "start condition inside a transaction"
                bits = []
            elif bits is not None:
                # the stop raises SCL with SDA low before SDA rises: one clock past the bytes
                assert len(bits) % 9 == 1, f"stop after {len(bits)} clocks, not whole bytes"
                assert bits.pop() == 0, "SDA must be low when SCL rises for the stop"
                data = []
                for k in range(0, len(bits), 9):
                    assert bits[k + 8] == 0, "ACK slot: SDA held low, never fighting the chip"
                    data.append(sum(b << (7 - i) for i, b in enumerate(bits[k : k + 8])))
                transactions.append(data)
                bits = None
        elif name == scl and value and bits is not None:
            bits.append(int(level[sda]))
        level[name] = value
    assert bits is None, "transaction never stopped"
    return transactions


def decode_backpack(transactions: list[list[int]]) -> tuple[str, bool, int]:
    """The text, colon and dimming of the last frame written to the backpack at 0x70."""
    assert all(t[0] == 0x70 << 1 for t in transactions), "every write goes to 0x70"
    oscillator, ram, dimming, display = (t[1:] for t in transactions[-4:])
    assert oscillator == [0x21] and display == [0x81]
    assert ram[0] == 0x00 and len(ram) == 11, "RAM from address 0: digits, colon between"
    memory = ram[1:]
    text = "".join(DIGITS[memory[a]] for a in (0, 2, 6, 8))
    assert memory[4] in (0, 2) and not any(memory[a] for a in (1, 3, 5, 7, 9))
    assert dimming[0] & 0xF0 == 0xE0
    return text, memory[4] == 2, dimming[0] & 0x0F


def test_clockhw_ht16k33_backpacks_show_times_on_their_own_lines() -> None:
    BUS_LOG.clear()
    factory = MockFactory(pin_class=RecordingPin)
    hw = ClockHardware(PINS, lambda c, t: None, lambda t: None, pin_factory=factory,
                       time_source=lambda: 0.0, half_period=0, display="ht16k33")
    try:
        hw.show(1197.5, 1200.0, Color.WHITE, paused=False)
        black = decode_i2c(BUS_LOG, gpio(PINS.black_clk), gpio(PINS.black_dio))
        white = decode_i2c(BUS_LOG, gpio(PINS.white_clk), gpio(PINS.white_dio))
        assert decode_backpack(black) == ("1958", True, 2 * PINS.brightness + 1)
        assert decode_backpack(white) == ("2000", True, 2 * PINS.brightness + 1)
        hw.show(9.4, 75.0, None, paused=True)
        black = decode_i2c(BUS_LOG, gpio(PINS.black_clk), gpio(PINS.black_dio))
        assert decode_backpack(black) == (" 94 ", True, 2 * PINS.dim_brightness + 1)
    finally:
        hw.close()
    last = decode_i2c(BUS_LOG, gpio(PINS.black_clk), gpio(PINS.black_dio))[-1]
    assert last == [0x70 << 1, 0x80]  # display off
    factory.reset()
