"""A 6x6 or 10x10 side event through the hall protocol and the broadcast.

A message about another board says its ``size``; an 8x8 message is written exactly
as before sizes existed (no ``size`` field), so older tables and hubs read each other.
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.bitboard import bit_indices
from controller.hall_protocol.protocol import (
    EventMessage,
    ProtocolError,
    StoredEvent,
    TableState,
    decode_event,
    decode_state,
    encode_event,
    encode_state,
)
from controller.hub.broadcast import delayed_table
from controller.position import Position
from controller.squares import square_name


def _state(size: int, board: str) -> TableState:
    return TableState(table=3, game="g", round=1, black="A", white="B", mode="tournament",
                      service="playing", board=board, to_move="black", clock=None,
                      irregularities=[{"kind": "forgotten_flip", "player": "black",
                                       "squares": [square_name(size * size - 1, size)]}],
                      size=size)


@pytest.mark.parametrize("size", [6, 8, 10])
def test_a_state_round_trips_with_its_size(size):
    s = _state(size, Position.start(size).board_string())
    raw = encode_state(s)
    assert ("size" in json.loads(raw)) is (size != 8)
    assert decode_state(raw, 3) == s


def test_an_eight_by_eight_state_is_written_as_before_sizes():
    s = _state(8, Position.start().board_string())
    assert b'"size"' not in encode_state(s)


@pytest.mark.parametrize(("size", "square"), [(6, "g1"), (8, "i1"), (10, "k1"), (6, "a7")])
def test_a_square_off_the_messages_board_is_refused(size, square):
    s = _state(size, Position.start(size).board_string())
    d = json.loads(encode_state(s))
    d["irregularities"][0]["squares"] = [square]
    with pytest.raises(ProtocolError, match="irregularities"):
        decode_state(json.dumps(d).encode(), 3)


@given(st.sampled_from([6, 8, 10]), st.sampled_from([6, 8, 10]))
def test_a_board_of_another_size_than_the_message_says_is_refused(said, board):
    d = json.loads(encode_state(_state(said, Position.start(said).board_string())))
    d["board"] = Position.start(board).board_string()
    if said == board:
        assert decode_state(json.dumps(d).encode(), 3).size == said
    else:
        with pytest.raises(ProtocolError, match="board"):
            decode_state(json.dumps(d).encode(), 3)


@pytest.mark.parametrize("bad", [7, "6", True, None, 64])
def test_a_size_kaeshi_does_not_play_is_refused(bad):
    d = json.loads(encode_state(_state(6, Position.start(6).board_string())))
    d["size"] = bad
    with pytest.raises(ProtocolError, match="'size' must be 6 / 8 / 10"):
        decode_state(json.dumps(d).encode(), 3)


def _game_events(size: int, seed: int) -> list[EventMessage]:
    rng = random.Random(seed)
    pos, out, seq = Position.start(size), [], 0
    while not pos.is_game_over():
        seq += 1
        if not pos.legal_moves():
            me = pos.to_move
            pos = pos.pass_turn()
            ev = {"t": float(seq), "event": "pass", "player": me.value}
        else:
            sq = rng.choice(bit_indices(pos.legal_moves()))
            ev = {"t": float(seq), "event": "move", "player": pos.to_move.value,
                  "square": square_name(sq, size),
                  "flips": [square_name(i, size) for i in bit_indices(pos.flips(sq))]}
            pos = pos.play(sq)
        out.append(EventMessage(1, "side", seq, ev, None, pos.board_string(),
                                None if pos.is_game_over() else pos.to_move.value, size))
    b, w = pos.final_score()
    seq += 1
    out.append(EventMessage(1, "side", seq, {"t": float(seq), "event": "game_over", "black": b,
                                             "white": w, "winner": "black" if b > w else
                                             "white" if w > b else "draw"},
                            None, pos.board_string(), None, size))
    return out


@pytest.mark.parametrize("size", [6, 10])
def test_a_whole_side_event_game_goes_through_the_wire_and_the_broadcast(size):
    messages = [decode_event(encode_event(m), 1) for m in _game_events(size, 7)]
    assert all(m.size == size for m in messages)
    stored = [StoredEvent(1, m.game, m.seq, float(m.seq), m.event, 0.0, m.board, m.to_move)
              for m in messages]
    view = delayed_table(1, stored, now=10_000, delay=0).to_dict()
    assert view["size"] == size and view["board"] == messages[-1].board
    assert len(view["board"]) == size * size
    assert view["moves"][-1]["board"] == messages[-2].board
    assert view["result"]["black"] + view["result"]["white"] == size * size


def test_the_broadcast_places_moves_of_a_ten_by_ten_game_sent_without_positions():
    """A table that sends no position: the broadcast plays the moves on the right board."""
    messages = _game_events(10, 3)[:6]
    stored = [StoredEvent(1, m.game, m.seq, float(m.seq), m.event, 0.0, None, None)
              for m in messages]
    stored[0] = StoredEvent(1, "side", 1, 1.0, messages[0].event, 0.0, messages[0].board,
                            messages[0].to_move)  # one position says the size
    view = delayed_table(1, stored, now=10_000, delay=0)
    assert len(view.board) == 100 and view.board == messages[5].board


def test_a_side_event_table_before_its_first_move_shows_its_own_start():
    from controller.hub.broadcast import GameInfo

    view = delayed_table(2, [], now=100, delay=0, current=("g", GameInfo("A", "B", 1, 6)))
    d = view.to_dict()
    assert d["size"] == 6 and d["board"] == Position.start(6).board_string()
