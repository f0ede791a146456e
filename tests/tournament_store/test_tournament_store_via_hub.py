"""A command sent through the running hub: a hub listening on every address is reached
on its own machine, and names typed at a terminal reach it as the roster keeps them."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.tournament.model import TournamentError
from controller.tournament_store import writer
from controller.tournament_store.via_hub import _folded, local, send, write


@pytest.mark.parametrize(("url", "reached"), [
    ("http://0.0.0.0:8443/", "http://127.0.0.1:8443/"),
    ("https://[::]:8443", "https://[::1]:8443"),
    ("http://hub.local:8443/", "http://hub.local:8443/"),
    ("http://192.0.2.9:80", "http://192.0.2.9:80"),
])
def test_a_hub_on_every_address_is_reached_on_its_own_machine(url: str, reached: str) -> None:
    assert local(url) == reached


def test_names_typed_at_the_terminal_are_folded_as_the_roster_keeps_them() -> None:
    sent = _folded({"player": "山田　太郎", "tables": [["Ａｎｎ  Lee", "Bo"]], "byes": ["Ｃｙ"],
                    "round": 2})
    assert sent == {"player": "山田 太郎", "tables": [["Ann Lee", "Bo"]], "byes": ["Cy"],
                    "round": 2}


def test_a_hub_that_holds_the_lock_without_a_token_given_writes_nothing(tmp_path: Path) -> None:
    event = tmp_path / "open.sqlite"
    hub = writer.acquire(event, writer.HUB)
    hub.announce("http://127.0.0.1:9")
    try:
        with pytest.raises(TournamentError, match="nothing was written: give its arbiter token"):
            write(event, None, "result", {}, say=print)
    finally:
        hub.release()
    assert not event.exists()


def test_a_hub_that_does_not_answer_is_named() -> None:
    with pytest.raises(TournamentError, match=r"no answer from the hub at http://127.0.0.1:9 "
                                              "for result: .*look at its dashboard"):
        send("http://127.0.0.1:9", "token", "result", {}, timeout=2.0)
