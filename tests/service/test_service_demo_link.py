"""`kaeshi demo` whose board link cannot open: it says why, then stops or falls back."""

from __future__ import annotations

from pathlib import Path

import pytest
import serial_faults

from controller.cli import main

REASON = "at 250000 baud: Function not implemented (errno 38)"


@pytest.fixture
def no_termios2(monkeypatch: pytest.MonkeyPatch):
    yield from serial_faults.unconfigurable_port(monkeypatch)


def _demo(tmp_path: Path, data_dir: Path, board: str) -> list[str]:
    wthor = data_dir / "games" / "wthor" / "WTH_2001.wtb"
    return ["demo", "--out", str(tmp_path / "games"), "--seconds", "5", "--board", board,
            "--wthor", str(wthor), "--no-web", "--no-review"]


def test_demo_on_the_board_stops_with_the_reason(
        tmp_path: Path, data_dir: Path, no_termios2: str, capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(_demo(tmp_path, data_dir, "sim")) == 1
    err = capsys.readouterr().err
    assert "the simulated sensor board's link cannot be opened: cannot configure the " \
           "sensor board port " in err
    assert REASON in err
    assert not list((tmp_path / "games").glob("*.json"))  # no game was played into it


def test_demo_auto_falls_back_to_the_replay_and_says_so(
        tmp_path: Path, data_dir: Path, no_termios2: str, capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(_demo(tmp_path, data_dir, "auto")) == 0
    out = capsys.readouterr().out
    assert "(the simulated sensor board's link cannot be opened: cannot configure" in out
    assert REASON in out and "replaying the observations directly)" in out
    assert "board: the replayed observations" in out
    assert "illegal_pass" not in out
    assert len(list((tmp_path / "games").glob("*.json"))) == 1  # the game was played


def test_a_link_lost_mid_game_ends_the_demo(monkeypatch: pytest.MonkeyPatch) -> None:
    """The players cannot reseat a cable: once the link stayed down, the demo stops."""
    import asyncio
    from types import SimpleNamespace

    from controller.commands import demo
    from controller.service.states import State

    monkeypatch.setattr(demo, "LINK_GIVE_UP", 0.2)
    stopped: list[bool] = []
    table = SimpleNamespace(states=SimpleNamespace(state=State.PLAYING))
    service = SimpleNamespace(table=table, stop=lambda: stopped.append(True))

    async def scenario() -> None:
        players = asyncio.create_task(asyncio.sleep(30))  # still playing
        watch = asyncio.create_task(demo._give_up_on_a_lost_link(service, players))
        await asyncio.sleep(0.5)
        assert not stopped and not watch.done()  # a link that is up never ends it
        service.table.states.state = State.SENSOR_LOST
        await asyncio.wait_for(watch, 5)
        players.cancel()

    asyncio.run(scenario())
    assert stopped == [True]
