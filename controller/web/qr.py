"""The table's phone address as a QR code: in the terminal and on the ``/phone`` page,
so nobody types an HTTPS address with a port into a phone."""

from __future__ import annotations

import io


def qr_text(url: str) -> str:
    """The code drawn with block characters, for the terminal that started the table."""
    import segno

    out = io.StringIO()
    segno.make(url, error="m").terminal(out=out, compact=True, border=2)
    return out.getvalue()


def qr_svg_data_uri(url: str) -> str:
    """The code as an SVG ``data:`` address (the page's policy allows images from data:)."""
    import segno

    return str(segno.make(url, error="m").svg_data_uri(scale=6, border=2))


def qr_svg(url: str) -> bytes:
    """The code as an SVG document."""
    import segno

    out = io.BytesIO()
    segno.make(url, error="m").save(out, kind="svg", scale=6, border=2)
    return out.getvalue()
