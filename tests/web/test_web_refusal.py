"""A refusal reads as a sentence, and only a browser's navigation gets it as a page."""

from __future__ import annotations

from controller.web.refusal import refusal_page, sentence, wants_page


def _scope(path: str, method: str = "GET", accept: bytes = b"text/html,*/*") -> dict:
    return {"type": "http", "method": method, "path": path, "headers": [(b"accept", accept)]}


def test_a_refusal_is_made_a_sentence_once() -> None:
    assert sentence("no game  in\nplay") == "No game in play."
    assert sentence("Already said.") == "Already said."
    assert sentence("why?") == "Why?"
    assert sentence("   ") == "The request was refused."


def test_only_a_browsers_navigation_outside_the_api_wants_a_page() -> None:
    assert wants_page(_scope("/review/3"))
    assert wants_page(_scope("/nowhere", method="HEAD"))
    assert not wants_page(_scope("/api/state"))
    assert not wants_page(_scope("/events"))
    assert not wants_page(_scope("/review/3", method="POST"))
    assert not wants_page(_scope("/review/3", accept=b"application/json"))
    assert not wants_page({"type": "websocket", "path": "/phone/ws", "headers": []})


def test_the_page_escapes_what_it_was_given() -> None:
    page = refusal_page(404, "no game <b>7</b>", back='/x"onmouseover="y')
    assert "<title>Not found" in page
    assert '<p id="refusal" class="refusal-text">No game &lt;b&gt;7&lt;/b&gt;.</p>' in page
    assert 'href="/x&quot;onmouseover=&quot;y"' in page
    assert "<title>Not possible" in refusal_page(409, "the clock is running")
