"""The JSON form keeps every field; reading it checks every field."""

from __future__ import annotations

import json

import pytest

from controller.position import Position
from controller.records import GameRecord, RecordError, load_games, save_games
from controller.records.jsonform import FORMAT, VERSION, dumps, loads
from controller.records.model import Move
from controller.squares import Color


def full_game() -> GameRecord:
    """A game using every field: handicap start, clocks, evals, comments, notes, extras."""
    start = Position.handicap(1)
    return GameRecord(
        black="Ann Ōno",
        white="Bob",
        event="Club night",
        date="2024-05-06",
        place="Tokyo",
        start=start,
        moves=[
            Move(Color.WHITE, "f4", 3.5, -2.0, "forgotten_flip e4"),
            Move(Color.BLACK, "f5", 12.25, None, ""),
            Move(Color.WHITE, "e6", None, 0.5, "clock pressed late"),
        ],
        result=(40, 24),
        result_note="time",
        draw_win_right=Color.WHITE,
        time_control="20:00//00:00",
        comments=["table 3", "arbiter: K. Sato"],
        extra={"RB": "2100", "WTHOR": "trn=1 black=2 white=3 theory=40 depth=24"},
    )


def test_every_field_round_trips():
    games = [full_game(), GameRecord.from_squares(["f5", "d6"])]
    text = dumps(games)
    doc = json.loads(text)
    assert doc["format"] == FORMAT and doc["version"] == VERSION
    assert doc["games"][0]["start"] == {
        "board": Position.handicap(1).board_string(),
        "to_move": "white",
        "size": 8,
    }
    assert loads(text) == games


def test_save_and_load_by_extension(tmp_path):
    save_games([full_game()], tmp_path / "g.json")
    assert load_games(tmp_path / "g.json") == [full_game()]


def test_a_bare_list_of_games_is_accepted():
    doc = json.loads(dumps([full_game()]))
    assert loads(json.dumps(doc["games"])) == [full_game()]


def test_newer_versions_and_other_files_are_refused():
    with pytest.raises(RecordError, match="version 2 not supported"):
        loads(json.dumps({"format": FORMAT, "version": 2, "games": []}), "g.json")
    with pytest.raises(RecordError, match="not a Kaeshi games file"):
        loads(json.dumps({"format": "other", "games": []}), "g.json")
    with pytest.raises(RecordError, match=r"g\.json: not JSON"):
        loads("{", "g.json")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"black": 3}, "field 'black' must be a string"),
        ({"moves": [{"player": "red", "square": "f5"}]}, "move 1: player"),
        ({"moves": [{"player": "black", "square": "z5"}]}, "move 1: .*not a square"),
        ({"moves": [{"player": "black", "square": "a1"}]}, "move 1: black cannot play a1"),
        ({"moves": [{"player": "black", "square": "f5", "time": "fast"}]}, "move 1: time"),
        ({"result": [33]}, "result must be"),
        ({"start": {"board": "Q" * 64}}, "start: bad character 'Q' at a1"),
        ({"comments": "one"}, "comments must be a list"),
        ({"extra": {"x": 1}}, "extra must be an object of strings"),
    ],
)
def test_bad_fields_are_named_with_the_game(change, message):
    game = {"black": "", "moves": []} | change
    text = json.dumps({"format": FORMAT, "version": 1, "games": [{}, game]})
    with pytest.raises(RecordError, match=rf"g\.json: game 2: {message}"):
        loads(text, "g.json")
