"""The service wired together: source -> arbiter + clock -> journal -> outputs.

These run the real Service on the event loop, fed by a replayed log (at high
speed) or by a scripted source the test controls item by item.
"""

from __future__ import annotations

import asyncio
import json
import urllib.request
from pathlib import Path

import pytest
from hand_source import QueueSource, SettledQueueSource
from service_scripts import scripted_log

from controller.arbiter import Arbiter, ArbiterConfig
from controller.cli import main as cli_main
from controller.observation import write_observations
from controller.position import Position
from controller.records import load_games
from controller.service.app import Service
from controller.service.bootclock import BootStamp
from controller.service.config import defaults
from controller.service.core import GameSettings
from controller.service.demo import load_one_game
from controller.service.journal import Journal
from controller.service.sources import LinkChange, LogSource, Reading
from controller.service.states import State
from controller.squares import Color, parse_square
from controller.web.facade import ActionError


@pytest.fixture(scope="module")
def real_game(data_dir):
    return load_one_game(data_dir / "games" / "wthor" / "WTH_2001.wtb", 0)


def _config(tmp: Path, **extra):
    values = {
        "game.mode": "home",
        "game.black": "B. Player",
        "game.white": "W. Player",
        "source.kind": "sim",
        "source.speed": 400.0,
        "journal.path": str(tmp / "journal.sqlite"),
        "games.folder": str(tmp / "games"),
        "web.enabled": False,
        "web.host": "127.0.0.1",
        "web.port": 0,
    }
    values.update(extra)
    return defaults().replace(**values)


async def _until(predicate, timeout=5.0):
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not predicate():
        assert loop.time() < end, "condition not reached in time"
        await asyncio.sleep(0.01)


def test_a_replayed_game_is_judged_journaled_and_recorded(tmp_path, real_game):
    log = scripted_log(real_game, forgotten_at=9)
    cfg = _config(tmp_path, **{"leds.driver": "web"})
    service = Service(cfg, source=LogSource(log, speed=400.0))
    plans = []
    service.on_step = lambda events: plans.append(dict(service.outputs.led_plan or {}))
    service.open()
    assert asyncio.run(service.run()) == 0

    assert service.table.states.state is State.GAME_OVER
    files = sorted(p.suffix for p in service.lifecycle.finished_files)
    assert files == [".ggf", ".json", ".txt"]
    rec = load_games(tmp_path / "games" / f"{service.table.game.id}.json")[0]
    pure = Arbiter(ArbiterConfig(clock=True))
    for obs in log:
        pure.feed(obs)
    assert [(m.player, m.square) for m in rec.moves] == [
        (m.player, m.square) for m in pure.record().moves
    ]
    assert rec.black == "B. Player" and rec.result == real_game.result
    assert rec.time_control == "20:00"
    assert all(m.time is not None and m.time > 0 for m in rec.moves if m.square)
    ggf = (tmp_path / "games" / f"{service.table.game.id}.ggf").read_text()
    assert "Black did not turn the disc on e5" in ggf and "PB[B. Player]" in ggf
    txt = (tmp_path / "games" / f"{service.table.game.id}.txt").read_text()
    assert "# move 9 black" in txt and txt.splitlines()[-1] == "".join(real_game.transcript_moves())
    # The flagged disc was lit as "still to turn" in home mode, then cleared.
    flag = next(e for e in service.table.events if e["event"] == "irregularity")
    assert any(flag["squares"][0] in p for p in plans)

    journal = Journal(tmp_path / "journal.sqlite")
    states = [e.data["to"] for e in journal.entries(service.table.game.id, ("state",))]
    assert states[0] == "waiting_for_board" and states[-1] == "game_over"
    assert "playing" in states
    # A still board is not journaled frame by frame: fewer inputs than readings.
    inputs = list(journal.entries(service.table.game.id, ("input",)))
    assert len(inputs) < len(log)
    assert journal.game(service.table.game.id).finished is not None


def test_resume_pauses_the_clock_at_the_last_journaled_instant(tmp_path, real_game):
    log = scripted_log(real_game)
    half = log[: len(log) // 2]
    wall, up = [1_000_000.0], [500.0]
    boot = lambda: BootStamp("boot-a", up[0])  # noqa: E731
    cfg = _config(tmp_path)
    first = Service(cfg, source=LogSource(half, speed=400.0), wall=lambda: wall[0],
                    boot_clock=boot)
    first.open()
    asyncio.run(first.run())
    assert not first.table.core.game_over
    moves = len(first.table.core.arbiter.moves)
    last_clock = list(Journal(tmp_path / "journal.sqlite").entries(first.table.game.id,
                                                                   ("clock",)))[-1]
    assert last_clock.data["running"] is not None and not last_clock.data["paused"]

    wall[0] += 300.0  # five minutes of power cut
    up[0] += 300.0
    second = Service(cfg, source=QueueSource(), wall=lambda: wall[0], boot_clock=boot)
    second.open()
    assert second.table.game.id == first.table.game.id
    assert len(second.table.core.arbiter.moves) == moves
    assert second.table.core.arbiter.position == first.table.core.arbiter.position
    assert second.table.states.state is State.PAUSED
    clocks = second.table.core.clocks(second.time.now() + 50)  # paused: no time runs
    running = last_clock.data["running"]
    assert clocks[running] == pytest.approx(first.table.core.clocks(last_clock.t)[running],
                                            abs=1e-6)
    assert "resumed after an interruption: 300.0 s by the boot clock" in second.table.message
    second.facade.resume()
    assert not second.table.core.paused
    # The replay continues after the last journaled reading; what follows it in the
    # log can only be repeats of a still board, which were not journaled.
    cursor = second.keeper.resume_cursor()
    assert len(half) - 3 <= cursor <= len(half)
    assert all(o.board == half[cursor - 1].board for o in half[cursor:])


def test_charge_policy_charges_the_outage_to_the_side_on_move(tmp_path, real_game):
    log = scripted_log(real_game)
    half = log[: len(log) // 3]
    wall, up = [1_000_000.0], [500.0]
    boot = lambda: BootStamp("boot-a", up[0])  # noqa: E731
    cfg = _config(tmp_path, **{"source.speed": 1.0, "clock.resume": "charge"})
    first = Service(cfg, source=LogSource(half, speed=400.0), wall=lambda: wall[0],
                    boot_clock=boot)
    first.open()
    asyncio.run(first.run())
    t_last = first.table.core.t
    running = first.table.core.clock.running
    before = first.table.core.clocks(t_last)[running.value]
    wall[0] += 120.0
    up[0] += 120.0
    second = Service(cfg, source=QueueSource(), wall=lambda: wall[0], boot_clock=boot)
    second.open()
    after = second.table.core.clocks(second.time.now())[running.value]
    assert before - after == pytest.approx(120.0, abs=0.5)
    assert not second.table.core.paused


def test_sensor_lost_is_a_state_and_the_game_goes_on(tmp_path):
    source = QueueSource()
    service = Service(_config(tmp_path, **{"source.kind": "hall"}), source=source)
    service.open()
    start = Position.start().board_string()
    after_f5 = Position.start().play("f5").board_string()

    async def scenario():
        task = asyncio.create_task(service.run())
        await _until(lambda: service.table.states.state is State.WAITING_FOR_BOARD)
        source.queue.put_nowait(Reading(board="-" * 64))
        await _until(lambda: service.table.states.state is State.WAITING_FOR_START)
        for _ in range(2):
            source.queue.put_nowait(Reading(board=start))
        source.queue.put_nowait(Reading(press=Color.WHITE))
        await _until(lambda: service.table.states.state is State.PLAYING)
        source.queue.put_nowait(LinkChange(False, "disconnected: cable pulled"))
        await _until(lambda: service.table.states.state is State.SENSOR_LOST)
        assert "cable pulled" in service.facade.snapshot()["message"]
        # A driver that fails outright is a lost sensor too, not a crash.
        source.queue.put_nowait(OSError("device vanished"))
        await asyncio.sleep(0.05)
        assert service.table.states.state is State.SENSOR_LOST and not task.done()
        await asyncio.sleep(2.1)  # the service retries the source
        source.queue.put_nowait(LinkChange(True, "reconnected"))
        await _until(lambda: service.table.states.state is State.PLAYING)
        for _ in range(2):
            source.queue.put_nowait(Reading(board=after_f5))
        source.queue.put_nowait(Reading(press=Color.BLACK))
        await _until(lambda: len(service.table.core.arbiter.moves) == 1)
        service.stop()
        await task

    asyncio.run(scenario())
    assert service.table.events[0]["square"] == "f5"
    notes = [
        e.data for e in Journal(tmp_path / "journal.sqlite").entries(service.table.game.id,
                                                                     ("note",))
    ]
    assert {"link": "down", "detail": "disconnected: cable pulled"} in notes


def _f5_game(tmp_path: Path, source: QueueSource) -> tuple[Service, str]:
    """A game on a scripted source, and the board with black's f5 down, e5 still to turn."""
    service = Service(_config(tmp_path, **{"source.kind": "hall"}), source=source)
    service.open()
    f5 = list(Position.start().board_string())
    f5[parse_square("f5")] = "X"
    return service, "".join(f5)


def test_a_board_reported_once_counts_once_it_stood_and_resume_agrees(tmp_path):
    """A raw source may report a change once (a camera whose board changed again before
    a second frame agreed): with no further reading, the service tells the arbiter
    that time has passed, so the overlay follows the board."""
    source = QueueSource()
    service, f5 = _f5_game(tmp_path, source)
    start = Position.start()

    async def scenario():
        task = asyncio.create_task(service.run())
        await _until(lambda: service.table.states.state is State.WAITING_FOR_BOARD)
        source.queue.put_nowait(Reading(board=start.board_string()))
        source.queue.put_nowait(Reading(press=Color.WHITE))
        await _until(lambda: service.table.states.state is State.PLAYING)
        source.queue.put_nowait(Reading(board=f5))
        await _until(lambda: service.table.core.arbiter.overlay().pending == ["e5"])
        source.queue.put_nowait(Reading(board=start.play("f5").board_string()))
        await _until(lambda: service.table.core.arbiter.overlay().pending == [])
        assert service.table.core.arbiter.last_board == start.play("f5").board_string()
        service.stop()
        await task

    asyncio.run(scenario())
    inputs = [e.data for e in Journal(tmp_path / "journal.sqlite").entries(service.table.game.id,
                                                                           ("input",))]
    assert inputs.count({"action": "elapse"}) == 2
    resumed = Service(service.config, source=QueueSource())
    resumed.open()
    assert resumed.table.core.arbiter.stable.masks() == service.table.core.arbiter.stable.masks()
    assert resumed.table.core.arbiter.overlay() == service.table.core.arbiter.overlay()


def test_a_settled_source_counts_a_board_at_once_and_resume_keeps_it(tmp_path):
    """The last flip, reported once, and the press at once after it: no forgotten flip."""
    source = SettledQueueSource()
    service, f5 = _f5_game(tmp_path, source)
    start = Position.start()
    for item in (Reading(board=start.board_string()), Reading(press=Color.WHITE),
                 Reading(board=f5), Reading(board=start.play("f5").board_string()),
                 Reading(press=Color.BLACK)):
        source.queue.put_nowait(item)  # all read in one go, milliseconds apart

    async def scenario():
        task = asyncio.create_task(service.run())
        await _until(lambda: len(service.table.core.arbiter.moves) == 1)
        service.stop()
        await task

    asyncio.run(scenario())
    assert [(e["event"], e.get("square"), e.get("flips")) for e in service.table.events] == [
        ("move", "f5", ["e5"]),
    ]
    journal = Journal(tmp_path / "journal.sqlite")
    inputs = [e.data for e in journal.entries(service.table.game.id, ("input",))]
    assert {"action": "elapse"} not in inputs  # nothing was left for time to confirm
    journal.close()
    assert service.table.game.info["settings"]["settled"] is True
    # The journal, not the source at hand, decides how a resumed game reads its board.
    resumed = Service(service.config, source=QueueSource())
    resumed.open()
    assert resumed.table.core.arbiter.config.settled
    assert resumed.table.events == service.table.events
    # A journal written before the setting existed replays its readings as raw ones.
    old = {k: v for k, v in service.table.game.info["settings"].items() if k != "settled"}
    assert not GameSettings.from_dict(old).settled


def test_arbiter_actions_and_the_web_page(tmp_path):
    source = QueueSource()
    cfg = _config(
        tmp_path,
        **{
            "source.kind": "hall",
            "web.enabled": True,
            "web.token": "s3cret-token",
            "game.mode": "tournament",
        },
    )
    service = Service(cfg, source=source)
    service.open()
    start = Position.start().board_string()

    def fetch(path, token=None):
        req = urllib.request.Request(service.outputs.url + path)
        if token:
            req.add_header("Authorization", f"Bearer {token}")
        with urllib.request.urlopen(req, timeout=5) as r:
            return json.loads(r.read())

    async def scenario():
        task = asyncio.create_task(service.run())
        await _until(lambda: service.outputs.url != "")
        for _ in range(2):
            source.queue.put_nowait(Reading(board=start))
        source.queue.put_nowait(Reading(press=Color.WHITE))
        await _until(lambda: service.table.core.clock.running is Color.BLACK)
        loop = asyncio.get_running_loop()
        state = await loop.run_in_executor(None, fetch, "/api/state?view=player")
        assert state["state"] == "playing" and state["clocks"]["running"] == "black"
        assert "irregularities" not in state  # tournament: nothing advisory for players
        assert not state.get("flags") and all("comment" not in m for m in state["moves"])
        arb = await loop.run_in_executor(None, fetch, "/api/state?view=arbiter", "s3cret-token")
        assert arb["irregularities"] == [] and "legal" in arb

        service.facade.pause()
        assert service.table.states.state is State.PAUSED
        with pytest.raises(ActionError, match="already paused"):
            service.facade.pause()
        left = service.table.core.clocks(service.time.now())["black"]
        await asyncio.sleep(0.1)
        assert service.table.core.clocks(service.time.now())["black"] == left
        service.facade.adjust_time(Color.BLACK, -60)
        assert service.table.core.clocks(service.time.now())["black"] == pytest.approx(left - 60)
        service.facade.resume()
        assert service.table.states.state is State.PLAYING
        service.facade.correct_position(Position.start().play("d3").board_string())
        assert (
            service.table.core.arbiter.position.board_string()
            == Position.start().play("d3").board_string()
        )
        service.stop()
        await task

    asyncio.run(scenario())
    actions = [
        e.data
        for e in Journal(tmp_path / "journal.sqlite").entries(service.table.game.id, ("input",))
        if "action" in e.data
    ]
    assert [a["action"] for a in actions] == ["pause", "adjust", "resume", "correct"]


def test_games_command_lists_and_exports(tmp_path, real_game, capsys):
    log = scripted_log(real_game, forgotten_at=9)
    service = Service(_config(tmp_path), source=LogSource(log, speed=400.0))
    service.open()
    asyncio.run(service.run())
    folder = str(tmp_path / "games")
    assert cli_main(["games", "--folder", folder, "list"]) == 0
    out = capsys.readouterr().out
    assert service.table.game.id in out and "B. Player vs W. Player" in out and "1 flagged" in out
    assert cli_main(["games", "--folder", folder, "export", service.table.game.id, "txt"]) == 0
    assert "".join(real_game.transcript_moves()) in capsys.readouterr().out
    wtb = tmp_path / "out.wtb"
    assert (
        cli_main(["games", "--folder", folder, "export", service.table.game.id, "wtb",
                  "--out", str(wtb)])
        == 0
    )
    assert load_games(wtb)[0].transcript_moves() == real_game.transcript_moves()
    assert cli_main(["games", "--folder", folder, "export", "nope", "ggf"]) == 1
    assert "no game 'nope'" in capsys.readouterr().err


def test_run_refuses_a_bad_config_naming_key_and_line(tmp_path, capsys):
    cfg = tmp_path / "k.toml"
    cfg.write_text('[source]\nkind = "sim"\nspede = 3\n')
    assert cli_main(["run", "--config", str(cfg)]) == 1
    err = capsys.readouterr().err
    assert "k.toml line 3: unknown key 'source.spede'" in err and "Traceback" not in err


def test_sim_source_from_a_log_file(tmp_path, real_game):
    log_path = tmp_path / "log.jsonl"
    with open(log_path, "w") as f:
        write_observations(scripted_log(real_game), f)
    cfg = _config(tmp_path, **{"source.log": str(log_path)})
    assert cli_main(["run", "--config", str(_write_toml(tmp_path, cfg))]) == 0
    (game,) = Journal(tmp_path / "journal.sqlite").games()
    assert game.finished is not None
    assert (
        load_games(tmp_path / "games" / f"{game.id}.json")[0].transcript_moves()
        == real_game.transcript_moves()
    )


def _write_toml(tmp: Path, cfg) -> Path:
    lines = []
    for section, values in cfg.as_dict().items():
        lines.append(f"[{section}]")
        for k, v in values.items():
            lines.append(f"{k} = {json.dumps(v)}")
    path = tmp / "kaeshi.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_game_that_ended_just_before_a_crash_is_written_on_restart(
    tmp_path, real_game, monkeypatch
):
    log = scripted_log(real_game)
    cfg = _config(tmp_path)
    first = Service(cfg, source=LogSource(log, speed=400.0))
    monkeypatch.setattr(first.lifecycle, "finish_game", lambda: None)  # "crashed" before writing
    first.open()
    asyncio.run(first.run())
    assert first.table.core.game_over and not (tmp_path / "games").exists()
    second = Service(cfg, source=QueueSource())
    second.open()
    assert second.table.states.state is State.GAME_OVER
    assert sorted(p.suffix for p in second.lifecycle.finished_files) == [".ggf", ".json", ".txt"]
    assert Journal(tmp_path / "journal.sqlite", writer=False).unfinished_game() is None


def test_start_position_is_recognised_under_a_hand():
    from controller.service.core import _matches_start

    start = Position.start().board_string()
    assert _matches_start(start)
    assert _matches_start("?" * 5 + start[5:])
    assert not _matches_start("?" * 64)
    hidden_centre = start[:27] + "?" + start[28:]
    assert not _matches_start(hidden_centre)
    assert not _matches_start(Position.start().play("f5").board_string())


def test_a_new_game_begins_when_the_start_position_is_set_up_again(tmp_path):
    source = QueueSource()
    service = Service(_config(tmp_path, **{"source.kind": "hall"}), source=source)
    service.open()
    start = Position.start().board_string()
    full = "X" * 40 + "O" * 24  # a finished game as the arbiter rules it

    async def scenario():
        task = asyncio.create_task(service.run())
        for _ in range(2):
            source.queue.put_nowait(Reading(board=start))
        await _until(lambda: service.table.states.state is State.PLAYING)
        first = service.table.game.id
        service.facade.correct_position(full)
        assert service.table.states.state is State.GAME_OVER
        assert service.lifecycle.finished_files
        await asyncio.sleep(1.1)  # game ids are start times, to the second
        for _ in range(2):
            source.queue.put_nowait(Reading(board=start))
        await _until(lambda: service.table.game.id != first)
        await _until(lambda: service.table.states.state is State.PLAYING)
        service.stop()
        await task
        return first

    first = asyncio.run(scenario())
    games = Journal(tmp_path / "journal.sqlite").games()
    assert [g.id for g in games] == [first, service.table.game.id]
    assert games[0].finished is not None and games[1].finished is None
    rec = load_games(tmp_path / "games" / f"{first}.json")[0]
    assert rec.result == (40, 24)
    assert any("position set by the arbiter" in c for c in rec.comments)


def test_tournament_player_view_carries_no_advice(tmp_path, real_game):
    from controller.web.facade import player_safe

    log = scripted_log(real_game, forgotten_at=3)
    # stop right after the mover pressed with the disc unturned (before the challenge)
    presses = [i for i, o in enumerate(log) if o.press is not None]
    cut = presses[3] + 1
    service = Service(_config(tmp_path, **{"game.mode": "tournament"}),
                      source=LogSource(log[:cut], speed=400.0))
    service.open()
    asyncio.run(service.run())
    arbiter = service.facade.snapshot("arbiter")
    assert arbiter["irregularities"][0]["kind"] == "forgotten_flip"
    assert arbiter["flags"] and "forgotten_flip" in arbiter["moves"][2]["comment"]
    player = player_safe(service.facade.snapshot("player"))
    text = json.dumps(player)
    assert "forgotten_flip" not in text and not player.get("flags")
    assert len(player["moves"]) == 3


@pytest.mark.parametrize(("mode", "shown"), [("home", True), ("tournament", False)])
def test_legal_moves_reach_the_home_page_on_request_and_never_a_tournament(
    tmp_path, real_game, mode, shown
):
    from controller.web.facade import player_safe

    log = scripted_log(real_game, forgotten_at=None)
    presses = [i for i, o in enumerate(log) if o.press is not None]
    service = Service(_config(tmp_path, **{"game.mode": mode, "leds.show_legal": False}),
                      source=LogSource(log[: presses[2] + 1], speed=400.0))
    service.open()
    asyncio.run(service.run())
    expected = service.table.core.arbiter.position.legal_squares()
    assert expected
    player = player_safe(service.facade.snapshot("player"))
    assert player.get("legal", []) == (expected if shown else [])
    # the LEDs light legal moves (empty squares) only when configured, in every mode
    assert not set(player.get("overlay", {})) & set(expected)


def test_a_fallen_flag_ends_the_game_on_time_and_replays_the_same(tmp_path):
    source = QueueSource()
    cfg = _config(tmp_path, **{"source.kind": "hall", "clock.main": 10})
    service = Service(cfg, source=source, time_scale=50.0)  # 10 s of clock in 0.2 s
    service.open()
    start = Position.start().board_string()

    async def scenario():
        task = asyncio.create_task(service.run())
        for _ in range(2):
            source.queue.put_nowait(Reading(board=start))
        source.queue.put_nowait(Reading(press=Color.WHITE))
        await _until(lambda: service.table.states.state is State.GAME_OVER)
        service.stop()
        await task

    asyncio.run(scenario())
    over = service.table.events[-1]
    assert over["event"] == "game_over" and over["reason"] == "time"
    assert over["winner"] == "white" and over["loser"] == "black"
    rec = load_games(tmp_path / "games" / f"{service.table.game.id}.json")[0]
    assert rec.result_note == "time"
    # The flag decision is an input of its own: a replay reaches the same end.
    replayed = Service(cfg, source=QueueSource())
    replayed.keeper.open(tmp_path / "journal.sqlite")
    replayed.lifecycle.resume(replayed.keeper.journal.game(service.table.game.id))
    assert replayed.table.core.game_over and replayed.table.events[-1] == over


def test_a_bad_observation_log_stops_start_up_naming_file_and_line(tmp_path, capsys):
    log = tmp_path / "log.jsonl"
    log.write_text('{"t": 0, "press": "white"}\n{"t": 1, "board": "short"}\n')
    cfg = _write_toml(tmp_path, _config(tmp_path, **{"source.log": str(log)}))
    assert cli_main(["run", "--config", str(cfg)]) == 1
    err = capsys.readouterr().err
    assert f"observation log {log}: line 2" in err and "Traceback" not in err
    assert not (tmp_path / "journal.sqlite").exists()  # nothing was started


def test_a_game_left_irregular_is_still_listed_and_exported(tmp_path, capsys):
    """A forgotten flip nobody points out changes the position for good; the record's
    moves then no longer replay under the rules, but the game is still there."""
    from controller.observation import Observation
    from controller.service.games import write_game_files

    start = Position.start()
    unflipped = list(start.play("f5").board_string())
    unflipped[parse_square("e5")] = "O"  # black leaves e5 white
    physical = Position.from_board_string("".join(unflipped), Color.WHITE)
    assert physical.is_legal("g5") and not start.play("f5").is_legal("g5")
    after = physical.play("g5").board_string()
    arbiter = Arbiter(ArbiterConfig(clock=True))
    log = [Observation(0.0, board=start.board_string()), Observation(0.1, press=Color.WHITE)]
    t = 1.0
    for board, who in (("".join(unflipped), Color.BLACK), (after, Color.WHITE)):
        log += [Observation(t, board=board), Observation(t + 0.1, board=board),
                Observation(t + 0.2, press=who)]
        t += 1.0
    for obs in log:
        arbiter.feed(obs)
    rec = arbiter.record()
    rec.black, rec.white = "Ann", "Bob"
    folder = tmp_path / "games"
    write_game_files(rec, "20260101-120000", folder)

    assert cli_main(["games", "list", "--folder", str(folder)]) == 0
    out = capsys.readouterr().out
    assert "20260101-120000  Ann vs Bob" in out and "2 moves  1 flagged" in out
    assert "position left irregular" in out
    assert cli_main(["games", "export", "20260101-120000", "ggf", "--folder", str(folder)]) == 0
    ggf = capsys.readouterr().out
    assert "B[f5" in ggf and "W[g5" in ggf and "forgotten_flip e5" in ggf
    assert cli_main(["games", "export", "20260101-120000", "wtb", "--folder", str(folder),
                     "--out", str(tmp_path / "x.wtb")]) == 1
    assert "cannot be written as WTHOR" in capsys.readouterr().err
