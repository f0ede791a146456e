"""How each division moves from round to round: who plays in which pool, when a
league is won, when the semi-finals and the final come.

The open division (オセロ普及部門方式): each league pairs by the priority rules until
its undefeated count is 1, 2, 4, 8, …; from then on only its undefeated players
stay and the others join the one placement league.  A league's sole undefeated
player wins it and has a bye in every later league round (「全勝が1名となった予選
リーグの全勝選手を不戦勝とします」, 「2回目の不戦勝となる場合もあります」).  The
semi-finals are round 6 and the final and third-place match round 7, however early
the leagues are won (「各予選リーグの1位は、6～7回戦に準決勝、決勝、3位決定戦を
行い」; timetable 6回戦/準決勝, 7回戦/決勝); the placement league plays 「7回戦まで」.
A league that has no sole undefeated player after round 5 sends its 1位 — its
highest player in the provisional ranking — to the semi-finals, and the rest of it
joins the placement league (decision: the semi-final in round 6 leaves no room for a
sixth league round).

The women's and children's divisions (新オセロ方式): knock-out rounds 1–3 in four
groups, semi-finals in round 4, final and third place in round 5; a knock-out loser
plays the placement league from the next round on, paired highest against highest.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from controller.tournament import knockout as ko
from controller.tournament.game import Game, Round
from controller.tournament.leagues import LEAGUES
from controller.tournament.model import Entrant, Prefer
from controller.tournament.pairing import pair_pool, split_pairing
from controller.tournament.ranking import GameResult


class Bracket(Protocol):
    """What pairing a round needs of an event (the :class:`~controller.tournament.event.
    Tournament`): who plays where, and how far each league and the finals have come."""

    present: list[str]
    numbers: dict[str, int]
    groups: dict[str, str]
    rounds: list[Round]
    withdrawn: dict[str, int]
    stage_of: dict[str, str]
    league_done: dict[str, str | None]
    league_knockout: set[str]
    semi_round: int | None
    final_round: int | None
    results: list[GameResult]

    def order_and_wins(self) -> tuple[dict[str, int], dict[str, int]]: ...
    def pool_entrants(self, names: Sequence[str], order: dict[str, int],
                      wins: dict[str, int]) -> list[Entrant]: ...
    def finals_game(self, number: int, stage: str, a: str | None, b: str | None,
                    group: str | None) -> list[Game]: ...


def _power_of_two(n: int) -> bool:
    return n >= 1 and n & (n - 1) == 0


def advance_leagues(t: Bracket) -> None:
    """After each round: a league whose undefeated count is 1, 2, 4, 8, … sends its
    players with a loss to the placement league; a sole undefeated player wins it."""
    beaten = {g.loser for r in t.rounds for g in r.games
              if g.stage == "league" and g.loser is not None}
    for league in LEAGUES:
        if league in t.league_done:
            continue
        members = [n for n in t.present
                   if t.groups.get(n) == league and t.stage_of[n] == "league"
                   and n not in t.withdrawn]
        unbeaten = [n for n in members if n not in beaten]
        if league not in t.league_knockout and _power_of_two(len(unbeaten)):
            t.league_knockout.add(league)
        if league in t.league_knockout or not unbeaten:
            for n in members:
                if n not in unbeaten:
                    t.stage_of[n] = "placement"
        if len(unbeaten) == 1:
            t.league_done[league] = unbeaten[0]
            t.stage_of[unbeaten[0]] = "qualified"
        elif not unbeaten:
            t.league_done[league] = None  # every unbeaten player withdrew


#: 「6回戦/準決勝」「7回戦/決勝」: the open division's fixed last two rounds.
OPEN_SEMI_ROUND = 6
OPEN_FINAL_ROUND = 7


def league_first(t: Bracket, league: str, order: dict[str, int]) -> str | None:
    """A league's 1位 when the semi-finals are due and it has no sole undefeated
    player: the highest of its remaining players in the provisional ranking (they
    are its undefeated ones, who outrank every player with a loss)."""
    members = [n for n in t.present if t.groups.get(n) == league
               and t.stage_of.get(n) == "league" and n not in t.withdrawn]
    if not members:
        return None
    return min(members, key=lambda n: order[n])


def pair_open(t: Bracket, number: int) -> tuple[list[Game], list[str]]:
    advance_leagues(t)
    order, wins = t.order_and_wins()
    games: list[Game] = []
    notes: list[str] = []
    if number == OPEN_SEMI_ROUND:
        t.semi_round = number
        for league in LEAGUES:
            if league in t.league_done:
                continue
            first = league_first(t, league, order)
            t.league_done[league] = first
            for n in t.present:
                if (t.groups.get(n) == league and t.stage_of.get(n) == "league"
                        and n != first):
                    t.stage_of[n] = "placement"
            if first is not None:
                t.stage_of[first] = "qualified"
                notes.append(f"league {league}: no sole undefeated player after round "
                             f"{number - 1}; {first} is its 1位 in the provisional "
                             "ranking and plays the semi-final")
        q = t.league_done
        for a, b in (("A", "D"), ("B", "C")):
            games.extend(t.finals_game(number, "semi", q[a], q[b], f"{a}-{b}"))
    elif number == OPEN_FINAL_ROUND:
        t.final_round = number
        semis = [g for g in t.rounds[OPEN_SEMI_ROUND - 1].games if g.stage == "semi"]
        winners = [g.winner for g in semis]
        losers = [g.loser for g in semis]
        while len(winners) < 2:
            winners.append(None)
            losers.append(None)
        games.extend(t.finals_game(number, "final", winners[0], winners[1], None))
        games.extend(t.finals_game(number, "third", losers[0], losers[1], None))
    else:
        for league in LEAGUES:
            winner = t.league_done.get(league)
            if league in t.league_done:
                if winner is not None and winner not in t.withdrawn:
                    games.append(Game(number, "league", league, winner, None))
                    notes.append(f"league {league}: {winner} is its sole undefeated "
                                 "player and has a bye")
                continue
            members = [n for n in t.present if t.groups[n] == league
                       and t.stage_of[n] == "league" and n not in t.withdrawn]
            if number == 1:
                pairs = split_pairing([(n, t.numbers[n]) for n in members])
            else:
                result = pair_pool(t.pool_entrants(members, order, wins), "lowest")
                pairs = result.pairs
                notes.extend(f"league {league}: {x}" for x in result.notes)
            games.extend(Game(number, "league", league, a, b) for a, b in pairs)
    _pair_placement(t, number, order, wins, "lowest", games, notes)
    return games, notes


def pair_knockout(t: Bracket, number: int) -> tuple[list[Game], list[str]]:
    order, wins = t.order_and_wins()
    games: list[Game] = []
    notes: list[str] = []
    knocked = {g.loser for g in t.results if g.loser is not None
               and g.stage == "knockout"}
    alive = {n for n in t.present if n not in knocked and n not in t.withdrawn}
    for n in t.present:
        if n in knocked and t.stage_of.get(n) == "knockout":
            t.stage_of[n] = "placement"
    if number <= ko.KNOCKOUT_ROUNDS:
        for group, bracket in ko.brackets(t.numbers).items():
            for a, b in ko.knockout_pairs(bracket, number, alive):
                games.append(Game(number, "knockout", group, a, b))
    elif number == ko.SEMI_ROUND:
        t.semi_round = number
        winners = {}
        for group, bracket in ko.brackets(t.numbers).items():
            left = [n for n in bracket if n is not None and n in alive]
            winners[group] = left[0] if left else None
            for n in left:
                t.stage_of[n] = "semi"
        for a, b in (("A", "D"), ("B", "C")):
            games.extend(t.finals_game(number, "semi", winners[a], winners[b], None))
    else:
        t.final_round = number
        assert t.semi_round is not None  # the final follows the semi-finals
        semis = [g for g in t.rounds[t.semi_round - 1].games if g.stage == "semi"]
        finalists = [g.winner for g in semis] + [None, None]
        losers = [g.loser for g in semis] + [None, None]
        games.extend(t.finals_game(number, "final", finalists[0], finalists[1], None))
        games.extend(t.finals_game(number, "third", losers[0], losers[1], None))
    _pair_placement(t, number, order, wins, "highest", games, notes)
    return games, notes


def _pair_placement(t: Bracket, number: int, order: dict[str, int], wins: dict[str, int],
                    against: Prefer, games: list[Game], notes: list[str]) -> None:
    """The placement league of either system; only whom the highest unpaired player
    meets differs (``lowest`` in the open division, ``highest`` in 新オセロ方式)."""
    placement = [n for n in t.present
                 if t.stage_of[n] == "placement" and n not in t.withdrawn]
    if placement:
        result = pair_pool(t.pool_entrants(placement, order, wins), against)
        notes.extend(f"placement league: {x}" for x in result.notes)
        games.extend(Game(number, "placement", None, a, b) for a, b in result.pairs)
