"""Every reader of the hall refuses hostile values with a reason; every encoder refuses
to write what its reader would refuse (hypothesis throws the values).

Hostile: lone surrogates, NaN and ±inf, 1e308 and 1e400, control characters, line
breaks and ``]`` in names, 10,000-deep nesting, times that run backwards, another
table's game, more games than the schedule allows.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller import strictjson
from controller.hall_protocol.protocol import (
    ClockState,
    EventMessage,
    GameResult,
    ProtocolError,
    TableState,
    decode_command,
    decode_event,
    decode_state,
    encode_command,
    encode_event,
    encode_state,
    next_game,
)
from controller.hub.ingest import Hub
from controller.hub.store import Added, HubStore, Refused
from controller.records.ggf import read_ggf_text, write_ggf
from controller.records.model import GameRecord, Move, RecordError
from controller.squares import Color

START = "-" * 27 + "OX------XO" + "-" * 27
PROPS = settings(max_examples=60, deadline=None,
                 suppress_health_check=[HealthCheck.too_slow])

#: Characters no name may hold, and the ones GGF must escape.
HOSTILE_CHARS = st.sampled_from(["\ud800", "\udfff", "\x00", "\n", "\r", "\t", "\x1b",
                                 "\x7f", "\x85", "\u2028", "\u202e", "\u2066"])
hostile_text = st.builds(lambda a, c, b: a + c + b, st.text(max_size=8), HOSTILE_CHARS,
                         st.text(max_size=8))
any_text = st.one_of(st.text(max_size=30), hostile_text,
                     st.just("A\nPW[evil]"), st.just("x]y\\z"))
hostile_numbers = st.sampled_from([math.nan, math.inf, -math.inf, 1e308, -1e308,
                                   -5000.0, 3.6e7, 2.0**60])


def state(**kw: Any) -> TableState:
    base = TableState(3, "20261202-101500", 1, "Ann", "Bob", "tournament", "playing", START,
                      "black", ClockState(600_000, 590_000, "black", 1_764_670_000.0))
    return replace(base, **kw)


def event_payload(event: dict[str, Any], **top: Any) -> bytes:
    d = {"v": 1, "table": 3, "game": "20261202-101500", "seq": 1, "event": event, **top}
    return json.dumps(d, ensure_ascii=True).encode()


MOVE = {"t": 1.5, "event": "move", "player": "black", "square": "f5", "flips": ["e5"]}


# ------------------------------------------------------------------- JSON itself
@PROPS
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | any_text,
                    lambda kids: st.lists(kids, max_size=3)
                    | st.dictionaries(any_text, kids, max_size=3), max_leaves=12))
def test_strict_json_reads_back_exactly_what_it_writes_and_refuses_the_rest(value: Any
                                                                           ) -> None:
    try:
        text = strictjson.dumps(value)
    except strictjson.StrictJSONError as exc:
        assert str(exc)  # refused, with a reason
        # and what it refused to write, it refuses to read (json writes NaN and \ud800)
        with pytest.raises(strictjson.StrictJSONError):
            strictjson.loads(json.dumps(value))
        return
    assert strictjson.loads(text) == value
    assert strictjson.loads(text.encode()) == value


@pytest.mark.parametrize("text", [
    '{"a": NaN}', '{"a": Infinity}', '{"a": -Infinity}', '{"a": 1e400}',
    '{"a": "\\ud800"}', '{"a\\udc00": 1}', '{"a": "x\\ny"}', "[" * 10_000 + "]" * 10_000,
    '{"a":' * 10_000 + "1" + "}" * 10_000, '{"a": 123456789012345678901234567890}',
])
def test_strict_json_refuses_each_hostile_value_with_a_reason(text: str) -> None:
    with pytest.raises(strictjson.StrictJSONError) as exc:
        strictjson.loads(text)
    assert str(exc.value)


@PROPS
@given(st.integers(min_value=7, max_value=10_000), st.sampled_from(["[", '{"k":']))
def test_deep_nesting_is_a_refusal_never_a_recursion_error(depth: int, opener: str) -> None:
    closer = "]" if opener == "[" else "}"
    payload = ('{"v":1,"table":3,"game":"g","seq":1,"event":' + opener * depth + "1"
               + closer * depth + "}").encode()
    with pytest.raises(ProtocolError, match="nested too deeply"):
        decode_event(payload, 3)


# ---------------------------------------------------------------- the readers
@PROPS
@given(any_text, st.sampled_from(["black", "white"]))
def test_a_state_with_a_hostile_name_is_refused_naming_the_field(name: str, side: str
                                                                 ) -> None:
    payload = json.dumps({**json.loads(encode_state(state())), side: name},
                         ensure_ascii=True).encode()
    clean = all(strictjson.string_problem(c) is None for c in name)
    if clean and len(name) <= 100:
        assert getattr(decode_state(payload, 3), side) == name
        return
    with pytest.raises(ProtocolError) as exc:
        decode_state(payload, 3)
    assert "state" in str(exc.value)


@PROPS
@given(hostile_numbers, st.sampled_from(["black_ms", "white_ms", "at"]))
def test_a_state_with_an_absurd_clock_is_refused(value: float, key: str) -> None:
    if key == "at" and math.isfinite(value) and 0 <= value <= 2**33:
        value = -value or math.nan  # a wall time before 1970 (3.6e7 s is 1971: taken)
    d = json.loads(encode_state(state()))
    d["clock"][key] = value
    payload = json.dumps(d).encode()  # json writes NaN and Infinity as they come
    with pytest.raises(ProtocolError):
        decode_state(payload, 3)


@PROPS
@given(hostile_numbers | any_text, st.sampled_from(["reason", "black", "t"]))
def test_a_game_over_with_a_hostile_value_is_refused(value: Any, key: str) -> None:
    over = {"t": 100.0, "event": "game_over", "black": 40, "white": 24, "winner": "black"}
    payload = json.dumps({"v": 1, "table": 3, "game": "g", "seq": 9,
                          "event": {**over, key: value}}).encode()
    number = isinstance(value, int | float) and not isinstance(value, bool)
    valid = {"reason": isinstance(value, str) and re.fullmatch("[a-z_]{1,40}", value),
             "black": isinstance(value, int) and number and 0 <= value <= 64,
             "t": number and math.isfinite(value) and 0 <= value <= 2**33}[key]
    if valid:  # (a game time of 0 to 2**33 s is a replay's; "time_out" a reason)
        assert decode_event(payload, 3).event[key] == value
        return
    with pytest.raises(ProtocolError):
        decode_event(payload, 3)


@PROPS
@given(hostile_numbers, st.sampled_from(["black", "white", "black_ms"]))
def test_a_clock_event_with_an_absurd_time_is_refused(value: float, key: str) -> None:
    clock = {"t": 5.0, "event": "clock", "black": 590.0, "white": 600.0, "running": "white",
             key: value}
    if key == "black_ms" and math.isfinite(value):
        decode_event(event_payload(clock), 3)  # an extra field, finite: taken as it is
        return
    with pytest.raises(ProtocolError):
        decode_event(json.dumps({"v": 1, "table": 3, "game": "g", "seq": 1,
                                 "event": clock}).encode(), 3)


def test_an_order_with_a_hostile_name_is_never_sent_nor_taken() -> None:
    with pytest.raises(ProtocolError, match="'black'"):
        next_game(1, "A\nPW[evil]", "Bob")
    good = encode_command(next_game(1, "Ann", "Bob"))
    bad = good.replace(b'"Ann"', b'"\\ud800"')
    with pytest.raises(ProtocolError, match="surrogate"):
        decode_command(bad)


# ---------------------------------------------------------------- the encoders
@PROPS
@given(any_text, any_text, st.one_of(st.none(), any_text),
       st.integers(-10**12, 10**12), st.floats(allow_nan=True, allow_infinity=True))
def test_the_state_encoder_never_writes_what_its_reader_refuses(
        black: str, white: str, reason: str | None, ms: int, at: float) -> None:
    s = state(black=black, white=white,
              clock=ClockState(ms, 1000, "black", at),
              result=GameResult(40, 24, "black", reason))
    try:
        payload = encode_state(s)
    except ProtocolError as exc:
        assert str(exc)
        return
    assert decode_state(payload, 3) == s


@PROPS
@given(st.dictionaries(any_text, any_text | hostile_numbers, max_size=3),
       st.floats(allow_nan=True, allow_infinity=True))
def test_the_event_encoder_never_writes_what_its_reader_refuses(extra: dict[str, Any],
                                                               t: float) -> None:
    m = EventMessage(3, "g1", 1, {**MOVE, **extra, "t": t, "event": "move"})
    try:
        payload = encode_event(m)
    except ProtocolError:
        return
    assert decode_event(payload, 3) == m


@PROPS
@given(any_text, any_text, st.lists(any_text, max_size=3))
def test_ggf_never_writes_a_tag_its_reader_cannot_take_back(black: str, white: str,
                                                           comments: list[str]) -> None:
    rec = GameRecord(black=black, white=white)
    rec.moves.append(Move(Color.BLACK, "f5", comment="\n".join(comments)))
    try:
        text = write_ggf(rec)
    except RecordError as exc:
        assert str(exc)
        return
    assert "\n" not in text and "\r" not in text  # one game, one line
    [back] = read_ggf_text(text)
    assert (back.black, back.white) == (black, white)


# --------------------------------------------------------------- the hub's store
def ev(seq: int, t: float, table: int = 3, game: str = "g1", wall: float | None = None
       ) -> EventMessage:
    return EventMessage(table, game, seq, {**MOVE, "t": t}, wall)


@PROPS
@given(st.lists(st.floats(0, 1e4), min_size=2, max_size=12))
def test_a_games_time_never_runs_backwards_in_the_store(times: list[float]) -> None:
    store = HubStore(":memory:")
    store.announce(3, "g1")
    kept: list[float] = []
    for t in times:
        added = store.add_event(ev(len(kept) + 1, t), 1.0)
        if kept and t < kept[-1]:
            assert added is Added.BACKWARDS
        else:
            assert added is Added.STORED
            kept.append(t)
    assert [e.event["t"] for e in store.events(3, "g1")] == kept


def test_another_tables_game_republished_is_refused_but_a_shared_id_is_not() -> None:
    store = HubStore(":memory:")
    for table in (1, 2, 3):
        store.announce(table, "20261202-101500")
    mine = ev(1, 3.25, table=1, game="20261202-101500", wall=1_764_670_000.125)
    assert store.add_event(mine) is Added.STORED
    copy = replace(mine, table=2)
    assert store.add_event(copy) is Added.FOREIGN
    # a table that started its own game in the same second: its own instant, its own game
    own = replace(mine, table=3, wall=1_764_670_000.5)
    assert store.add_event(own) is Added.STORED


def test_a_table_cannot_announce_more_games_than_the_schedule() -> None:
    store = HubStore(":memory:", max_games=5)
    for n in range(5):
        s = state(game=f"g{n}")
        store.set_state(s, encode_state(s))
    s = state(game="g5")
    with pytest.raises(Refused, match="schedule allows 5"):
        store.set_state(s, encode_state(s))
    again = state(game="g4")  # a game it has already named is no new game
    store.set_state(again, encode_state(again))
    assert len(store.games(announced=True)) == 0 and store.may_announce(3, "g6")


def test_the_hub_counts_each_refusal_against_its_table_with_the_reason(tmp_path) -> None:
    from controller.hall_protocol.mqtt import BrokerSettings

    store = HubStore(tmp_path / "hub.sqlite", max_games=2)
    hub = Hub(BrokerSettings("127.0.0.1", 1, "hub", "x"), "open", store)
    for n in range(3):
        s = state(game=f"g{n}")
        hub._on_message(None, None, _Msg("kaeshi/open/table/3/state", encode_state(s)))  # type: ignore[arg-type]
    trouble = hub.trouble(3)
    assert trouble is not None and trouble["counts"]["games"] == 1
    assert "schedule allows 2" in trouble["last"]
    assert store.table(3) is not None and store.table(3).state.game == "g1"  # type: ignore[union-attr]


class _Msg:
    def __init__(self, topic: str, payload: bytes) -> None:
        self.topic, self.payload = topic, payload


def test_each_hostile_message_is_junk_on_the_tables_card_never_a_bug(tmp_path, caplog
                                                                     ) -> None:
    from controller.hall_protocol.mqtt import BrokerSettings

    store = HubStore(tmp_path / "hub.sqlite")
    hub = Hub(BrokerSettings("127.0.0.1", 1, "hub", "x"), "open", store)
    payloads = [
        ("state", encode_state(state()).replace(b'"Ann"', b'"\\ud800"')),
        ("state", encode_state(state()).replace(b'"Ann"', b'"A\\nPW[evil]"')),
        ("state", encode_state(state()).replace(b'"black_ms":600000', b'"black_ms":NaN')),
        ("state", encode_state(state()).replace(b'"black_ms":600000',
                                                b'"black_ms":-5000000')),
        ("events", event_payload({**MOVE, "t": 1e308})),
        ("events", event_payload({"t": 9.0, "event": "game_over", "black": 40,
                                  "white": 24, "winner": "black", "reason": "\ud800"})),
        ("events", b'{"v":1,"event":' + b"[" * 10_000 + b"]" * 10_000 + b"}"),
    ] * 20
    with caplog.at_level("WARNING", logger="kaeshi.hub"):
        for kind, payload in payloads:
            hub._on_message(None, None, _Msg(f"kaeshi/open/table/3/{kind}", payload))  # type: ignore[arg-type]
    trouble = hub.trouble(3)
    assert trouble is not None and trouble["counts"] == {"junk": len(payloads)}
    assert store.table(3) is None and store.count_events() == 0
    assert len(caplog.records) == 1  # one line per table and kind and interval
    assert not any(r.exc_info for r in caplog.records) and "bug" not in caplog.text


# ------------------------------------------------------------- the HTTP bodies
def _hub_client() -> Any:
    from hub_web_support import TOKEN, FakeBus, Hall
    from starlette.testclient import TestClient

    from controller.hub.web import HubWebSettings, build_app

    hall, bus = Hall(), FakeBus()
    hall.state(1, 1_764_670_000.0)
    app = build_app(hall.store, bus, None, HubWebSettings(TOKEN, delay=0.0))
    client = TestClient(app, base_url="http://testserver")
    client.get(f"/arbiter?token={TOKEN}", follow_redirects=False)
    return client, bus


_CLIENT: list[Any] = []


@PROPS
@given(st.sampled_from(["adjust_time", "correct_board", "pause", "resume"]),
       st.dictionaries(any_text, any_text | hostile_numbers | st.integers(), max_size=3)
       | st.builds(lambda k, v: {k: v}, st.sampled_from(["color", "seconds", "board",
                                                         "black"]), any_text | hostile_numbers))
def test_a_hostile_request_body_is_a_refusal_with_a_reason_never_a_500(
        action: str, body: dict[str, Any]) -> None:
    if not _CLIENT:
        _CLIENT.append(_hub_client())
    client, bus = _CLIENT[0]
    sent = len(bus.sent)
    text = json.dumps(body, ensure_ascii=True)  # as a hostile script writes it: NaN, \ud800
    r = client.post(f"/api/table/1/{action}", content=text,
                    headers={"Content-Type": "application/json",
                             "Origin": "http://testserver"})
    assert r.status_code < 500, r.text
    if strictjson.problem(body) is not None:
        assert r.status_code == 400 and "refused" in r.json()["error"]
        assert len(bus.sent) == sent  # nothing reached the table


def test_an_honest_tables_state_just_after_its_first_events_raises_nothing(tmp_path
                                                                           ) -> None:
    """After a broker restart a table's events may reach the hub before its state: the
    arbiter is told of a game never announced only if it stays unnamed."""
    from controller.hall_protocol.mqtt import BrokerSettings

    now = [1000.0]
    hub = Hub(BrokerSettings("127.0.0.1", 1, "hub", "x"), "open",
              HubStore(tmp_path / "hub.sqlite"), clock=lambda: now[0])
    def event(game: str) -> None:
        payload = encode_event(EventMessage(3, game, 1, MOVE))
        hub._on_message(None, None, _Msg("kaeshi/open/table/3/events", payload))  # type: ignore[arg-type]

    event("honest")
    now[0] += 1.0
    s = state(game="honest")
    hub._on_message(None, None, _Msg("kaeshi/open/table/3/state", encode_state(s)))  # type: ignore[arg-type]
    now[0] += 10.0
    hub._tell_unnamed()
    assert hub.trouble(3) is None  # named within the grace: nothing to say
    event("invented")
    hub._tell_unnamed()
    assert hub.trouble(3) is None
    now[0] += 10.0
    hub._tell_unnamed()
    trouble = hub.trouble(3)
    assert trouble is not None and trouble["counts"] == {"unannounced": 1}
    assert trouble["games"] == ["invented"]
