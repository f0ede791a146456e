"""The outage across a restart is measured on the boot clock, never on the wall clock.

A Pi has no real-time clock: ``fake-hwclock`` and a late NTP sync move the wall
clock by hours while the service is down. Within one boot the outage is the boot
clock's; across a reboot nothing measures it, so nothing is charged by itself: the
clock is paused and the arbiter is told what the wall clock says.
"""

from __future__ import annotations

import asyncio

import pytest
from service_scripts import scripted_log

from controller.service.app import Service
from controller.service.bootclock import BootStamp
from controller.service.config import defaults
from controller.service.demo import load_one_game
from controller.service.sources import LogSource

OUTAGE = 7.0


@pytest.fixture(scope="module")
def real_game(data_dir):
    return load_one_game(data_dir / "games" / "wthor" / "WTH_2001.wtb", 0)


@pytest.mark.parametrize("rebooted", [False, True])
@pytest.mark.parametrize("jump", [3600.0, -3600.0])
@pytest.mark.parametrize("policy", ["charge", "continue", "pause"])
def test_a_wall_clock_jump_across_a_restart_is_never_charged(tmp_path, real_game, policy,
                                                            jump, rebooted):
    log = scripted_log(real_game)[:200]
    wall, stamp = [1_700_000_000.0], [BootStamp("boot-a", 900.0)]
    cfg = defaults().replace(**{
        "game.mode": "home", "source.kind": "sim", "source.speed": 1.0,
        "clock.resume": policy, "journal.path": str(tmp_path / "j.sqlite"),
        "games.folder": str(tmp_path / "games"), "web.enabled": False})
    first = Service(cfg, source=LogSource(log, speed=400.0), wall=lambda: wall[0],
                    boot_clock=lambda: stamp[0])
    first.open()
    asyncio.run(first.run())  # the log ends mid-game: the service is gone
    assert not first.table.core.game_over
    side = first.table.core.clock.running.value
    left = first.table.core.clocks(first.table.core.t)[side]

    wall[0] += jump + OUTAGE  # down for 7 s, and the wall clock moved meanwhile
    stamp[0] = (BootStamp("boot-b", 25.0) if rebooted
                else BootStamp("boot-a", stamp[0].uptime + OUTAGE))
    second = Service(cfg, source=LogSource([]), wall=lambda: wall[0],
                     boot_clock=lambda: stamp[0])
    second.open()
    now = second.time.now()
    charged = left - second.table.core.clocks(now)[side]
    message = second.table.message
    second.keeper.journal.close()

    measured = not rebooted
    if policy == "charge" and measured:
        assert charged == pytest.approx(OUTAGE, abs=0.05)
        assert not second.table.core.paused
        assert f"{OUTAGE:.1f} s by the boot clock" in message and "moved meanwhile" in message
    else:
        assert charged == pytest.approx(0.0, abs=0.05)
    paused = policy == "pause" or (policy == "charge" and not measured)
    assert second.table.core.paused is paused
    if rebooted:  # the arbiter is told what the wall clock says, and why it is all
        assert f"{jump + OUTAGE:.0f} s by the wall clock" in message
        assert "the machine restarted" in message
        if policy == "charge":
            assert "nothing charged" in message
    else:
        assert f"{OUTAGE:.1f} s by the boot clock" in message


def test_a_damaged_stamp_is_never_charged(tmp_path, real_game):
    """The last step's boot-clock stamp carries its own checksum: a damaged one counts
    as unknown (paused, nothing charged), never as a wrong figure."""
    import sqlite3

    log = scripted_log(real_game)[:120]
    stamp = [BootStamp("boot-a", 900.0)]
    cfg = defaults().replace(**{
        "game.mode": "home", "source.kind": "sim", "source.speed": 1.0,
        "clock.resume": "charge", "journal.path": str(tmp_path / "j.sqlite"),
        "games.folder": str(tmp_path / "games"), "web.enabled": False})
    first = Service(cfg, source=LogSource(log, speed=400.0), boot_clock=lambda: stamp[0])
    first.open()
    asyncio.run(first.run())
    db = sqlite3.connect(tmp_path / "j.sqlite")
    value = db.execute("SELECT value FROM meta WHERE key='stamp'").fetchone()[0]
    db.execute("UPDATE meta SET value=? WHERE key='stamp'", (value.replace("900.0", "100.0"),))
    db.commit()
    db.close()
    stamp[0] = BootStamp("boot-a", 905.0)
    second = Service(cfg, source=LogSource([]), boot_clock=lambda: stamp[0])
    second.open()
    assert second.table.core.paused and "nothing charged" in second.table.message
    second.keeper.journal.close()
