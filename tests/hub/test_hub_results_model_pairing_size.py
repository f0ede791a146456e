"""The hub's pairing carries the event's board, and a table set up for another board
refuses to begin that game, saying why on its page and on the hub's dashboard.

A pairing without ``size`` is an 8x8 one (every hub before sizes sent it so), and an
8x8 pairing is written without it, so older tables and hubs read each other.
"""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.boardsize import SIZES
from controller.hall_protocol.mqtt import BrokerSettings
from controller.hall_protocol.protocol import (
    DownlinkCommand,
    ProtocolError,
    TableState,
    TableStatus,
    decode_command,
    decode_state,
    encode_command,
    encode_state,
    next_game,
    pairing_size,
)
from controller.hub.results_model import Pairing
from controller.hub.web.dashboard import REASONS, STOPPED, attention, card
from controller.observation import Observation
from controller.position import Position
from controller.service.app import Service
from controller.service.config import defaults
from controller.service.display import TerminalDisplay
from controller.service.sources import LogSource
from controller.table_link.link import HubLink
from controller.table_link.publisher import LinkSettings

PROPS = settings(max_examples=80, deadline=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
HOSTILE_SIZES = st.one_of(
    st.integers(-10**6, 10**6), st.booleans(), st.none(),
    st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([8.0, 6.0, 10.0]),
    st.text(max_size=4), st.sampled_from(["8", "10", "6x6", "\ud800"]),
    st.lists(st.integers(0, 10), max_size=2), st.just({"n": 8}),
)
ARGS = {"round": 2, "black": "Ann", "white": "Bob", "minutes": 20.0,
        "draw_win_right": "none", "draws_allowed": True}


def test_a_pairing_on_the_standard_board_is_written_as_before_sizes() -> None:
    raw = encode_command(next_game(2, "Ann", "Bob"))
    assert "size" not in json.loads(raw)
    assert pairing_size(decode_command(raw)) == 8


@pytest.mark.parametrize("size", [6, 10])
def test_a_side_event_pairing_carries_its_board(size: int) -> None:
    cmd = Pairing(2, 5, "Ann", "Bob", size=size).command()
    raw = encode_command(cmd)
    assert json.loads(raw)["size"] == size
    back = decode_command(raw)
    assert back == cmd and pairing_size(back) == size


def test_a_pairing_from_a_hub_before_sizes_is_read_as_eight_by_eight() -> None:
    old = json.dumps({"v": 1, "id": "x1", "command": "next_game", **ARGS}).encode()
    assert pairing_size(decode_command(old)) == 8


@PROPS
@given(HOSTILE_SIZES)
def test_the_pairing_encoder_and_reader_refuse_the_same_sizes(size: Any) -> None:
    """A size Kaeshi does not play is refused by the encoder and by the reader alike,
    naming the field; a size it plays is read back as sent."""
    good = not isinstance(size, bool) and isinstance(size, int) and size in SIZES
    cmd = DownlinkCommand("next_game", {**ARGS, "size": size}, id="x1")
    try:
        payload = encode_command(cmd)
    except ProtocolError as exc:
        assert not good and "'size'" in str(exc)
    else:
        assert good and pairing_size(decode_command(payload)) == size
    raw = json.dumps({"v": 1, "id": "x1", "command": "next_game", **ARGS, "size": size},
                     allow_nan=True).encode()
    try:
        read = decode_command(raw)
    except ProtocolError as exc:
        assert not good and str(exc)
    else:
        assert good and pairing_size(read) in SIZES


@PROPS
@given(st.one_of(st.integers(), st.floats(allow_nan=True, allow_infinity=True),
                 st.sampled_from([6.0, 8.0, 10.0, True])))
def test_next_game_builds_no_pairing_on_a_board_kaeshi_does_not_play(size: Any) -> None:
    if type(size) is int and size in SIZES:
        assert pairing_size(next_game(1, "Ann", "Bob", size=size)) == size
        return
    with pytest.raises(ProtocolError, match="'size' must be 6 / 8 / 10"):
        next_game(1, "Ann", "Bob", size=size)


# ------------------------------------------------------------------ the table's side
def _service(tmp_path: Any, size: int = 8) -> Service:
    cfg = defaults().replace(**{
        "game.mode": "tournament", "game.black": "Tanida", "game.white": "Murakami",
        "game.size": size, "source.kind": "sim",
        "journal.path": str(tmp_path / "journal.sqlite"),
        "games.folder": str(tmp_path / "g"), "web.enabled": False,
    })
    ticks = iter(range(1_800_000_000, 1_900_000_000))
    service = Service(cfg, source=LogSource([Observation(0.0, board="-" * (size * size))]),
                      wall=lambda: float(next(ticks)))
    service.open()
    return service


def _published(link: HubLink) -> TableStatus:
    """The state the table publishes, as the hub reads it off the wire."""
    state = link.publisher._state
    assert state is not None
    return TableStatus(7, True, decode_state(encode_state(state), 7), 0.0)


def test_a_table_refuses_a_pairing_on_another_board_and_says_why(tmp_path) -> None:
    service = _service(tmp_path)  # game.size 8
    service.outputs.terminal = TerminalDisplay(io.StringIO())
    link = HubLink(service, LinkSettings(BrokerSettings(), table=7, event="grand"))
    game = service.table.game.id
    order = decode_command(encode_command(Pairing(3, 7, "Ann", "Bob", size=10).command()))
    link.execute(order)
    # not begun: the game waiting at the table is untouched, no settings kept for later
    assert service.table.game.id == game and service.lifecycle.next_game_overrides is None
    assert service.table.core.settings.black == "Tanida"
    assert link.next_round is None
    # the page and the terminal show the snapshot's message
    snap = service.facade.snapshot("arbiter")
    assert "hub pairing refused" in snap["message"]
    assert "a 10x10 board" in snap["message"] and "game.size = 10" in snap["message"]
    assert service.outputs.terminal.out.getvalue() == snap["message"] + "\n"  # type: ignore[attr-defined]
    # the hub reads the same reason off the table's state and puts the table forward
    status = _published(link)
    assert status.state is not None and status.state.refusal is not None
    assert "round 3" in status.state.refusal and "an 8x8" in status.state.refusal
    att = attention(status, 0.0, awaiting=False)
    assert (att.rank, att.reason) == (STOPPED, REASONS[STOPPED])
    assert att.detail == f"pairing refused: {status.state.refusal}"
    assert card(status, 0.0, False)["refusal"] == status.state.refusal
    # the hub's right pairing is taken, and the refusal is gone from the state
    link.execute(Pairing(3, 7, "Ann", "Bob").command())
    assert link.refusal is None and link.rounds[service.table.game.id] == 3
    assert service.table.core.settings.black == "Ann"
    assert _published(link).state.refusal is None  # type: ignore[union-attr]
    service.keeper.journal.close()


def test_a_ten_by_ten_table_plays_a_ten_by_ten_pairing_and_refuses_an_old_hubs(tmp_path) -> None:
    service = _service(tmp_path, size=10)
    link = HubLink(service, LinkSettings(BrokerSettings(), table=7, event="grand"))
    old = json.dumps({"v": 1, "id": "x1", "command": "next_game", **ARGS}).encode()
    link.execute(decode_command(old))  # no size: an 8x8 pairing
    assert link.refusal is not None and "an 8x8 board" in link.refusal
    assert service.lifecycle.next_game_overrides is None
    link.execute(Pairing(2, 7, "Ann", "Bob", size=10).command())
    assert link.refusal is None
    core = service.table.core
    assert (core.settings.black, core.arbiter.position.size) == ("Ann", 10)
    service.keeper.journal.close()


@PROPS
@given(st.one_of(st.text(max_size=40), st.sampled_from(["a\nb", "\ud800", "\u202e", "x" * 301])))
def test_the_state_encoder_never_writes_a_refusal_its_reader_refuses(text: str) -> None:
    s = TableState(3, "g1", 1, "Ann", "Bob", "tournament", "playing",
                   Position.start().board_string(), "black", None, refusal=text)
    try:
        payload = encode_state(s)
    except ProtocolError as exc:
        assert "refusal" in str(exc)  # named, whether JSON itself or the field refuses it
        return
    assert decode_state(payload, 3) == s
