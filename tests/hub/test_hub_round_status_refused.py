"""A pairing a table refuses (its board is not the event's), from the table through the
hub's real ingest into its store on disk: the round step and the round bar name it
and the arbiter's next step, and say the same after the hub restarts, after the
table restarts without being set up again, until the table is set up for the
event's board and the pairing is sent again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hub_web_support import FakeDirector

from controller.hall_protocol.mqtt import BrokerSettings
from controller.hall_protocol.protocol import (
    TableState,
    decode_command,
    encode_command,
    encode_state,
)
from controller.hub.ingest import Hub
from controller.hub.results import Pairing, ResultDesk
from controller.hub.round_status import HallRound, hall_round
from controller.hub.store import HubStore
from controller.hub.web.dashboard import REASONS, STOPPED, attention
from controller.observation import Observation
from controller.round_flow import Stage
from controller.service.app import Service
from controller.service.config import defaults
from controller.service.sources import LogSource
from controller.table_link.link import HubLink
from controller.table_link.publisher import LinkSettings

EVENT = "grand"
TABLE = 7
PAIRING = Pairing(3, TABLE, "Ann", "Bob", size=10)
TODO = "set game.size = 10 at the table, restart it and send the pairings again"
REFUSED_TEXT = ("Round 3: Ann (black) – Bob (white): pairing refused, the table is set up "
                f"for an 8x8 board and the event is on 10x10 boards: {TODO}.")
BAR = f"Round 3: 0 of 1 result, 1 pairing refused — arbiter: table 7, {TODO}"


class _Msg:
    def __init__(self, topic: str, payload: bytes) -> None:
        self.topic, self.payload = topic, payload


def _table(folder: Path, size: int) -> tuple[Service, HubLink]:
    """A table service set up for ``size`` boards, joined to the hall as table 7."""
    folder.mkdir(parents=True, exist_ok=True)
    cfg = defaults().replace(**{
        "game.mode": "tournament", "game.black": "Tanida", "game.white": "Murakami",
        "game.size": size, "source.kind": "sim",
        "journal.path": str(folder / "journal.sqlite"),
        "games.folder": str(folder / "g"), "web.enabled": False,
    })
    ticks = iter(range(1_800_000_000, 1_900_000_000))
    service = Service(cfg, source=LogSource([Observation(0.0, board="-" * (size * size))]),
                      wall=lambda: float(next(ticks)))
    service.open()
    return service, HubLink(service, LinkSettings(BrokerSettings(), table=TABLE, event=EVENT))


def _publish(link: HubLink, hub: Hub) -> None:
    """The table's state as it goes over the broker, into the hub's one writer."""
    link.changed()
    state = link.publisher._state
    assert state is not None
    hub._on_message(None, None, _Msg(f"kaeshi/{EVENT}/table/{TABLE}/state",  # type: ignore[arg-type]
                                     encode_state(state)))


def _hub(path: Path) -> tuple[HubStore, Hub]:
    store = HubStore(path)
    return store, Hub(BrokerSettings("127.0.0.1", 1, "hub", "x"), EVENT, store)


def _round(store: HubStore, director: FakeDirector) -> HallRound:
    return hall_round(store.tables(), director, ResultDesk(director, lambda t, c: None))


def _said(store: HubStore, director: FakeDirector) -> dict[str, Any]:
    hall = _round(store, director)
    status = store.table(TABLE)
    assert status is not None
    att = attention(status, 0.0, awaiting=False)
    return {"bar": hall.text, "step": hall.tables[TABLE].step(),
            "attention": (att.reason, att.detail)}


def test_a_refused_pairing_survives_the_hub_and_the_table_restarting(tmp_path: Path) -> None:
    director = FakeDirector({3: [PAIRING]}, round=3)
    service, link = _table(tmp_path / "table", 8)
    store, hub = _hub(tmp_path / "hub.sqlite")
    link.execute(decode_command(encode_command(PAIRING.command())))
    assert link.refusal is not None
    _publish(link, hub)
    before = _said(store, director)
    step = before["step"]
    assert (step.stage, step.text, step.who, step.todo) == (
        Stage.REFUSED, REFUSED_TEXT, "arbiter", TODO)
    assert before["bar"] == BAR
    assert before["attention"] == ("stopped", f"pairing refused: {link.refusal}")
    assert link.refusal.endswith(TODO)  # the table's page and terminal: the same next step

    # the hub is killed and started again on its store: the same words, read from disk
    store.close()
    store, hub = _hub(tmp_path / "hub.sqlite")
    assert _said(store, director) == before

    # the table is restarted, still set up for 8x8: its words are gone, its board is not
    service.keeper.journal.close()
    service, link = _table(tmp_path / "table", 8)
    assert link.refusal is None
    _publish(link, hub)
    after = _said(store, director)
    assert (after["bar"], after["step"]) == (BAR, step)

    # set up for the event's board, it waits for the pairing; sent again, it plays it
    service.keeper.journal.close()
    service, link = _table(tmp_path / "table10", 10)
    _publish(link, hub)
    fixed = _round(store, director).tables[TABLE].step()
    assert (fixed.stage, fixed.who) == (Stage.PAIRED, "table")
    assert _round(store, director).text == "Round 3: 0 of 1 result, 1 not started"
    link.execute(decode_command(encode_command(PAIRING.command())))
    assert link.refusal is None
    _publish(link, hub)
    playing = _round(store, director).tables[TABLE].step()
    assert playing.stage is Stage.PLAYING and "Ann (black) – Bob (white)" in playing.text
    service.keeper.journal.close()
    store.close()


def test_a_table_restarted_on_the_wrong_board_still_comes_first_with_the_stopped_ones(
        tmp_path: Path) -> None:
    """Its own words are gone with the restart; its round step puts it beside the
    paused tables (by number), above the ones playing, with the arbiter's step."""
    from controller.hub.web.live import Views
    from controller.position import Position

    director = FakeDirector({3: [Pairing(3, t, f"B{t}", f"W{t}", size=10)
                                 for t in (2, 5, 7, 9)]}, round=3)
    store = HubStore(tmp_path / "hub.sqlite")
    ten = Position.start(10).board_string()
    for t, service in ((2, "playing"), (5, "paused"), (9, "paused")):
        s = TableState(t, f"r3t{t}", 3, f"B{t}", f"W{t}", "tournament", service, ten,
                       "black", None, size=10)
        store.set_state(s, encode_state(s))
    wrong = TableState(TABLE, "r2t7", 2, "Pia", "Quin", "tournament", "playing",
                       Position.start().board_string(), "black", None)
    store.set_state(wrong, encode_state(wrong))
    views = Views(store, director, ResultDesk(director, lambda t, c: None), lambda: 0.0,
                  0.0, 60.0)
    cards = views.arbiter()["tables"]
    assert [c["table"] for c in cards] == [5, 7, 9, 2]
    assert cards[1]["attention"] == {"rank": STOPPED, "reason": REASONS[STOPPED],
                                     "detail": f"pairing refused; arbiter: {TODO}"}
    assert cards[1]["round_step"]["stage"] == "refused"
    assert views.table(TABLE)["card"]["attention"]["detail"] == (  # type: ignore[index]
        f"pairing refused; arbiter: {TODO}")
    store.close()
