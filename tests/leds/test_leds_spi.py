"""The SPI edge of the LED strips: spidev faked where it is imported, the rest real.

Without spidev, or without SPI enabled, the user is told what to install or enable;
with it, every frame goes out whole on the bus and at the rate asked for.
"""

from __future__ import annotations

import sys
import types

import pytest

from controller.errors import KaeshiError
from controller.leds.spi import WS2812_SPI_HZ, open_spi_writer


class FakeSpiDev:
    """What spidev.SpiDev offers the writer, recording what it is asked to do."""

    opened: list[FakeSpiDev] = []
    fail: OSError | None = None

    def __init__(self) -> None:
        self.bus: tuple[int, int] | None = None
        self.max_speed_hz = 0
        self.mode = -1
        self.written: list[bytes] = []

    def open(self, bus: int, device: int) -> None:
        if FakeSpiDev.fail is not None:
            raise FakeSpiDev.fail
        self.bus = (bus, device)
        FakeSpiDev.opened.append(self)

    def writebytes2(self, data: bytes) -> None:
        self.written.append(bytes(data))


@pytest.fixture
def spidev(monkeypatch: pytest.MonkeyPatch) -> type[FakeSpiDev]:
    FakeSpiDev.opened, FakeSpiDev.fail = [], None
    monkeypatch.setitem(sys.modules, "spidev", types.SimpleNamespace(SpiDev=FakeSpiDev))
    return FakeSpiDev


def test_each_frame_goes_out_whole_on_the_bus_asked_for(spidev):
    write = open_spi_writer(bus=1, device=2, hz=4_000_000)
    write(b"\x01\x02\x03")
    write(b"\xff" * 300)
    (spi,) = spidev.opened
    assert spi.bus == (1, 2) and spi.max_speed_hz == 4_000_000 and spi.mode == 0
    assert spi.written == [b"\x01\x02\x03", b"\xff" * 300]


def test_the_default_is_the_first_bus_at_the_ws2812s_bit_rate(spidev):
    open_spi_writer()
    (spi,) = spidev.opened
    assert spi.bus == (0, 0) and spi.max_speed_hz == WS2812_SPI_HZ == 2_400_000


def test_spi_not_enabled_is_named_with_the_bus(spidev):
    spidev.fail = FileNotFoundError(2, "No such file or directory")
    with pytest.raises(KaeshiError, match="cannot open SPI 0.1 for the LED strip: .*No such file"):
        open_spi_writer(device=1)


def test_without_spidev_the_user_is_told_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "spidev", None)  # an import of it raises ImportError
    with pytest.raises(KaeshiError, match=r"pip install spidev.*raspi-config"):
        open_spi_writer()
