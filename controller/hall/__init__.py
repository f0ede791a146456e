"""The Hall-sensor board: protocol, host driver, LED overlay and replay helpers.

``messages`` (generated from the firmware's protocol table) and ``simboard`` (the
firmware built for the host, on a pseudo-terminal) belong to the firmware; the rest
is the host side. Nothing here is imported eagerly, so the pure parts load without
pyserial.
"""
