"""Scripted players for the service tests: a real game as sensor frames and presses.

Each move is laid down the way hands do it — the new disc, a hand hiding squares
while discs are turned, the settled board repeated at the sensor's frame rate —
then the mover presses. At ``forgotten_at`` the mover leaves one disc unturned,
the opponent presses to point it out, the mover turns it and presses again.
"""

from __future__ import annotations

from controller.observation import Observation
from controller.records.model import GameRecord
from controller.squares import Color, parse_square, squares_of


def scripted_log(
    game: GameRecord,
    forgotten_at: int | None = None,
    repeats: int = 4,
    step: float = 0.05,
    think: float = 0.6,
) -> list[Observation]:
    obs: list[Observation] = []
    t = 0.0

    def frame(board: str, n: int = 1) -> None:
        nonlocal t
        for _ in range(n):
            obs.append(Observation(round(t, 3), board=board))
            t += step

    def press(player: Color) -> None:
        nonlocal t
        obs.append(Observation(round(t, 3), press=player))
        t += step

    pos = game.start  # the centre four of the game's board, or a handicap start
    n = pos.size
    frame(pos.board_string(), repeats)
    press(Color.WHITE)
    for number, mv in enumerate(game.moves, 1):
        t += think
        if mv.square is None:
            press(mv.player)
            pos = pos.pass_turn()
            continue
        sq = parse_square(mv.square, n)
        after = pos.play(sq)
        board = list(pos.board_string())
        board[sq] = mv.player.symbol
        frame("".join(board), 2)
        flips = squares_of(pos.flips(sq), n)
        hidden = list(board)
        for name in flips[:2]:
            hidden[parse_square(name, n)] = "?"
        frame("".join(hidden), 2)
        if number == forgotten_at and len(flips) >= 1:
            left = parse_square(flips[-1], n)
            wrong = list(after.board_string())
            wrong[left] = mv.player.opponent.symbol
            frame("".join(wrong), repeats)
            press(mv.player)
            t += think
            press(mv.player.opponent)  # points the unturned disc out
            t += think
            frame(after.board_string(), repeats)
            press(mv.player)
        else:
            frame(after.board_string(), repeats)
            press(mv.player)
        pos = after
    return obs
