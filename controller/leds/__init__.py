"""The LED overlay: what lights up (decided per mode) and the drivers that light it."""

from controller.leds.plan import (
    LAST_MOVE,
    LEGAL,
    PENDING,
    STATUS,
    WRONG,
    LedCell,
    LedDriver,
    LedPattern,
    Plan,
    plan_overlay,
)
from controller.leds.sensor_board import SensorBoardLeds
from controller.leds.strip import chain_order
from controller.leds.web import WebLeds
from controller.leds.ws2812 import Ws2812SpiLeds, decode_spi, encode_spi

__all__ = [
    "LAST_MOVE",
    "LEGAL",
    "PENDING",
    "STATUS",
    "WRONG",
    "LedCell",
    "LedDriver",
    "LedPattern",
    "Plan",
    "SensorBoardLeds",
    "WebLeds",
    "Ws2812SpiLeds",
    "chain_order",
    "decode_spi",
    "encode_spi",
    "plan_overlay",
]
