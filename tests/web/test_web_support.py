"""What the page tests rely on in ``web_support`` is true."""

from __future__ import annotations

from web_support import SimulatedGame

from controller.arbiter import Mode
from controller.records import write_ggf


def test_web_support_game_is_judged_by_the_real_arbiter() -> None:
    game = SimulatedGame(Mode.TOURNAMENT)
    game.start_clock()
    game.play("f5", forget=("e5",))
    snap = game.snapshot("arbiter")
    assert [m["square"] for m in snap["moves"]] == ["f5"]
    assert snap["irregularities"] == [
        {"player": "black", "kind": "forgotten_flip", "squares": ["e5"], "n": 1,
         "pointed_out": False}
    ]
    assert snap["flow"]["stage"] == "may_point_out" and snap["flow"]["press"] == "white"
    assert snap["clocks"]["running"] == "white"
    assert "f5" in write_ggf(game.game_record())


def test_web_support_change_notifier_counts_every_change() -> None:
    game = SimulatedGame(Mode.HOME)
    v = game.notifier.version
    game.start_clock()
    game.play("f5")
    assert game.notifier.version > v
    assert game.snapshot("player")["moves"][0]["square"] == "f5"
