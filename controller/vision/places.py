"""Where a1 can be in the image: the words of ``--a1``, defined apart from the geometry
so that a command's ``--help`` lists them without importing numpy and OpenCV."""

from __future__ import annotations

#: The image corners a1 can sit in, clockwise from the top left.
A1_PLACES = ("top-left", "top-right", "bottom-right", "bottom-left")
