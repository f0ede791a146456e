"""The lottery (抽選方法): a linear congruential generator over the roster order.

Every roster entry — seeded and absent players too — draws a preliminary number,
so one player's absence never changes anybody else's number.  The generator has
full period (c is odd and a − 1 is a multiple of 4), so preliminary numbers never
repeat for rosters shorter than M and the order is always strict.
"""

from __future__ import annotations

from collections.abc import Sequence

from controller.tournament.model import Player, TournamentError

M = 8_388_608
A = 65_793
C = 4_282_663
SEED_DIGITS = 5
FIRST_NUMBER = 11
#: 「非シード選手に11～138を割り当てます」: the highest number the rules hand out.
LAST_NUMBER = 138
#: Every roster entry (seeded and absent too) takes a number from 11 before the
#: seeds are replaced, so the rules describe rosters of at most 128 entries.
RULES_ROSTER = LAST_NUMBER - FIRST_NUMBER + 1


def join_seeds(seeds: Sequence[str]) -> int:
    """The 15-digit seed from the three drawn ballots.

    The document joins three numbers into 15 digits, so each ballot is read as a
    five-digit number; a shorter one is padded with leading zeros (decision)."""
    if len(seeds) != 3:
        raise TournamentError(f"the lottery needs three seed numbers, got {len(seeds)}")
    parts: list[str] = []
    for k, text in enumerate(seeds, start=1):
        if not text or not all("0" <= ch <= "9" for ch in text):
            raise TournamentError(f"seed {k} must be digits, not {text!r}")
        if len(text) > SEED_DIGITS:
            raise TournamentError(f"seed {k} has more than {SEED_DIGITS} digits: {text!r}")
        parts.append(text.zfill(SEED_DIGITS))
    return int("".join(parts))


def preliminary_numbers(seed: int, count: int) -> list[int]:
    """抽選予備番号 1…count: x0 = seed mod M, x(k) = (x(k−1)·a + c) mod M."""
    x = seed % M
    out: list[int] = []
    for _ in range(count):
        x = (x * A + C) % M
        out.append(x)
    return out


def open_lottery(roster: Sequence[Player], seed: int) -> dict[str, int]:
    """Lottery numbers of the open division: 11, 12, … in ascending preliminary number,
    then each seeded player's number replaced by the 1–4 drawn at reception."""
    prelim = preliminary_numbers(seed, len(roster))
    order = sorted(range(len(roster)), key=lambda k: prelim[k])
    numbers = {roster[k].name: FIRST_NUMBER + pos for pos, k in enumerate(order)}
    for p in roster:
        if p.seed is not None:
            numbers[p.name] = p.seed
    return numbers


def knockout_lottery(roster: Sequence[Player], seed: int) -> dict[str, int]:
    """Numbers 1…N for the women's and children's divisions.

    The rules draw these at reception (受付のときに抽選); Kaeshi stands in for the
    drawing with the same generator (decision): seeded players keep their designated
    number, the others take the remaining numbers in ascending preliminary number."""
    present = [p for p in roster if not p.absent]
    taken = {p.seed for p in present if p.seed is not None}
    free = [k for k in range(1, len(present) + 1) if k not in taken]
    prelim = preliminary_numbers(seed, len(roster))
    position = {p.name: k for k, p in enumerate(roster)}
    others = sorted(
        (p for p in present if p.seed is None), key=lambda p: prelim[position[p.name]]
    )
    numbers = {p.name: p.seed for p in present if p.seed is not None}
    for p, number in zip(others, free, strict=True):
        numbers[p.name] = number
    return numbers


#: The open format's smallest field (decision; the rules give none): four leagues of
#: four, so every league winner has won two games at the board before the
#: semi-finals, and the placement league plays to round 7 without a rematch.
OPEN_MINIMUM = 16


def open_extension(entries: int, confirmed: bool, present: int | None = None) -> str | None:
    """The open division numbers every roster entry from 11 (「抽選番号は「11」から順に
    割り当てます」, seeded and absent players included) and the rules' numbers end at
    138, so a longer roster is a field the rules do not describe: refused unless the
    organiser confirmed it; then the returned text names what is extended.  So is a
    field of fewer than :data:`OPEN_MINIMUM` players present: then the small-field
    variant is named instead."""
    if present is not None and present < OPEN_MINIMUM:
        if not confirmed:
            raise TournamentError(
                f"{present} players present: the open format (four leagues, semi-finals "
                f"in round 6, final in round 7) needs at least {OPEN_MINIMUM} — fewer "
                "gives league winners walk-overs and the placement league rematches; to "
                "run it as the small-field variant, confirm it (event file: extend = "
                "true; simulate: --extend)")
        return (
            f"small-field variant, confirmed by the organiser: {present} players present, "
            f"fewer than the open format's {OPEN_MINIMUM}; the rounds stay as the rules "
            "set them, so players may meet again and league winners may go through on "
            "byes, and no 段級位 or 王座戦 is given to a player who won no game at the "
            "board")
    if entries <= RULES_ROSTER:
        return None
    last = FIRST_NUMBER + entries - 1
    if not confirmed:
        raise TournamentError(
            f"{entries} roster entries: the rules number players {FIRST_NUMBER}–"
            f"{LAST_NUMBER} (「非シード選手に11～138」, seeded and absent players drawing "
            f"too), so they describe at most {RULES_ROSTER} entries; to run this field "
            "as an extension of the rules, confirm it (event file: extend = true; "
            "simulate: --extend)"
        )
    return (
        f"extension of the rules, confirmed by the organiser: {entries} roster entries "
        f"draw lottery numbers {FIRST_NUMBER}–{last}, beyond the rules' {LAST_NUMBER}; "
        "the rounds stay as the rules set them (leagues to round 5, semi-finals in "
        "round 6, final in round 7), so a league not won by round 5 sends its 1位 in "
        "the provisional ranking to the semi-finals"
    )
