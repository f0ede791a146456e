"""The ranking every output shows: the provisional ranking (暫定順位) while the event
runs, the final ranking (最終順位) with 段級位 and 王座戦 once the final is played.

One function builds it, so the terminal, the sheets, the hub's dashboard and its
broadcast cannot disagree about who is first.  Each criterion carries the label the
rules give it (「勝数」, 「抽選番号」, …), and the columns are exactly the rules'
criteria: nothing that is not one of them (a disc difference, a count of games that
leaves out byes) is shown as if it ranked anyone.

A player's score is one figure under one word everywhere: :data:`WINS`, the rules'
勝数 — the games won that the ranking counts (the leagues' in the open division, *1;
every game in 新オセロ方式), a bye counted as a won game from the moment it is paired,
and in the open division a qualified player's remaining league games counted as won
(*2).  :func:`score` writes it in a line of text, as the hall-day summary does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from controller.tournament.awards import award_list
from controller.tournament.ranking import CRITERIA, OpenStanding

if TYPE_CHECKING:
    from controller.tournament.event import Tournament

#: The rules' word for a player's score (勝数, "wins"): the dashboard's column, the
#: sheets' and the summaries' all read it from here.
WINS = "勝数"
#: 暫定順位決定方法 (無差別の部), criteria 2–8: wins of the best k beaten opponents plus
#: those of the worst k opponents lost to; 1 and 9 are 勝数 and 抽選番号.
OPEN_LABELS = (WINS, *(f"{k + 1}. 上位{k}+下位{k}の{WINS}" for k in range(1, CRITERIA + 1)),
               "抽選番号")
#: 暫定/最終順位決定方法 (新オセロ方式), criteria 1–5.
KNOCKOUT_LABELS = ("順位", WINS, f"直近の対局前の{WINS}", "直近の対局前の順位", "抽選番号")
#: 最終順位決定方法, and what the prize-giving reads.
FINAL_LABELS = (WINS, "段級位", "王座戦")

Value = int | str | bool | None


@dataclass(frozen=True)
class Row:
    """One player's line: ``position`` is the place in the final ranking once the
    event is finished, else the provisional position."""

    position: int
    name: str
    number: int
    wins: int
    criteria: tuple[tuple[str, Value], ...]
    grade: str | None = None
    ouza: bool | None = None


@dataclass(frozen=True)
class Leaderboard:
    final: bool
    after_round: int
    rows: tuple[Row, ...]

    @property
    def title(self) -> str:
        if self.final:
            return "最終順位 (final ranking)"
        return f"暫定順位 (provisional ranking) after round {self.after_round}"

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(label for label, _ in self.rows[0].criteria) if self.rows else ()

    def lines(self) -> list[str]:
        """The ranking as lines of text ("1. Ann — 勝数 3, 七段, 王座戦")."""
        out = []
        for r in self.rows:
            extra = "".join(f", {x}" for x in (r.grade, "王座戦" if r.ouza else None) if x)
            out.append(f"{r.position}. {r.name} — {score(r.wins)}{extra}")
        return out


def score(wins: int) -> str:
    """A player's score in a line of text, under the rules' word."""
    return f"{WINS} {wins}"


def provisional_rows(t: Tournament) -> list[Row]:
    rows = []
    for k, s in enumerate(t.standings(), 1):
        if isinstance(s, OpenStanding):
            values: tuple[Value, ...] = (s.wins, *s.criteria, s.number)
            labels = OPEN_LABELS
        else:
            values = (s.place, s.wins, s.wins_before, s.previous_position, s.number)
            labels = KNOCKOUT_LABELS
        rows.append(Row(k, s.name, s.number, s.wins, tuple(zip(labels, values, strict=True))))
    return rows


def leaderboard(t: Tournament) -> Leaderboard:
    """The ranking as it stands: final once the last round is complete."""
    done = t.completed_rounds()
    if t.seed is None:
        return Leaderboard(False, 0, ())
    if not t.finished:
        return Leaderboard(False, done, tuple(provisional_rows(t)))
    wins = {s.name: s.wins for s in t.standings()}
    rows = []
    for a in award_list(t):
        values: tuple[Value, ...] = (wins[a.name], a.grade, a.ouza)
        rows.append(Row(a.place, a.name, t.numbers[a.name], wins[a.name],
                        tuple(zip(FINAL_LABELS, values, strict=True)), a.grade, a.ouza))
    return Leaderboard(True, done, tuple(rows))


def waiting_for(t: Tournament) -> str:
    """What the event waits for, in words ("" once the final ranking stands): the
    director is never stuck without saying what comes next."""
    if t.seed is None:
        return "the lottery"
    if t.finished:
        return ""
    rnd = t.current
    if rnd is None:
        return "round 1 to be paired"
    missing = [g for g in rnd.games if not g.done]
    if not missing:
        return f"round {rnd.number + 1} to be paired"
    late = [f"{g.table} ({g.late.player} {g.late.state})" for g in missing
            if g.late is not None]
    return (f"round {rnd.number}: the result of table(s) "
            + ", ".join(str(g.table) for g in missing)
            + (f"; late at {', '.join(late)}" if late else ""))
