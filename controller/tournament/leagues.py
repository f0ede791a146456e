"""League split (リーグ分け方法) of the open division."""

from __future__ import annotations

from collections.abc import Mapping

LEAGUES = ("A", "B", "C", "D")


def split_leagues(numbers: Mapping[str, int]) -> dict[str, str]:
    """Deal A, B, C, D, A, … in ascending lottery number, then even out.

    ``numbers`` holds only the players who play (absent players are left out
    before the deal, decision).  The adjustment moves the highest-numbered player
    of B to A when both A and B are odd, and of D to C when both C and D are odd;
    after a round-robin deal that always leaves at most one odd league, with the
    fewest moves."""
    ordered = sorted(numbers, key=lambda name: numbers[name])
    league = {name: LEAGUES[k % 4] for k, name in enumerate(ordered)}
    members = {x: [n for n in ordered if league[n] == x] for x in LEAGUES}
    for giver, taker in (("B", "A"), ("D", "C")):
        if len(members[giver]) % 2 and len(members[taker]) % 2:
            mover = max(members[giver], key=lambda name: numbers[name])
            members[giver].remove(mover)
            members[taker].append(mover)
            league[mover] = taker
    return league
