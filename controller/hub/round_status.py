"""Each table's round as the hub holds it (:mod:`controller.round_flow`), and the round
bar: built from the tables' states, the director's results and the result desk.

The flow is rebuilt from these facts on every page build, so what the dashboard, the
table's page and the round bar say after a hub restart is what they said before it. A
pairing a table refuses is one of them: the table's last state (kept in the hub's store,
read back by the protocol's reader) names the board it is set up for, the director's
pairing the event's.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from controller.hall_protocol.protocol import TableStatus
from controller.hub.results import Director, Pairing, ResultDesk, drawn_on_board
from controller.round_flow import TableRound, bar, of_facts


@dataclass(frozen=True)
class HallRound:
    """The round being played: each table's flow by table number, the byes, the bar."""

    round: int | None
    tables: dict[int, TableRound]
    byes: list[TableRound]

    @property
    def text(self) -> str:
        return bar(self.round, [*self.tables.values(), *self.byes])


def table_round(status: TableStatus | None, table: int, director: Director,
                desk: ResultDesk | None, paired: dict[int, Pairing] | None = None
                ) -> TableRound:
    """Where the round stands at ``table`` (a table that has not reported: ``status``
    None); ``paired``: the round's pairings by table, when the caller has them."""
    rnd = director.current_round()
    online = status is None or status.online
    if rnd is None:
        return of_facts(None, table, paired=None, online=online)
    if paired is None:
        paired = {q.table: q for q in director.pairings(rnd)}
    p = paired.get(table)
    if p is None:
        return of_facts(rnd, table, paired=None, online=online)
    s = status.state if status is not None else None
    card = s.signoff if s is not None else None
    result = s.result if s is not None else None
    on_table = s is not None and s.round == rnd
    held = director.result(rnd, table)
    signed = None if card is None else (card.black_says, card.white_says)
    if held is not None:
        how = ("forfeit" if held.reason == "forfeit" else
               "signed" if on_table and card is not None and card.status == "signed"
               and (card.black, card.white) == (held.black, held.white) else "confirmed")
        # a drawn board the 伏せ石 decided: the director keeps it as a draw, won by the holder
        winner = p.draw_win_right if held.winner == "draw" and p.draw_win_right in (
            "black", "white") else held.winner
        return of_facts(rnd, table, paired=(p.black, p.white), needs_toss=p.needs_toss,
                        held=(held.black, held.white, winner, how),
                        signoff=signed if on_table else None, online=online)
    refused = ""
    if on_table and s is not None and desk is not None:
        refused = desk.refused.get((table, s.game), "")
        if result is not None and card is not None and card.status == "signed" and (
                card.black, card.white, card.winner) != (result.black, result.white,
                                                         result.winner):
            refused = (f"the players signed {card.black}–{card.white} but the table shows "
                       f"{result.black}–{result.white}")
    # a table set up for another board refuses the pairing (its state says why, and its
    # size says so still after a restart that lost the words): the arbiter's to put right
    boards = (s.size, p.size) if s is not None and not on_table and s.size != p.size \
        else None
    score = None if result is None or not on_table else (
        result.black, result.white, "draw" if drawn_on_board(result) else result.winner)
    return of_facts(rnd, table, paired=(p.black, p.white), on_table=on_table,
                    moves=s.moves if on_table and s is not None else 0, result=score,
                    signoff=signed, flagged=card.flags if card is not None else (),
                    needs_toss=p.needs_toss, refused=refused, online=online,
                    boards=boards)


def hall_round(statuses: Iterable[TableStatus], director: Director,
               desk: ResultDesk | None) -> HallRound:
    """Every table that reported or is paired, and every bye, in the current round."""
    rnd = director.current_round()
    by_table = {st.table: st for st in statuses}
    paired = {p.table: p for p in director.pairings(rnd)} if rnd is not None else {}
    numbers = set(by_table) | set(paired)
    tables = {n: table_round(by_table.get(n), n, director, desk, paired)
              for n in sorted(numbers)}
    byes_of = getattr(director, "byes", None)  # a director without byes has none
    names: list[str] = list(byes_of(rnd)) if rnd is not None and callable(byes_of) else []
    byes = [TableRound().bye(rnd, name) for name in names] if rnd is not None else []
    return HallRound(rnd, tables, byes)
