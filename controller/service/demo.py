"""The demo: a real WTHOR game played by simulated players on simulated hardware.

The players replay a game from the 2001 WTHOR database with a clock running. One
move leaves a disc unturned (返し忘れ); the opponent presses the clock back and
points it out, the mover turns the disc and presses again — so the demo shows a
flag raised and then cleared, as at a real table. The observation log is replayed
through the very same service as ``kaeshi run``, only faster.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from controller.errors import KaeshiError
from controller.records import wthor
from controller.records.model import GameRecord
from controller.simulator import SimOptions, Simulation, simulate_game

if TYPE_CHECKING:
    from controller.hall.simboard import SimBoard
    from controller.service.app import Service

WTHOR_FILE = Path("games") / "wthor" / "WTH_2001.wtb"
#: A game of that file (its index; ``kaeshi demo --game`` counts from 1, as
#: ``kaeshi simulate --game`` does, so this is game 3 there) and a simulator seed whose
#: only irregularity is a forgotten flip that the opponent points out; checked at start,
#: searched again if the simulator changed.
DEMO_GAME = 2
DEMO_SEED = 22
ERROR_RATE = 0.03
#: Wall-clock seconds the replay should take (the demo must end within two minutes).
TARGET_SECONDS = 75.0


@dataclass
class DemoGame:
    record: GameRecord
    simulation: Simulation
    seed: int
    speed: float

    @property
    def flip(self) -> tuple[int, str, list[str]]:
        """Move number, player and squares of the injected forgotten flip."""
        inj = self.simulation.injected[0]
        return inj.number, inj.player.value, inj.flags["forgotten_flip"]


def find_data_dir() -> Path:
    """The shared data folder: ``$KAESHI_SHARED/data``, else a ``shared`` folder beside the
    project or the current folder."""
    candidates = []
    if os.environ.get("KAESHI_SHARED"):
        candidates.append(Path(os.environ["KAESHI_SHARED"]) / "data")
    project = Path(__file__).resolve().parents[2]
    candidates += [project.parent / "shared" / "data", Path.cwd().parent / "shared" / "data",
                   Path.cwd() / "shared" / "data"]
    for c in candidates:
        if (c / WTHOR_FILE).is_file():
            return c
    tried = ", ".join(str(c / WTHOR_FILE) for c in candidates)
    raise KaeshiError(
        f"the demo needs the WTHOR database {WTHOR_FILE.name}; not found at {tried}. "
        "Set KAESHI_SHARED to the folder holding data/games/wthor/, or pass --wthor FILE."
    )


def load_one_game(path: Path, index: int) -> GameRecord:
    """Game ``index`` (0-based) of a ``.wtb`` file, with names — without replaying the rest."""
    data = path.read_bytes()
    size = wthor.GAME.size
    count = (len(data) - wthor.HEADER.size) // size
    if not 0 <= index < count:
        # said as a person counts (from 1), as every command takes a game's number
        raise KaeshiError(f"{path}: no game {index + 1}: the file holds {count}, "
                          f"numbered 1 to {count}")
    start = wthor.HEADER.size + index * size
    one = data[: wthor.HEADER.size] + data[start : start + size]
    jou, trn = wthor.name_files(path)
    players = wthor.read_names(jou, wthor.PLAYER_RECORD) if jou else None
    tournaments = wthor.read_names(trn, wthor.TOURNAMENT_RECORD) if trn else None
    scan = wthor.scan_wthor_bytes(one, f"{path} game {index + 1}", players, tournaments)
    return scan.records()[0]


def _fits(sim: Simulation) -> bool:
    inj = sim.injected
    return (len(inj) == 1 and list(inj[0].flags) == ["forgotten_flip"]
            and inj[0].fix == "opponent")


def build_demo(wthor_path: Path | None = None, game_index: int = DEMO_GAME,
               seconds: float = TARGET_SECONDS) -> DemoGame:
    path = wthor_path or find_data_dir() / WTHOR_FILE
    record = load_one_game(path, game_index)
    seeds = [DEMO_SEED, *(s for s in range(400) if s != DEMO_SEED)]
    for seed in seeds:
        sim = simulate_game(record, SimOptions(errors=ERROR_RATE, seed=seed, clock=True))
        if _fits(sim):
            break
    else:
        raise KaeshiError(f"no simulation of game {game_index + 1} shows a corrected "
                          "forgotten flip")
    duration = sim.observations[-1].t - sim.observations[0].t
    speed = max(1.0, round(duration / seconds, 2))
    return DemoGame(record, sim, seed, speed)


async def play_on_board(sim: SimBoard, service: Service, demo: DemoGame) -> None:
    """The simulated players at the simulated sensor board.

    Their hands lay each frame of the simulation on the board in (sped-up) real time;
    their presses go to the service the way the GPIO clock's buttons do. Like a
    player who glances at the board before pressing, a press waits (briefly) until
    the service has read the board the hand left (the sensor board's readings are
    settled, so that reading counts at once).
    """
    loop = asyncio.get_running_loop()
    observations = demo.simulation.observations
    began = loop.time()
    t0 = observations[0].t
    board = ""
    for obs in observations:
        delay = began + (obs.t - t0) / demo.speed - loop.time()
        if delay > 0:
            await asyncio.sleep(delay)
        if obs.board is not None:
            if obs.board != board:
                board = obs.board
                await loop.run_in_executor(None, sim.set_board, board)
        elif obs.press is not None:
            for _ in range(100):
                core = service.table.core
                if core is not None and core.arbiter.last_board == board:
                    break
                await asyncio.sleep(0.01)
            service.intake.press(obs.press)
    for _ in range(300):
        if service.table.core is not None and service.table.core.game_over:
            break
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.5)  # let the last picture reach the terminal and the web page
    service.replay_done()
