"""The trouble a simulated hall day meets, played through the hub's own arbiter API
as an arbiter at the desk would enter it (``kaeshi tournament … --hub-token``):

* round 1: a player comes late — their clock runs, they arrive with the time left
  and play on (rules 11–12);
* round 2: a late player takes the forfeit (不戦敗, counted, not rated);
* once round 2 is paired: the arbiter corrects a round-1 result (the score card was
  signed the wrong way round), journaled with who and why; the games already
  paired stay as they are;
* between rounds 1 and 2: the hub is killed (SIGKILL, a power cut) and started
  again on the same event file, which it alone writes.
"""

from __future__ import annotations

import json
import time
import urllib.error
from collections.abc import Callable
from typing import Any, Protocol

from controller.errors import KaeshiError
from controller.tournament import Tournament

ARBITER = "arbiter (simulated)"


class Pages(Protocol):
    url: str

    def call(self, path: str, body: dict[str, Any] | None = None) -> Any: ...


class RestartableHub(Protocol):
    def kill_hub(self) -> None: ...
    def start_hub(self) -> None: ...
    def web_url(self) -> str | None: ...
    def hub_starts(self) -> int: ...


class Incidents:
    def __init__(self, pages: Pages, hall: RestartableHub, rounds: int,
                 say: Callable[[str], None], enabled: bool = True) -> None:
        self.enabled = enabled
        self.pages = pages
        self.hall = hall
        self.rounds = rounds
        self.say = say
        self.done: set[str] = set()
        self.log: list[str] = []

    def _send(self, kind: str, body: dict[str, Any]) -> bool:
        try:
            self.pages.call(f"/api/tournament/{kind}", body)
            return True
        except urllib.error.HTTPError as exc:
            why = json.loads(exc.read() or b"{}").get("error", exc.reason)
            self.say(f"the hub refused {kind}: {why}")
            return False

    def _note(self, text: str) -> None:
        self.log.append(text)
        self.say(text)

    def step(self, t: Tournament) -> None:
        """Whatever is due now that the event file reads as ``t``."""
        rnd = t.current
        if rnd is None or not self.enabled:
            return
        open_games = [g for g in rnd.games if g.table is not None and not g.done]
        minutes = t.settings.minutes
        if rnd.number == 1 and "late" not in self.done and open_games:
            self.done.add("late")
            g = open_games[-1]
            steps = [("clock_running", None), ("arrived", minutes * 60_000 - 150_000),
                     ("playing", None)]
            if all(self._send("late", {"table": g.table, "player": g.white, "state": s,
                                       "remaining_ms": ms}) for s, ms in steps):
                self._note(f"round 1 table {g.table}: {g.white} came 2:30 late and played "
                           "on the time left")
        if rnd.number >= 2 and "crash" not in self.done and self.rounds >= 2:
            self.done.add("crash")
            self.restart_hub()
        if rnd.number == 2 and "forfeit" not in self.done and open_games:
            self.done.add("forfeit")
            g = open_games[0]
            ok = (self._send("late", {"table": g.table, "player": g.white,
                                      "state": "clock_running", "remaining_ms": None})
                  and self._send("late", {"table": g.table, "player": g.white,
                                          "state": "arrived",
                                          "remaining_ms": minutes * 60_000 - 600_000})
                  and self._send("forfeit", {"table": g.table, "loser": g.white}))
            if ok:
                self._note(f"round 2 table {g.table}: {g.white} came 10 min late and took "
                           "the forfeit (not rated)")
        if rnd.number >= 2 and "correction" not in self.done:
            self.done.add("correction")
            first = next((g for g in t.rounds[0].games
                          if g.table is not None and g.done and not g.forfeit), None)
            if first is not None and first.discs is not None:
                b, w = first.discs
                outcome = "white" if first.outcome == "black" else "black"
                if b == w:
                    return
                body = {"what": "result", "round": 1, "table": first.table,
                        "outcome": outcome, "discs": [w, b], "by": ARBITER,
                        "why": "the score card was signed the wrong way round"}
                if self._send("correct", body):
                    self._note(f"round 1 table {first.table} corrected to {outcome} {w}-{b} "
                               "after round 2 was paired (its games stay)")

    def restart_hub(self, timeout: float = 60.0) -> None:
        """SIGKILL the hub between two rounds and start it again on the same file."""
        before = self.hall.hub_starts()
        self.hall.kill_hub()
        self.hall.start_hub()
        deadline = time.monotonic() + timeout
        while self.hall.hub_starts() <= before or self.hall.web_url() is None:
            if time.monotonic() > deadline:
                raise KaeshiError("the hub did not come back within 60 s after its crash")
            time.sleep(0.2)
        url = self.hall.web_url()
        assert url is not None
        self.pages.url = url
        self._note("the hub was killed between rounds 1 and 2 and started again on the "
                   "same event file")
