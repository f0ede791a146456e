"""The terminal view: board, clocks, state, flags and events from a snapshot."""

from __future__ import annotations

import io

from controller.position import Position
from controller.service.display import TerminalDisplay, format_clock, render


def _snapshot(**extra):
    snap = {
        "black": "Ann",
        "white": "Bob",
        "state": "playing",
        "to_move": "white",
        "board": Position.start().play("f5").board_string(),
        "clocks": {"black": 1187.4, "white": 1200.0, "running": "white", "paused": False},
        "counts": {"black": 4, "white": 1},
        "moves": [{"n": 1, "player": "black", "square": "f5"}],
        "last_move": "f5",
        "flags": [{"player": "black", "kind": "forgotten_flip", "squares": ["e5"]}],
        "events": [
            {"t": 3.2, "event": "move", "player": "black", "square": "f5", "flips": ["e5"]},
            {
                "t": 3.2,
                "event": "irregularity",
                "player": "black",
                "kind": "forgotten_flip",
                "squares": ["e5"],
            },
        ],
        "events_total": 2,
        "url": "http://127.0.0.1:8080",
    }
    snap.update(extra)
    return snap


def test_format_clock():
    assert format_clock(1187.4) == "19:47"
    assert format_clock(59.99) == "00:59"
    assert format_clock(-3.2) == "-00:03"
    assert format_clock(None) == "--:--"


def test_plain_render_shows_board_clocks_flags_and_events():
    lines = render(_snapshot(), colour=False)
    text = "\n".join(lines)
    assert lines[:2] == ["Kaeshi", "Ann (black) vs Bob (white)"]  # no heading: the names
    row5 = next(line for line in lines if line.startswith(" 5 "))
    assert row5 == " 5  . . . X X!X . . "  # e5 carries the flag mark
    assert "▶ white 20:00" in text and "black 19:47" in text
    assert "FLAG forgotten flip by black: e5" in text
    assert "black f5 (flips e5)" in text
    assert "state: playing   move 2, white to play" in text
    assert "web page: http://127.0.0.1:8080" in text


def test_game_over_shows_no_running_clock():
    lines = render(_snapshot(state="game_over", flags=[]), colour=False)
    text = "\n".join(lines)
    assert "▶" not in text and "(stopped)" in text and "no open flags" in text


def test_colour_render_marks_flagged_and_last_squares():
    text = "\n".join(render(_snapshot(), colour=True))
    assert "\x1b[41m" in text  # the flagged disc on red
    assert "\x1b[43m" in text  # the last move on yellow


def test_pipe_output_prints_each_new_event_once():
    out = io.StringIO()
    display = TerminalDisplay(out)
    display.update(_snapshot())
    display.update(_snapshot())
    snap = _snapshot(events_total=3)
    snap["events"] = [
        *snap["events"],
        {"t": 9.0, "event": "corrected", "kind": "forgotten_flip", "squares": ["e5"]},
    ]
    display.update(snap)
    text = out.getvalue()
    assert text.count("black f5 (flips e5)") == 1
    assert text.count("corrected forgotten flip: e5") == 1
    assert text.count("state: playing") == 1


def test_the_terminal_says_the_flows_one_instruction_as_the_page_does():
    """The same snapshot's ``flow``, built by the arbiter after a point-out, is what the
    terminal prints below the flags: the offender's next step, not the point-out offer."""
    from controller.arbiter import Arbiter
    from controller.arbiter.config import ArbiterConfig
    from controller.observation import Observation
    from controller.squares import Color

    arb = Arbiter(ArbiterConfig(clock=True, settled=True))
    start = Position.start()
    played = list(start.play("d3").board_string())
    played[27] = "O"  # d4 left white: a forgotten flip
    for i, obs in enumerate([Observation(0.5, board=start.board_string()),
                             Observation(1.0, press=Color.WHITE),
                             Observation(2.0, board="".join(played)),
                             Observation(3.0, press=Color.BLACK),
                             Observation(4.0, press=Color.WHITE)]):
        arb.feed(obs)
        if i == 3:
            offer = arb.flow().step().to_json()
    said = arb.flow().step().to_json()
    flags = arb.open_flags()
    text = "\n".join(render(_snapshot(flags=flags, flow=said), colour=False))
    assert "FLAG forgotten flip by black: d4 (move 1)" in text
    assert "Pointed out: Black must turn the disc on d4 to black, then press Black's clock." in (
        text)
    assert offer["todo"] not in text and "no open flags" not in text
    events = "\n".join(render(_snapshot(events=[
        {"t": 4.0, "event": "pointed_out", "player": "black", "squares": ["d4"]}]),
        colour=False))
    assert "pointed out: black must put d4 right" in events


def test_the_terminal_is_headed_as_the_page_is(tmp_path):
    """The service's own snapshot, as the terminal gets it (the arbiter's view): the
    event, the hall's table and round, and the players, in the page header's words."""
    from types import SimpleNamespace

    from hand_source import QueueSource

    from controller.service.app import Service
    from controller.service.config import defaults
    from controller.web.facade import for_view

    cfg = defaults().replace(**{
        "game.mode": "tournament", "game.black": "Ann", "game.white": "Bob",
        "game.event": "Club night", "hub.table": 7, "source.kind": "hall",
        "journal.path": str(tmp_path / "journal.sqlite"), "games.folder": str(tmp_path / "g"),
        "web.enabled": False, "engine.plays": "none"})
    service = Service(cfg, source=QueueSource())
    service.open()
    assert service.table.game is not None
    service.outputs.hub = SimpleNamespace(rounds={service.table.game.id: 2})  # type: ignore[assignment]
    snap = for_view(service.facade.snapshot("arbiter"), "arbiter")
    page = snap["heading"]
    for colour in (False, True):
        lines = render(snap, colour=colour)
        assert page["title"] in lines[0] and lines[1] == page["players"]
    assert render(snap, colour=False)[:2] == ["Kaeshi — Club night · Table 7 · Round 2",
                                              "Ann (black) vs Bob (white)"]
    # into a pipe: the header once, and again when the round changes
    out = io.StringIO()
    display = TerminalDisplay(out)
    display.update(snap)
    display.update(snap)
    service.outputs.hub = SimpleNamespace(rounds={service.table.game.id: 3})  # type: ignore[assignment]
    display.update(for_view(service.facade.snapshot("arbiter"), "arbiter"))
    assert out.getvalue().splitlines()[0] == (
        "Kaeshi — Club night · Table 7 · Round 2: Ann (black) vs Bob (white)")
    assert out.getvalue().count("Kaeshi — ") == 2
    assert "Kaeshi — Club night · Table 7 · Round 3: Ann (black) vs Bob (white)" in (
        out.getvalue())
