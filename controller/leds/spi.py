"""The one place spidev is imported; it is optional (only camera setups with a strip need it)."""

from __future__ import annotations

from collections.abc import Callable

from controller.errors import KaeshiError

WS2812_SPI_HZ = 2_400_000


def open_spi_writer(bus: int = 0, device: int = 0,
                    hz: int = WS2812_SPI_HZ) -> Callable[[bytes], None]:
    """A writer for ``/dev/spidev<bus>.<device>``: data on MOSI (GPIO 10), the clock on
    SCLK (GPIO 11) for a strip that has a clock line; 2.4 MHz is the WS2812's bit rate."""
    try:
        import spidev  # type: ignore[import-not-found]
    except ImportError:
        raise KaeshiError(
            "an LED strip needs the spidev package (pip install spidev) and SPI "
            "enabled (raspi-config > Interface Options > SPI)"
        ) from None
    spi = spidev.SpiDev()
    try:
        spi.open(bus, device)
    except OSError as exc:
        raise KaeshiError(f"cannot open SPI {bus}.{device} for the LED strip: {exc}") from None
    spi.max_speed_hz = hz
    spi.mode = 0

    def write(data: bytes) -> None:
        spi.writebytes2(data)

    return write
