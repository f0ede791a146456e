"""The 新オセロ方式 bracket: four knock-out groups (全勝トーナメント) of eight slots.

The rules give 18–32 players four groups, three knock-out rounds, semi-finals in
round 4 and the final and third-place match in round 5, but not the layout.  The
layout here (decision): number n goes to group A, B, C, D, A, … (like the open
league deal) at seed position (n − 1) // 4 + 1 inside its group, and each group is
the usual seeded bracket 1–8, 5–4, 3–6, 7–2.  Numbers above the player count stay
empty, so the byes go to the lowest numbers.
"""

from __future__ import annotations

from collections.abc import Mapping

from controller.tournament.model import TournamentError

GROUPS = ("A", "B", "C", "D")
SLOT_ORDER = (1, 8, 5, 4, 3, 6, 7, 2)  # seed position held by each slot of a group
MIN_PLAYERS = 18
MAX_PLAYERS = 32
KNOCKOUT_ROUNDS = 3
SEMI_ROUND = 4
FINAL_ROUND = 5


def check_size(count: int) -> None:
    if count < MIN_PLAYERS:
        raise TournamentError(
            f"{count} players: the rules set no format for 2–17 players in this division "
            f"(未定); the 新オセロ方式 needs {MIN_PLAYERS}–{MAX_PLAYERS}"
        )
    if count > MAX_PLAYERS:
        raise TournamentError(
            f"{count} players: the 新オセロ方式 takes at most {MAX_PLAYERS} players"
        )


def slot_of(number: int) -> tuple[str, int]:
    """(group, slot 0–7) of lottery number 1–32."""
    group = GROUPS[(number - 1) % 4]
    seed_position = (number - 1) // 4 + 1
    return group, SLOT_ORDER.index(seed_position)


def brackets(numbers: Mapping[str, int]) -> dict[str, list[str | None]]:
    out: dict[str, list[str | None]] = {g: [None] * 8 for g in GROUPS}
    for name, number in numbers.items():
        group, slot = slot_of(number)
        out[group][slot] = name
    return out


def knockout_pairs(
    bracket: list[str | None], round_number: int, alive: set[str]
) -> list[tuple[str, str | None]]:
    """Pairs of one group in knock-out round 1–3: the survivors of the two halves of
    each block of 2^round slots meet; a lone survivor has a bye."""
    block = 2**round_number
    half = block // 2
    pairs: list[tuple[str, str | None]] = []
    for start in range(0, 8, block):
        sides = []
        for part in (bracket[start : start + half], bracket[start + half : start + block]):
            survivors = [n for n in part if n is not None and n in alive]
            sides.append(survivors[0] if survivors else None)
        a, b = sides
        if a is not None and b is not None:
            pairs.append((a, b))
        elif a is not None or b is not None:
            pairs.append((a or b, None))  # type: ignore[arg-type]
    return pairs
