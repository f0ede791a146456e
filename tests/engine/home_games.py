"""A home game played by hand to its end on a service, with a forgotten flip nobody put
right: the board stood as it was, and play went on from it (tests of the review)."""

from __future__ import annotations

from home_table import Player, until

from controller.service.sources import Reading
from controller.squares import squares_of

#: The move (1-based) on which the mover forgets to turn a disc.
FAULT_AT = 3


async def play_with_a_standing_fault(player: Player) -> int:
    """Play the first legal moves to the end, one flip forgotten on move ``FAULT_AT``
    (the first move from there that turns two discs or more) and left standing; a side
    without a move passes by pressing. Returns the number of the faulty move."""
    service = player.service
    faulty = 0
    await player.start()
    while not service.table.core.game_over:
        arb = service.table.core.arbiter
        pos, n = arb.position, len(arb.moves)
        if not pos.legal_moves():
            player.source.queue.put_nowait(Reading(press=pos.to_move))
            await until(lambda n=n: len(service.table.core.arbiter.moves) > n
                         or service.table.core.game_over)
            continue
        turning = [sq for sq in pos.legal_squares() if len(squares_of(pos.flips(sq))) >= 2]
        if not faulty and n + 1 >= FAULT_AT and turning:
            square = turning[0]
            flips = squares_of(pos.flips(square))
            await player.move(square, flips[1:], pos.to_move)  # flips[0] left unturned
            faulty = n + 1
            continue
        await player.own_move()
    return faulty
