"""Time in the service: a flag falls at its instant, a stopped clock still watches the board,
and a replay's long gap is not waited out."""

from __future__ import annotations

import asyncio

import pytest

from controller.observation import Observation
from controller.position import Position
from controller.service import sources
from controller.service.app import Service
from controller.service.config import defaults
from controller.service.core import GameCore, GameSettings
from controller.service.sources import LinkChange, LogSource, Reading, SourceEnd
from controller.squares import Color

B, W = Color.BLACK, Color.WHITE
START = Position.start()


def _obs(t: float, board: str | None = None, press: Color | None = None) -> dict:
    return {"obs": {"board": board} if board is not None else {"press": press.value}}


def _play(core: GameCore, t: float, position: Position, square: str) -> Position:
    after = position.play(square)
    for dt in (0.0, 0.05):
        core.apply(t + dt, _obs(t + dt, after.board_string()))
    core.apply(t + 0.1, _obs(t + 0.1, press=position.to_move))
    return after


@pytest.mark.parametrize("increment", [0, 5])
@pytest.mark.parametrize("late", [0.001, 0.1, 2.0])
def test_a_press_after_the_fall_does_not_save_the_player(increment, late):
    core = GameCore(GameSettings(mode="home", main=30, increment=increment))
    for t in (0.0, 0.05):
        core.apply(t, _obs(t, START.board_string()))
    core.apply(0.1, _obs(0.1, press=W))  # black's time runs from 0.1
    fall = 0.1 + 30
    after = START.play("f5")
    core.apply(fall - 1, _obs(fall - 1, after.board_string()))
    core.apply(fall - 0.5, _obs(fall - 0.5, after.board_string()))
    events = core.apply(fall + late, _obs(fall + late, press=B))  # too late, whatever polled
    (over,) = events
    assert over["reason"] == "time" and over["loser"] == "black" and over.t == fall
    assert core.game_over and core.clock.remaining(W, fall + 10) == 30


def test_moves_made_while_the_clock_stands_are_judged_one_by_one():
    core = GameCore(GameSettings(mode="home", main=600, increment=2))
    for t in (0.0, 0.05):
        core.apply(t, _obs(t, START.board_string()))
    core.apply(0.1, _obs(0.1, press=W))
    pos = _play(core, 5.0, START, "f5")
    core.apply(10.0, {"action": "pause"})  # white has used 4.9 s
    pos = _play(core, 20.0, pos, "d6")  # played on while the clock stood
    pos = _play(core, 30.0, pos, "c3")
    assert [m.square for m in core.arbiter.moves] == ["f5", "d6", "c3"]
    assert not core.arbiter.open_flags()  # no merged over_flip / extra_disc
    core.apply(40.0, {"action": "resume"})
    assert core.clock.running is pos.to_move is W  # white is on move again
    clocks = core.clocks(41.0)
    assert clocks["running"] == "white" and clocks["white"] == pytest.approx(600 - 4.9 + 2 - 1)


def _config(tmp_path, **extra):
    values = {"game.mode": "home", "source.kind": "sim", "source.speed": 1.0,
              "clock.main": 10, "journal.path": str(tmp_path / "j.sqlite"),
              "games.folder": str(tmp_path / "games"), "web.enabled": False}
    values.update(extra)
    return defaults().replace(**values)


def test_the_flag_event_is_stamped_at_the_fall_and_shown_without_another_input(tmp_path):
    """Nothing arrives after the starting press: only the fall timer can end the game."""
    board = START.board_string()
    log = [Observation(0.0, board=board), Observation(0.05, board=board),
           Observation(0.1, press=W)]

    class Quiet(LogSource):
        async def items(self):  # the log, then silence (no end, no further reading)
            async for item in super().items():
                if isinstance(item, SourceEnd):
                    break
                yield item
            await asyncio.Event().wait()

    service = Service(_config(tmp_path), source=Quiet(log, speed=100.0), time_scale=100.0)
    shown: list[dict] = []

    def on_step(events):
        shown.extend(e.to_dict() for e in events if e.event.value == "game_over")
        if shown:
            service.stop()

    service.on_step = on_step
    service.open()
    asyncio.run(asyncio.wait_for(service.run(), 10))
    (over,) = shown
    assert over["t"] == pytest.approx(0.1 + 10, abs=1e-9) and over["loser"] == "black"


def test_a_huge_gap_in_a_replayed_log_is_not_waited_out(monkeypatch):
    monkeypatch.setattr(sources, "MAX_REPLAY_WAIT", 0.01)
    board = START.board_string()
    log = [Observation(0.0, board=board), Observation(1e9, board=board)]

    async def take():
        return [item async for item in LogSource(log, speed=1.0).items()]

    items = asyncio.run(asyncio.wait_for(take(), 5))
    assert isinstance(items[0], LinkChange) and isinstance(items[-1], SourceEnd)
    assert [i.t for i in items if isinstance(i, Reading)] == [0.0, 1e9]  # times kept


def test_after_a_restart_moves_before_the_arbiter_resumes_are_each_judged(tmp_path, data_dir):
    """clock.resume = "pause": the clock stands, the players play on; nothing is merged."""
    from service_scripts import scripted_log

    from controller.service.demo import load_one_game

    game = load_one_game(data_dir / "games" / "wthor" / "WTH_2001.wtb", 0)
    log = scripted_log(game)
    presses = [i for i, o in enumerate(log) if o.press is not None]
    cfg = _config(tmp_path, **{"clock.main": 1200, "source.speed": 400.0})
    first = Service(cfg, source=LogSource(log[: presses[10] + 1], speed=400.0))
    first.open()
    first.exit_when_done = True
    asyncio.run(first.run())  # ten moves, then the power goes
    assert len(first.table.core.arbiter.moves) == 10

    rest = LogSource(log[presses[10] + 1: presses[14] + 1], speed=400.0)
    second = Service(cfg, source=rest)
    second.open()
    assert second.table.core.paused  # stands at the last journaled instant
    second.exit_when_done = False

    async def scenario() -> None:
        task = asyncio.create_task(second.run())
        while len(second.table.core.arbiter.moves) < 14:
            assert not task.done()
            await asyncio.sleep(0.01)
        second.facade.resume()  # the arbiter comes
        second.stop()
        await task

    asyncio.run(asyncio.wait_for(scenario(), 20))
    moves = second.table.core.arbiter.moves
    assert [m.square for m in moves] == game.transcript_moves()[:14]
    assert not any(e["event"] == "irregularity" for e in second.table.events)
    assert second.table.core.clock.running.value == second.table.core.arbiter.position.to_move.value


def test_pause_before_the_start_press_is_refused_with_its_reason(tmp_path):
    """A clock that never ran cannot be paused: the web action says why, the clock's
    pause button says so on the page, and the clock starts normally afterwards."""
    from controller.web.facade import ActionError

    service = Service(_config(tmp_path, **{"source.kind": "hall"}), source=LogSource([]))
    service.open()
    service.intake.reading(Reading(board=START.board_string()))
    with pytest.raises(ActionError, match="has not started yet"):
        service.facade.pause()
    service.intake.pause_button()
    assert "has not started yet" in service.table.message
    assert not service.table.core.paused and service.table.core.clock.running is None
    service.intake.reading(Reading(press=W))  # white starts black's time
    assert service.table.core.clock.running is B
    service.facade.pause()
    assert service.table.core.paused
    service.facade.resume()
    assert not service.table.core.paused and service.table.core.clock.running is B
    journal = service.keeper.journal
    inputs = [e.data.get("action") for e in journal.entries(service.table.game.id, ("input",))]
    assert inputs.count("pause") == 1  # the refused ones were never journaled
    service.keeper.journal.close()
