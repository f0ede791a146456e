"""The fake more than one LED test needs: a hall link, so that the sensor board's
driver and the registry that builds it are checked against the payload the board gets."""

from __future__ import annotations

from controller.hall.leds import led_payload


class PayloadLink:
    """A hall link that builds the real SET_LEDS payload, as the board would receive it."""

    def __init__(self) -> None:
        self.payloads: list[bytes] = []

    def set_leds(self, assignments: dict) -> None:
        self.payloads.append(led_payload(assignments))
