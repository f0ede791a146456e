"""Physical-play simulator: the observation log a real board gives for a recorded game."""

from controller.simulator.game import SimOptions, Simulation, simulate_game
from controller.simulator.plan import Injected
from controller.simulator.random_games import random_game

__all__ = ["Injected", "SimOptions", "Simulation", "random_game", "simulate_game"]
