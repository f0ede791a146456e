"""Dan and kyu awards (表彰および段級位認定) and 王座戦 qualification, per division.

The table in the rules is read as follows (decisions where its layout is unclear):

* open: 1st 七段, 2nd 六段, 3rd 六段, 入賞 五段, 6 wins 四段, 5 wins 三段, 4 wins 二段.
  入賞 is the 4th place and every player with 5 wins and 1 loss after round 6
  (通算5勝1敗).  A player takes the highest line they meet.  王座戦: 4 or more wins
  at the end of round 6.
* women: 1st 五段, 2nd 四段, 3rd 三段; the third-place-match loser or 4 wins
  二段; 3 wins 初段 (the flattened table is read as "3位決定戦敗者/4勝 二段,
  3勝 初段").  王座戦: 4 or more wins, and the third-place-match loser.
* children: 1st 三段, 2nd 二段, 3rd 初段; kyu from 4th place depend on the number
  of players, which the rules do not give, so none is awarded here.  王座戦: the
  top eight.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from controller.tournament.event import Tournament


@dataclass(frozen=True)
class Award:
    name: str
    place: int
    grade: str | None
    ouza: bool  # qualifies for the 王座戦


def awards(
    division: str,
    ranking: Sequence[str],
    wins: Mapping[str, int],
    record_after_six: Mapping[str, tuple[int, int]],
    third_loser: str | None,
) -> list[Award]:
    """``record_after_six``: (wins, losses) at the end of round 6 (open division)."""
    out: list[Award] = []
    for k, name in enumerate(ranking):
        place = k + 1
        w = wins.get(name, 0)
        if division == "open":
            w6, l6 = record_after_six.get(name, (0, 0))
            if place == 1:
                grade: str | None = "七段"
            elif place in (2, 3):
                grade = "六段"
            elif place == 4 or (w6, l6) == (5, 1):
                grade = "五段"
            elif w >= 6:
                grade = "四段"
            elif w == 5:
                grade = "三段"
            elif w == 4:
                grade = "二段"
            else:
                grade = None
            ouza = w6 >= 4
        elif division == "women":
            grades = {1: "五段", 2: "四段", 3: "三段"}
            if place in grades:
                grade = grades[place]
            elif name == third_loser or w >= 4:
                grade = "二段"
            elif w == 3:
                grade = "初段"
            else:
                grade = None
            ouza = w >= 4 or name == third_loser
        else:
            grade = {1: "三段", 2: "二段", 3: "初段"}.get(place)
            ouza = place <= 8
        out.append(Award(name, place, grade, ouza))
    return out


def award_list(t: Tournament) -> list[Award]:
    """Grades and 王座戦 qualification from the final ranking."""
    ranking = t.final_ranking()
    standing = {s.name: s.wins for s in t.standings()}
    after_six: dict[str, tuple[int, int]] = {}
    league_games = [g for r in t.rounds[:6] for g in r.games
                    if g.stage in ("league", "placement") and g.done]
    for name in t.present:
        won = sum(1 for g in league_games if g.winner == name)
        lost = sum(1 for g in league_games if g.loser == name)
        if name in t.league_done.values():
            won = min(6, len(t.rounds)) - lost  # note *2: the rest counts as won
        after_six[name] = (won, lost)
    third = [g.loser for r in t.rounds for g in r.games if g.stage == "third" and g.done]
    given = awards(t.settings.division, ranking, standing, after_six,
                   third[0] if third else None)
    # never for byes alone: a grade or the 王座戦 needs a game won at the board
    # (not a bye, a walk-over or the other player's forfeit) — decision
    winners = {g.winner for r in t.rounds for g in r.games
               if g.done and not g.is_bye and not g.forfeit}
    return [a if a.name in winners else replace(a, grade=None, ouza=False) for a in given]
