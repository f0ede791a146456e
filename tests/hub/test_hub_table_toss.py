"""The table's side of the 伏せ石: a ``toss`` order from the hub reaches the game.

The table's clock model, its arbiter, its game record (GGF ``DW[]``) and the result
its players sign all name the holder of the draw-win right, so a 32–32 board is won
at the table; the order is journaled like the arbiter's buttons, so a restarted
table resumes the same game with the same holder.
"""

from __future__ import annotations

import pytest

from controller.events import Event, EventKind
from controller.hall_protocol.mqtt import BrokerSettings
from controller.hall_protocol.protocol import decode_command, encode_command, toss
from controller.observation import Observation
from controller.records import load_games
from controller.records.ggf import read_ggf_text, write_ggf
from controller.service.app import Service
from controller.service.config import defaults
from controller.service.core import ActionRefused, GameCore, GameSettings
from controller.service.demo import find_data_dir
from controller.service.sources import LogSource
from controller.simulator import SimOptions, simulate_game
from controller.squares import Color
from controller.table_link.link import HubLink
from controller.table_link.publisher import LinkSettings

#: A real game of the WTHOR file the hall simulation replays that ends 32–32.
DRAWN = 48


def drawn_game() -> list[Observation]:
    record = load_games(find_data_dir() / "games" / "wthor" / "WTH_2001.wtb")[DRAWN]
    assert record.result == (32, 32)
    return simulate_game(record, SimOptions(errors=0.0, seed=1)).observations


def play(core: GameCore, observations: list[Observation], t0: float = 1.0) -> list[Event]:
    """Every event the table's core made of ``observations``."""
    return [e for obs in observations for e in core.apply(t0 + obs.t, {"obs": obs.to_dict()})]


def test_the_toss_decides_a_32_32_board_at_the_table():
    core = GameCore(GameSettings(black="Tanida", white="Murakami", draws_allowed=False))
    # before the first move the toss may give the other colours
    core.apply(0.5, {"action": "toss", "black": "Murakami", "white": "Tanida",
                     "draw_win_right": "white"})
    assert (core.settings.black, core.settings.white) == ("Murakami", "Tanida")
    assert core.clock is not None and core.clock.draw_win_right is Color.WHITE
    over = [e for e in play(core, drawn_game()) if e.event is EventKind.GAME_OVER]
    assert core.game_over
    assert (over[-1]["winner"], over[-1]["decided_by"]) == ("white", "draw_win_right")
    assert core.final_result() == (32, 32, "white")
    assert core.signoff is not None and core.signoff.winner == "white"
    # the record names the holder: GGF DW[W], and it reads back to white's win
    text = write_ggf(core.record())
    assert "DW[W]" in text and "PB[Murakami]" in text and "PW[Tanida]" in text
    [back] = read_ggf_text(text)
    assert back.winner() is Color.WHITE
    with pytest.raises(ActionRefused, match="the game is over"):
        core.apply(1e6, {"action": "toss", "black": "Murakami", "white": "Tanida",
                         "draw_win_right": "black"})


def test_without_a_toss_a_32_32_board_names_no_winner_at_the_table():
    core = GameCore(GameSettings(black="Tanida", white="Murakami", draws_allowed=False))
    over = [e for e in play(core, drawn_game()) if e.event is EventKind.GAME_OVER]
    assert over[-1]["winner"] == "draw"  # the hub settles it once the toss is recorded
    assert core.final_result() == (32, 32, "draw")
    assert core.signoff is not None and core.signoff.winner == "draw"
    assert "DW[" not in write_ggf(core.record())


def test_after_the_first_move_only_the_draw_win_right_can_be_recorded():
    core = GameCore(GameSettings(black="Tanida", white="Murakami", draws_allowed=False))
    for obs in drawn_game():  # until the first moves are made
        core.apply(1.0 + obs.t, {"obs": obs.to_dict()})
        if len(core.arbiter.moves) >= 2:
            break
    assert core.arbiter.moves
    with pytest.raises(ActionRefused, match="begun with Tanida as black"):
        core.apply(500.0, {"action": "toss", "black": "Murakami", "white": "Tanida",
                           "draw_win_right": "black"})
    core.apply(500.0, {"action": "toss", "black": "Tanida", "white": "Murakami",
                       "draw_win_right": "black"})
    assert core.arbiter.config.draw_win_right is Color.BLACK
    assert not core.arbiter.config.draws_allowed


def _service(tmp_path) -> Service:
    cfg = defaults().replace(**{
        "game.mode": "tournament", "game.black": "Tanida", "game.white": "Murakami",
        "source.kind": "sim", "journal.path": str(tmp_path / "journal.sqlite"),
        "games.folder": str(tmp_path / "g"), "web.enabled": False,
    })
    ticks = iter(range(1_800_000_000, 1_900_000_000))
    service = Service(cfg, source=LogSource([Observation(0.0, board="-" * 64)]),
                      wall=lambda: float(next(ticks)))
    service.open()
    return service


def test_the_hubs_toss_order_is_journaled_and_survives_a_restart(tmp_path):
    service = _service(tmp_path)
    link = HubLink(service, LinkSettings(BrokerSettings(), table=7, event="open"))
    game = service.table.game.id
    link.rounds[game] = 3  # the hub's next_game gave this game round 3
    order = decode_command(encode_command(toss(3, "Murakami", "Tanida", "black")))
    link.execute(order)
    s = service.table.core.settings
    assert (s.black, s.white, s.draw_win_right, s.draws_allowed) == (
        "Murakami", "Tanida", "black", False)
    # an order for another round does nothing to this game
    link.execute(toss(4, "Tanida", "Murakami", "white"))
    assert service.table.core.settings.black == "Murakami"
    service.keeper.journal.close()

    again = _service(tmp_path)  # the table restarts: its journal resumes the game
    assert again.table.game.id == game
    s = again.table.core.settings
    assert (s.black, s.white, s.draw_win_right) == ("Murakami", "Tanida", "black")
    assert again.table.core.arbiter.config.draw_win_right is Color.BLACK
    again.keeper.journal.close()


def test_a_toss_for_the_game_waiting_to_start_is_kept_with_its_next_game(tmp_path):
    service = _service(tmp_path)
    link = HubLink(service, LinkSettings(BrokerSettings(), table=7, event="open"))
    service.table.core.started = True  # this game is under way: round 5's game waits for it
    service.lifecycle.order({"black": "Tanida", "white": "Murakami", "main": 1200.0,
                             "draw_win_right": "none", "draws_allowed": False})
    link.next_round = (5, service.table.game.id)
    link.execute(toss(5, "Murakami", "Tanida", "white"))
    assert service.lifecycle.next_game_overrides == {
        "black": "Murakami", "white": "Tanida", "main": 1200.0,
        "draw_win_right": "white", "draws_allowed": False}
    assert service.table.core.settings.black == "Tanida"  # the game in play is not touched
    service.keeper.journal.close()
