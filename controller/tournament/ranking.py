"""Provisional and final rankings, computed from the list of played games.

Both rankings are pure functions of the games and the lottery numbers, so the
incremental ledger kept by :class:`~controller.tournament.event.Tournament` and a
recomputation from scratch must agree; the tests check that they do.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

#: Stages whose games count towards wins in the open division (*1): the
#: preliminary and placement leagues.  Semi-finals and finals do not.
LEAGUE_STAGES = frozenset({"league", "placement"})
CRITERIA = 7  # criteria 2–8: top/bottom 1…7 opponents


@dataclass
class Record:
    """One player's results as the rankings read them."""

    wins: int = 0
    games: int = 0
    beaten: list[str | None] = field(default_factory=list)  # None = a bye (−1 wins)
    lost_to: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class GameResult:
    """The part of a game a ranking needs: who won whom, in which stage and round."""

    round: int
    stage: str
    winner: str
    loser: str | None  # None for a bye


def open_records(results: Iterable[GameResult]) -> dict[str, Record]:
    records: dict[str, Record] = {}
    for g in results:
        if g.stage not in LEAGUE_STAGES:
            continue
        add_result(records, g)
    return records


def add_result(records: dict[str, Record], g: GameResult) -> None:
    """Fold one league or placement result into ``records`` (the incremental path)."""
    w = records.setdefault(g.winner, Record())
    w.wins += 1
    w.games += 1
    w.beaten.append(g.loser)
    if g.loser is not None:
        lo = records.setdefault(g.loser, Record())
        lo.games += 1
        lo.lost_to.append(g.winner)


@dataclass(frozen=True)
class OpenStanding:
    name: str
    number: int
    wins: int
    criteria: tuple[int, ...]  # criteria 2–8


def open_wins(
    records: Mapping[str, Record], qualified_extra: Mapping[str, int]
) -> dict[str, int]:
    """Wins with note *2: a qualified player's remaining games count as won.  Note *3 (a
    withdrawn player's remaining games count as lost) adds nothing, so needs no code."""
    out = {name: r.wins for name, r in records.items()}
    for name, extra in qualified_extra.items():
        out[name] = out.get(name, 0) + extra
    return out


def open_provisional(
    numbers: Mapping[str, int],
    players: Iterable[str],
    records: Mapping[str, Record],
    qualified_extra: Mapping[str, int],
) -> list[OpenStanding]:
    """暫定順位: wins, criteria 2–8, lottery number; more and larger rank higher."""
    wins = open_wins(records, qualified_extra)
    rows: list[OpenStanding] = []
    for name in players:
        rec = records.get(name, Record())
        beaten = sorted(
            ([wins.get(o, 0) if o is not None else -1 for o in rec.beaten]
             + [-1] * qualified_extra.get(name, 0)),
            reverse=True,
        )
        lost = sorted(wins.get(o, 0) for o in rec.lost_to)
        crit = tuple(sum(beaten[:k]) + sum(lost[:k]) for k in range(1, CRITERIA + 1))
        rows.append(OpenStanding(name, numbers[name], wins.get(name, 0), crit))
    rows.sort(key=lambda s: (s.wins, s.criteria, s.number), reverse=True)
    return rows


@dataclass(frozen=True)
class KnockoutStanding:
    name: str
    number: int
    place: int | None  # 1–3 once the final and the third-place match are played
    wins: int
    wins_before: int  # criterion 3, with the upset rule applied
    previous_position: int  # criterion 4: position before the latest game (1 = top)


def knockout_ranking(
    numbers: Mapping[str, int],
    players: Sequence[str],
    results: Sequence[GameResult],
    places: Mapping[str, int],
) -> list[list[KnockoutStanding]]:
    """The 新オセロ方式 ranking after every round: element r is the ranking after
    round r (element 0 is before round 1: by lottery number, larger first).

    Every game and bye counts as a game here (knock-out, semi-final, final and
    placement league alike), decision.  Criterion 3 reads each player's own latest
    game; criterion 4 the ranking published before the round of that game."""
    last_round = max((g.round for g in results), default=0)
    by_round: dict[int, list[GameResult]] = {}
    for g in results:
        by_round.setdefault(g.round, []).append(g)
    start = sorted(players, key=lambda n: numbers[n], reverse=True)
    history: list[list[KnockoutStanding]] = [
        [KnockoutStanding(n, numbers[n], None, 0, 0, k + 1) for k, n in enumerate(start)]
    ]
    wins = dict.fromkeys(players, 0)
    latest: dict[str, tuple[int, int]] = {}  # name -> (round, wins_before value)
    positions: list[dict[str, int]] = []  # positions[r - 1]: positions before round r
    for r in range(1, last_round + 1):
        before = dict(wins)
        for g in by_round.get(r, []):
            wins[g.winner] += 1
            if g.loser is None:
                latest[g.winner] = (r, before[g.winner])
                continue
            upset = before[g.winner] < before[g.loser]
            # the winner normally had one win fewer; the upset rule swaps the two
            latest[g.winner] = (r, wins[g.winner] if upset else wins[g.winner] - 1)
            latest[g.loser] = (r, wins[g.loser] - 1 if upset else wins[g.loser])
        final = r == last_round
        positions.append({s.name: k + 1 for k, s in enumerate(history[-1])})
        rows = []
        for n in players:
            rnd, wb = latest.get(n, (0, 0))
            prev = positions[max(rnd, 1) - 1][n]
            place = places.get(n) if final else None
            rows.append(KnockoutStanding(n, numbers[n], place, wins[n], wb, prev))
        rows.sort(key=_knockout_key)
        history.append(rows)
    return history


def _knockout_key(s: KnockoutStanding) -> tuple[int, int, int, int, int]:
    place = s.place if s.place is not None else 99
    return (place, -s.wins, -s.wins_before, s.previous_position, -s.number)
