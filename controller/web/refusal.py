"""A refusal as a person reads it: a sentence, on a page of its own when a browser
asked for a page.

The JSON API answers ``{"error": "..."}``, which the pages' scripts turn into a
sentence where the person looks (``refusalText`` in ``app.js``). A browser that
navigates to an address (a review, a page that does not exist, a link followed from
a bookmark) asked for a page, not for JSON: it gets a small page with the same
sentence and a way back, never a raw JSON body.
"""

from __future__ import annotations

import html

from starlette.types import Scope

#: Addresses whose answers are for the pages' scripts, never a page of their own.
API_PREFIXES = ("/api/", "/events")


def sentence(text: str) -> str:
    """``text`` as a sentence: a capital first letter and a full stop at the end."""
    said = " ".join(text.split()) or "the request was refused"
    said = said[0].upper() + said[1:]
    return said if said[-1] in ".!?" else said + "."


def wants_page(scope: Scope) -> bool:
    """Whether the request is a browser's navigation (it accepts HTML) to an address that
    is not one of the API's: the answer to it is shown as a page."""
    if scope.get("type") != "http" or scope.get("method") not in ("GET", "HEAD"):
        return False
    path = str(scope.get("path", ""))
    if path.startswith(API_PREFIXES):
        return False
    accept = next((v for k, v in scope.get("headers", []) if k == b"accept"), b"")
    return b"text/html" in accept


def refusal_page(status: int, text: str, back: str = "/") -> str:
    """The page a browser shows for a refused address: what went wrong, in a sentence."""
    said = html.escape(sentence(text))
    title = "Not found" if status == 404 else "Not possible"
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title} — Kaeshi</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/static/style.css"></head>
<body class="refusal"><main><section class="panel">
<h1>{title}</h1>
<p id="refusal" class="refusal-text">{said}</p>
<p><a href="{html.escape(back, quote=True)}">Back to the table's page</a></p>
</section></main></body></html>
"""
