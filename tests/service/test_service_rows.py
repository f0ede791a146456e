"""A journal row is used only when it is whole: its checksum over every column holds,
or, written before checksums, its content is an input the core can take."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from controller.position import Position
from controller.service.rows import (
    Undecodable,
    entry_crc,
    entry_fault,
    game_crc,
    game_fault,
    input_fault,
    ranges,
    text_factory,
)

START = Position.start().board_string()
texts = st.text(st.characters(blacklist_categories=("Cs",)), max_size=30)
times = st.floats(0, 1e6, allow_nan=False)


@given(texts, st.integers(0, 10_000), st.sampled_from(["input", "event", "clock"]), times,
       times, texts, st.integers(0, 5), st.integers(0, 7))
def test_a_flipped_bit_in_any_column_fails_the_checksum(
        game: str, step: int, kind: str, t: float, wall: float, data: str,
        column: int, bit: int) -> None:
    row = [game, step, kind, t, wall, data]
    crc = entry_crc(*row)
    assert entry_fault(*row, crc) is None
    flipped = list(row)
    value = flipped[column]
    if isinstance(value, str):
        flipped[column] = (chr(ord(value[0]) ^ (1 << bit)) + value[1:]) if value else "x"
    elif isinstance(value, int):
        flipped[column] = value ^ (1 << bit)
    else:
        flipped[column] = value + 2.0 ** (bit - 3)
    assert entry_fault(*flipped, crc) == "it fails its checksum"


def test_a_game_row_is_checked_by_its_checksum_or_its_settings() -> None:
    crc = game_crc("g", 1.0, None, "{}")
    assert game_fault("g", 1.0, None, "{}", crc) is None
    assert game_fault("g", 1.0, 2.0, "{}", crc) == "it fails its checksum"  # finished since
    assert game_fault("g", 1.0, None, "{}", None) is None
    assert game_fault("g", 1.0, None, "[]", None) == "its settings are not an object"
    assert game_fault("g", 1.0, None, "{", None) == "its settings are not JSON"
    assert game_fault("g", float("nan"), None, "{}", None) == "a column has the wrong type"
    assert game_fault(Undecodable("g\udcff"), 1.0, None, "{}", None) == "its text is not UTF-8"


def test_text_that_is_not_utf8_comes_back_named_not_failing() -> None:
    assert text_factory("é".encode()) == "é" and not isinstance(text_factory(b"a"), Undecodable)
    bad = text_factory(b"caf\xe9")
    assert isinstance(bad, Undecodable)
    assert entry_fault("g", 1, "event", 0.0, 0.0, bad, None) == "its text is not UTF-8"


def test_an_unchecksummed_row_is_checked_by_its_content() -> None:
    def fault(kind: str, data: object) -> str | None:
        return entry_fault("g", 1, kind, 0.0, 0.0, json.dumps(data), None)

    assert fault("input", {"obs": {"t": 1.0, "board": START}}) is None
    assert fault("input", {"obs": {"t": 1.0, "press": "black"}}) is None
    assert fault("input", {"action": "pause"}) is None
    assert fault("event", {"anything": 1}) is None
    assert fault("gossip", {}) == "its kind 'gossip' is unknown"
    assert fault("event", [1]) == "its data is not an object"
    assert entry_fault("g", 1, "event", 0.0, 0.0, "{", None) == "its data is not JSON"
    assert entry_fault("g", "1", "event", 0.0, 0.0, "{}", None) == "a column has the wrong type"


def test_an_input_the_core_cannot_take_is_named() -> None:
    assert input_fault({"cursor": -1}) == "its replay cursor is not a count"
    assert input_fault({"obs": []}) == "its observation is not an object"
    assert input_fault({"obs": {"press": "red"}}) == "its press names no player ('red')"
    assert input_fault({"obs": {}}) == "its observation holds neither a board nor a press"
    assert input_fault({"obs": {"board": "Z" * 64}}) is not None
    assert input_fault({"action": "undo"}) == "its action 'undo' is unknown"
    assert input_fault({"action": "adjust", "color": "black", "seconds": True}) == (
        "its time adjustment names no player or no seconds")
    assert input_fault({"action": "adjust", "color": "white", "seconds": -5}) is None
    assert input_fault({"action": "correct", "board": 3}) == (
        "its corrected board is not a board string")
    assert input_fault({"action": "correct", "board": START.replace("X", "x")}) is not None
    assert input_fault({"action": "correct", "board": START}) is None


def test_lost_entries_are_named_as_ranges() -> None:
    assert ranges([1, 2, 3, 7, 9, 10]) == "1-3, 7, 9-10"
    assert ranges([]) == ""
    assert ranges(list(range(0, 40, 2))).endswith(" ...")
