"""The arbiter's corrections (rules 15, 17, 19): what was entered wrong, put right.

Rule 15 says a score card signed the wrong way round is 「原則として」 not corrected
after it was handed in, and rules 17 and 19 leave everything else to the arbiter,
whose decision comes before all.  So Kaeshi corrects only on the arbiter's word:
each correction names who made it (``by``) and why (``why``), is kept in the event's
journal as its own action, and is marked on the sheets.

A correction of an earlier round keeps the games already paired (a past pairing
never changes): the standings are recomputed from the corrected games, and the
next pairing uses them.  A player the wrong result moved (to the placement league,
say) stays where the pairing put them.  A knock-out or semi-final result cannot be
corrected once the round it decided is paired — the arbiter re-pairs that round by
hand (``pairing``) first.

Kinds (``what``):

* ``result`` — a table's result (outcome, discs, reason) in any round;
* ``colours`` — black and white were entered swapped: the same player won;
* ``forfeit`` — the result is ``loser``'s forfeit (不戦敗, not rated);
* ``clear`` — the current round's table has no result after all (a forfeit or a
  result undone before the next round is paired);
* ``reinstate`` — a withdrawal undone: the player is paired again from the next round;
* ``pairing`` — the current round's games of some players, none with a result yet,
  replaced by the arbiter's own (every one of those players once again).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from controller.tournament.game import Correction, Game, Round
from controller.tournament.model import TournamentError
from controller.tournament.toss import toss_placer
from controller.tournament.verdict import REASON_TEXT, read_discs, result_winner

if TYPE_CHECKING:
    from controller.tournament.event import Tournament

KINDS = ("result", "colours", "forfeit", "clear", "reinstate", "pairing")
#: Stages whose winner the next round's pairing is built from, game by game.
_DECIDING = ("knockout", "semi")


def _text(value: Any, name: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise TournamentError(f"a correction needs {name}: who decided it and why "
                              "(rules 17, 19: the arbiter's decision)")
    return value.strip()


def _game(t: Tournament, round: Any, table: Any) -> tuple[Round, Game]:
    if not isinstance(round, int) or not 1 <= round <= len(t.rounds):
        raise TournamentError(f"round {round!r} has not been paired "
                              f"({len(t.rounds)} round(s) so far)")
    rnd = t.rounds[round - 1]
    if not isinstance(table, int):
        raise TournamentError(f"round {round}: table must be a number, not {table!r}")
    return rnd, rnd.table(table)


def _result_text(g: Game) -> str:
    if not g.done:
        return "no result"
    if g.forfeit:
        return f"{g.winner} by {g.loser}'s forfeit"
    discs = f" {g.discs[0]}-{g.discs[1]}" if g.discs else ""
    how = f", {REASON_TEXT[g.reason]}" if g.reason != "normal" else ""
    return f"{g.outcome}{discs} ({g.winner} won{how})"


def _paired_after(t: Tournament, rnd: Round, g: Game) -> None:
    if g.stage in _DECIDING and rnd.number < len(t.rounds):
        raise TournamentError(
            f"round {rnd.number} table {g.table}: round {rnd.number + 1} was paired from "
            f"this {g.stage} result; re-pair its games by hand (correct pairing) before "
            "correcting it")


def correct(t: Tournament, payload: dict[str, Any]) -> Correction:
    """Apply one correction to ``t``; refuses (changing nothing) what cannot be."""
    what = payload.get("what")
    if what not in KINDS:
        raise TournamentError(f"a correction is one of {', '.join(KINDS)}, not {what!r}")
    by, why = _text(payload.get("by"), "by"), _text(payload.get("why"), "why")
    if what == "reinstate":
        name = payload.get("name")
        if name not in t.withdrawn:
            raise TournamentError(f"{name!r} has not withdrawn, so cannot be reinstated")
        left_after = t.withdrawn.pop(name)
        c = Correction(what, None, None, by, why,
                       f"{name}'s withdrawal after round {left_after} undone")
        t.corrections.append(c)
        return c
    if what == "pairing":
        return _pairing(t, payload, by, why)
    rnd, g = _game(t, payload.get("round"), payload.get("table"))
    before = _result_text(g)
    if what == "result":
        _paired_after(t, rnd, g)
        discs = read_discs(g.table, payload.get("discs"), t.size)
        reason = payload.get("reason", "normal")
        outcome = payload.get("outcome")
        trial = Game(g.round, g.stage, g.group, g.first, g.second, g.table, g.black,
                     g.white, g.toss_by, g.draw_win, g.colour_chooser, late=None)
        winner = result_winner(trial, str(outcome), discs, reason, t.size)
        g.outcome, g.winner, g.discs, g.reason = outcome, winner, discs, reason
        g.forfeit = False
    elif what == "colours":
        if not g.done:
            raise TournamentError(f"round {rnd.number} table {g.table} has no result "
                                  "yet; the 伏せ石 (toss) sets the colours")
        g.black, g.white = g.white, g.black
        if g.discs is not None:
            g.discs = (g.discs[1], g.discs[0])
        if g.outcome in ("black", "white"):
            g.outcome = "white" if g.outcome == "black" else "black"
    elif what == "forfeit":
        _paired_after(t, rnd, g)
        loser = payload.get("loser")
        if loser not in (g.first, g.second):
            raise TournamentError(f"round {rnd.number} table {g.table}: {loser!r} does not "
                                  "play there")
        taker = g.second if loser == g.first else g.first
        g.outcome = "black" if taker == g.black else "white"
        g.winner, g.discs, g.forfeit, g.reason = taker, None, True, "forfeit"
    else:  # clear
        if rnd is not t.current:
            raise TournamentError(
                f"round {rnd.number} is over (round {len(t.rounds)} is paired); enter "
                "the result the arbiter decided instead (correct result)")
        if not g.done:
            raise TournamentError(f"round {rnd.number} table {g.table} has no result to "
                                  "undo")
        g.outcome = g.winner = None
        g.discs, g.forfeit, g.reason = None, False, "normal"
        if g.late is not None and g.late.state in ("forfeit", "timed_out"):
            g.late = None  # the forfeit undone: the arrival is the arbiter's to record again
    after = _result_text(g)
    c = Correction(what, rnd.number, g.table, by, why,
                   f"{'colours swapped; ' if what == 'colours' else ''}{before} → {after}")
    g.corrected = c.text
    t.recount()
    t.corrections.append(c)
    return c


def _pairing(t: Tournament, payload: dict[str, Any], by: str, why: str) -> Correction:
    rnd = t.current
    if rnd is None:
        raise TournamentError("no round has been paired, so there is no pairing to correct")
    tables = payload.get("tables") or []
    byes = payload.get("byes") or []
    named: list[str] = [n for pair in tables for n in pair] + list(byes)
    if not named or len(set(named)) != len(named):
        raise TournamentError("a manual pairing names each of its players once")
    for n in named:
        if n not in t.players:
            raise TournamentError(f"no player named {n!r} on the roster")
    replaced = [g for g in rnd.games if {g.first, g.second} & set(named)]
    busy = [g for g in replaced if g.done and not g.is_bye]
    if busy:
        raise TournamentError(f"round {rnd.number} table {busy[0].table} already has a "
                              "result; correct the result, not the pairing")
    had = {n for g in replaced for n in (g.first, g.second) if n is not None}
    if had != set(named):
        missing = sorted(had - set(named))
        extra = sorted(set(named) - had)
        raise TournamentError(
            "a manual pairing places the same players again"
            + (f"; missing {', '.join(missing)}" if missing else "")
            + (f"; not in those games {', '.join(extra)}" if extra else ""))
    for pair in tables:
        if len(pair) != 2:
            raise TournamentError(f"a table seats two players, not {pair!r}")
    free = sorted(g.table for g in replaced if g.table is not None)
    top = max((g.table or 0 for g in rnd.games), default=0)
    while len(free) < len(tables):
        top += 1
        free.append(top)
    stage = replaced[0].stage
    group = replaced[0].group
    new: list[Game] = []
    for k, (a, b) in enumerate(tables):
        g = Game(rnd.number, stage, group, a, b, free[k], a, b)
        pa, pb = t.players[a], t.players[b]
        g.toss_by = toss_placer(pa.name, pa.rank, pa.born, pb.name, pb.rank, pb.born)
        new.append(g)
    for n in byes:
        new.append(Game(rnd.number, stage, group, n, None, winner=n))
    old = ", ".join(f"{g.first}–{g.second or 'bye'}" for g in replaced)
    shown = ", ".join(f"table {g.table}: {g.first}–{g.second}" if g.table else
                      f"{g.first} bye" for g in new)
    c = Correction("pairing", rnd.number, None, by, why, f"{old} → {shown}")
    for g in new:
        g.corrected = c.text
    rnd.games = [g for g in rnd.games if all(g is not r for r in replaced)] + new
    rnd.games.sort(key=lambda g: (g.table is None, g.table or 0))
    t.recount()
    t.corrections.append(c)
    return c
