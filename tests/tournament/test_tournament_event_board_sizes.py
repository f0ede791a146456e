"""An event on a 6x6 or 10x10 board (a hall's side event): its results count up to the
board's squares — 36 or 100, not 64 — at every reader and encoder a count passes
through: the event file's stored actions, the director, the arbiter's corrections,
the table's sign-off on the wire and the hub's result desk. Hostile values are
refused with a reason, never with another exception, and never let through."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.boardsize import SIZES, board_size
from controller.cli import main
from controller.hall_protocol.protocol import (
    EventMessage,
    GameResult,
    ProtocolError,
    TableState,
    TableStatus,
    decode_event,
    decode_state,
    encode_event,
    encode_state,
)
from controller.hub.director import TournamentDirector
from controller.hub.results import ResultDesk, ResultError
from controller.position import Position
from controller.scorecard import ScoreCardError, SignOff
from controller.tournament.event import Tournament
from controller.tournament.model import Player, TournamentError
from controller.tournament.verdict import check_discs, read_discs
from controller.tournament_store import formats, store
from controller.tournament_store.roster import EventConfig, parse_event

SIZE = st.sampled_from(SIZES)
#: What a JSON payload or a caller may put where a count belongs.
HOSTILE = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=8,
)


def event(size: int, players: int = 8) -> Tournament:
    t = Tournament([Player(f"P{k}", born=str(1960 + k)) for k in range(players)], "open",
                   "side event", extend=True, size=size)
    t.draw_lottery(["1", "2", "3"])
    t.pair_next_round()
    return t


@settings(max_examples=300, deadline=None)
@given(size=SIZE, value=HOSTILE | st.tuples(HOSTILE, HOSTILE))
def test_a_count_is_read_as_a_board_count_of_the_events_size_or_refused(size, value):
    squares = board_size(size).squares
    try:
        got = read_discs(3, value, size)
    except TournamentError as exc:
        assert str(exc).startswith("table 3: ")
        return
    if got is None:
        assert value is None or value == []
        return
    b, w = got
    assert type(b) is int and type(w) is int  # noqa: E721 - a bool is no count
    assert 0 <= b and 0 <= w and 4 <= b + w <= squares
    assert list(got) == list(value)


@settings(max_examples=200, deadline=None)
@given(size=SIZE, b=st.integers(-3, 103), w=st.integers(-3, 103))
def test_the_limit_is_the_boards_squares(size, b, w):
    squares = board_size(size).squares
    fits = b >= 0 and w >= 0 and 4 <= b + w <= squares
    if fits:
        assert check_discs(1, (b, w), size) == (b, w)
    else:
        with pytest.raises(TournamentError, match=r"table 1: discs"):
            check_discs(1, (b, w), size)


def test_each_size_takes_its_full_board_and_refuses_one_more():
    for size, full in ((6, 36), (8, 64), (10, 100)):
        t = event(size)
        g = t.current.table(1)
        t.record_result(1, "black", (full - 1, 1))
        assert g.discs == (full - 1, 1)
        with pytest.raises(TournamentError, match=f"at most {full} together"):
            t.record_result(2, "black", (full, 1))
    six = event(6)
    with pytest.raises(TournamentError, match="on a 6x6 board .*0–36 each"):
        six.record_result(1, "black", (40, 24))  # an 8x8 count on a 6x6 event


def test_a_level_board_is_half_the_squares_and_goes_to_the_draw_win_holder():
    t = event(6)
    g = t.current.table(1)
    t.record_toss(1, g.first, g.second)
    t.record_result(1, "draw", (18, 18))
    assert g.winner == g.draw_win
    sheet = formats.pairing_sheet(t, t.current, "html")
    assert "on 6x6 boards" in sheet and "level board (18–18)" in sheet


@settings(max_examples=100, deadline=None)
@given(size=SIZE, value=HOSTILE)
def test_a_stored_action_with_a_hostile_count_is_refused_and_not_stored(tmp_path_factory,
                                                                          size, value):
    path = tmp_path_factory.mktemp("ev") / "event.sqlite"
    t = store.create(path, EventConfig("x", "open", extend=True, size=size),
                     [Player(f"P{k}") for k in range(8)])
    store.commit(path, t, "lottery", {"seeds": ["1", "2", "3"]})
    store.commit(path, t, "pair", {})
    before = path.read_bytes()
    payload = {"table": 1, "outcome": "black", "discs": value}
    try:
        json.dumps(payload, allow_nan=False)
    except (TypeError, ValueError):
        return  # not a payload anybody could send
    try:
        store.commit(path, t, "result", payload)
    except TournamentError:
        assert path.read_bytes() == before
        return
    _, again = store.load(path)  # what was stored reads back, on the same board
    assert again.size == size and again.current.table(1).done


def test_the_event_file_names_its_board_and_corrections_count_on_it(tmp_path, capsys):
    (tmp_path / "e.toml").write_text('name = "Six"\nsize = 6\nextend = true\n')
    (tmp_path / "r.csv").write_text("name\n" + "".join(f"P{k}\n" for k in range(8)))
    db = str(tmp_path / "e.sqlite")

    def run(*a: str) -> int:
        return main(["tournament", "--db", db, *a])

    assert run("new", str(tmp_path / "e.toml"), "--roster", str(tmp_path / "r.csv")) == 0
    assert run("lottery", "--seeds", "1", "2", "3") == 0
    assert run("pair") == 0
    capsys.readouterr()
    assert run("result", "1", "black", "--discs", "40-24") == 1
    assert "not a board count on a 6x6 board" in capsys.readouterr().err
    assert run("result", "1", "black", "--discs", "30-6") == 0
    assert run("correct", "--by", "A", "--why", "recount", "result", "1", "1", "black",
               "--discs", "30-7") == 1
    assert "at most 36 together" in capsys.readouterr().err
    assert run("correct", "--by", "A", "--why", "recount", "result", "1", "1", "black",
               "--discs", "29-7") == 0
    _, t = store.load(tmp_path / "e.sqlite")
    assert t.size == 6 and t.current.table(1).discs == (29, 7)
    assert formats.event_json(t)["settings"]["size"] == 6


@pytest.mark.parametrize("text", ["size = 7", "size = true", 'size = "6"', "size = 64"])
def test_an_event_file_with_a_board_kaeshi_does_not_play_is_refused(text):
    with pytest.raises(TournamentError, match="size must be the board's side, one of 6, 8, 10"):
        parse_event(text, "event.toml")


def _state(size: int, black: int, white: int, card: SignOff | None) -> TableState:
    squares = board_size(size).squares
    board = "X" * min(black, squares) + "O" * min(white, max(0, squares - black))
    board += "-" * (squares - len(board))
    return TableState(table=2, game="g", round=1, black="P0", white="P1",
                      mode="tournament", service="game_over", board=board, to_move=None,
                      clock=None, result=GameResult(black, white, "black"), signoff=card,
                      size=size)


@settings(max_examples=300, deadline=None)
@given(size=SIZE, b=st.integers(-2, 110), w=st.integers(-2, 110))
def test_the_wire_reads_a_sign_off_on_its_own_board_and_encodes_only_what_it_reads(
        size, b, w):
    squares = board_size(size).squares
    fits = 0 <= b and 0 <= w and b + w <= squares
    try:
        card = SignOff(b, w, "black", True, True, size=size)
    except ScoreCardError:
        assert not fits
        card = None
    else:
        assert fits
    if 0 <= b <= squares and 0 <= w <= squares:
        try:
            raw = encode_state(_state(size, b, w, card))
        except ProtocolError:
            assert not fits  # the encoder refuses what the reader would
        else:
            assert fits and decode_state(raw, 2).signoff == card
    # a count the table could not have sent, written by hand, is refused at the reader
    good = _state(size, 4, 0, SignOff(4, 0, "black", size=size))
    d = json.loads(encode_state(good))
    d["signoff"].update(black=b, white=w)
    d["result"].update(black=b, white=w)
    if fits:
        assert decode_state(json.dumps(d).encode(), 2).signoff.black == b
    else:
        with pytest.raises(ProtocolError):
            decode_state(json.dumps(d).encode(), 2)


def test_a_sign_off_of_a_board_kaeshi_does_not_play_is_refused():
    with pytest.raises(ScoreCardError, match="unsupported board size 7"):
        SignOff(20, 20, "draw", size=7)


def test_the_hubs_desk_confirms_the_arbiters_count_on_the_tables_board():
    t = event(10)
    director = TournamentDirector(t)
    desk = ResultDesk(director, lambda table, cmd: None)
    p = director.pairings(1)[0]
    start = Position.start(10).board_string()
    state = TableState(table=p.table, game="g1", round=1, black=p.black, white=p.white,
                       mode="tournament", service="game_over", board=start, to_move=None,
                       clock=None, result=GameResult(60, 40, "black"), size=10)
    status = TableStatus(p.table, True, decode_state(encode_state(state), p.table), 0.0)
    with pytest.raises(ResultError, match="more than the 100 squares"):
        desk.confirm(status, 61, 40)
    desk.confirm(status, 70, 30)
    assert t.current.table(p.table).discs == (70, 30)
    t6 = event(6)
    desk6 = ResultDesk(TournamentDirector(t6), lambda table, cmd: None)
    p6 = TournamentDirector(t6).pairings(1)[0]
    six = replace(status.state, table=p6.table, black=p6.black, white=p6.white, size=6,
                  board=Position.start(6).board_string(), result=GameResult(20, 16, "black"))
    with pytest.raises(ResultError, match="0-36"):
        desk6.confirm(replace(status, table=p6.table, state=six), 40, 0)
    desk6.confirm(replace(status, table=p6.table, state=six), 30, 6)
    assert t6.current.table(p6.table).discs == (30, 6)


def test_a_table_on_another_board_than_the_events_is_left_to_the_arbiter():
    t = event(6)
    director = TournamentDirector(t)
    desk = ResultDesk(director, lambda table, cmd: None)
    p = director.pairings(1)[0]
    assert p.size == 6
    card = SignOff(40, 24, "black", True, True)  # signed on an 8x8 board
    state = TableState(table=p.table, game="g1", round=1, black=p.black, white=p.white,
                       mode="tournament", service="game_over",
                       board="X" * 40 + "O" * 24, to_move=None, clock=None,
                       result=GameResult(40, 24, "black"), signoff=card)
    status = TableStatus(p.table, True, decode_state(encode_state(state), p.table), 0.0)
    needle = "the table played on an 8x8 board, the event is on 6x6 boards"
    with pytest.raises(ResultError, match=needle):
        desk.take_from_table(status)
    assert needle in desk.refused[(p.table, "g1")] and desk.awaiting(status)
    with pytest.raises(ResultError, match=needle):
        desk.confirm(status, 20, 16)
    assert not t.current.table(p.table).done


@settings(max_examples=200, deadline=None)
@given(size=SIZE, b=st.integers(-2, 110) | HOSTILE, w=st.integers(-2, 110) | HOSTILE)
def test_a_game_over_event_counts_on_its_board_at_the_encoder_and_the_reader(size, b, w):
    squares = board_size(size).squares
    fits = all(type(v) is int for v in (b, w)) and 0 <= b and 0 <= w and b + w <= squares
    board = Position.start(size).board_string()
    event = {"t": 1.0, "event": "game_over", "black": b, "white": w, "winner": "black"}
    try:
        raw = encode_event(EventMessage(1, "g", 1, event, None, board, None, size))
    except ProtocolError:
        assert not fits
    else:
        assert fits and decode_event(raw, 1).event["black"] == b
    good = EventMessage(1, "g", 1, {**event, "black": 4, "white": 0}, None, board, None, size)
    d = json.loads(encode_event(good))
    d["event"].update(black=b, white=w)
    try:
        text = json.dumps(d, allow_nan=False).encode()
    except ValueError:
        return  # no JSON anybody could send
    if fits:
        assert decode_event(text, 1).event["white"] == w
    else:
        with pytest.raises(ProtocolError):
            decode_event(text, 1)
