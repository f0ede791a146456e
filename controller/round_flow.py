"""A table's round as one explicit state machine, one text per state.

A round at one table goes: *paired* (the pairing is out, the table has not set the
game up yet), *playing*, then once the board is full or a flag fell, *waiting for
the signatures* (rule 15), or for the *伏せ石* (a 32–32 board in an event without
draws, rule 1), or for the *arbiter* (a dispute, a flag, a table that does not ask
the players to sign), and *done* once the director holds the result. A table set up
for another board than the event's *refuses* the pairing: nothing begins there until
the arbiter sets it up for the event's board and sends the pairing again. A table the
round gives no game is *idle*, a player without an opponent has a *bye*, and before
a round is paired (or between two rounds) a table is *waiting for the pairing*.

Everything the hub says about a table's round — the dashboard's card, the round
bar, the table's page, the simulate summary — is :meth:`TableRound.step` of one
:class:`TableRound`: the same words, naming the players, the score, what is awaited
and who must act. The hub builds it from what it holds (the table's state, the
director's result, the result desk) with :func:`of_facts`; a hub that restarts
builds the same one again from the same facts.

Pure: no I/O, no clock.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from controller.boardsize import a_label, board_size

#: The 伏せ石's words, as the result desk refuses a drawn board without it.
TOSS_TODO = "record who holds the draw-win right, and the result goes to the director"


def refusal_todo(event_size: int) -> str:
    """What the arbiter does at a table that refuses a pairing on ``event_size`` boards:
    the end of the table's refusal, and the next step of the hub's round step and bar."""
    return (f"set game.size = {event_size} at the table, restart it and send the pairings "
            "again")


def pairing_refusal(round: int, event_size: int, table_size: int) -> str:
    """Why a table set up for ``table_size`` does not begin ``round``'s game, paired on
    ``event_size`` boards (the hub's desk would refuse a result from another board)."""
    return (f"round {round} is paired on {a_label(event_size)} board, this table is set "
            f"up for {a_label(table_size)} (game.size): the game is not started; "
            f"{refusal_todo(event_size)}")


class Stage(StrEnum):
    UNPAIRED = "unpaired"  # waiting for the pairing
    PAIRED = "paired"  # the pairing is out; the table has not set the game up
    REFUSED = "refused"  # the table's board is not the event's: it will not begin the game
    IDLE = "idle"  # no game at this table this round
    BYE = "bye"  # a player with no opponent this round (no table)
    PLAYING = "playing"
    SIGNATURES = "signatures"  # game over: the players sign at the table
    TOSS = "toss"  # a drawn board waits for the 伏せ石
    ARBITER = "arbiter"  # game over: the arbiter confirms
    DONE = "done"  # the director holds the result

    @property
    def over(self) -> bool:
        """Nothing more happens at this table until the next round is paired."""
        return self in (Stage.UNPAIRED, Stage.IDLE, Stage.BYE, Stage.DONE)


#: How far a game of the round has come (the round bar's counts, and what may follow).
ORDER = {Stage.PAIRED: 0, Stage.REFUSED: 0, Stage.PLAYING: 1, Stage.SIGNATURES: 2, Stage.TOSS: 3,
         Stage.ARBITER: 3, Stage.DONE: 4}


class RoundFlowError(ValueError):
    """A step the round does not have in its current state."""


@dataclass(frozen=True, slots=True)
class Step:
    """What a person reads now: the text, a short label for a card (``label``), who acts
    next (``players``, ``black``, ``white``, ``table``, ``arbiter``, ``hub`` or
    ``director``) and ``todo``, the next step alone."""

    stage: Stage
    text: str
    label: str
    who: str
    todo: str

    def to_json(self) -> dict[str, Any]:
        return {"stage": self.stage.value, "text": self.text, "label": self.label,
                "who": self.who, "todo": self.todo}


def _score(score: tuple[int, int] | None) -> str:
    return "" if score is None else f"{score[0]}–{score[1]}"


@dataclass(frozen=True, slots=True)
class TableRound:
    """One table's (or one bye's) round and where it stands; immutable, each step
    returns the next."""

    stage: Stage = Stage.UNPAIRED
    round: int | None = None  # the round (UNPAIRED: the last one played, None before any)
    table: int | None = None  # None: a bye
    black: str = ""  # BYE: the player with the bye
    white: str = ""
    moves: int = 0
    score: tuple[int, int] | None = None  # discs black–white once the game is over
    winner: str | None = None  # black | white | draw
    signed: tuple[bool | None, bool | None] = (None, None)  # black's and white's word
    card: bool = True  # the table asks the players to sign (rule 15)
    flagged: tuple[str, ...] = ()  # why the table asks the arbiter whatever they sign
    needs_toss: bool = False  # no draws and no 伏せ石 recorded
    why: str = ""  # ARBITER: why the arbiter
    how: str = ""  # DONE: signed, confirmed, forfeit
    offline: bool = False  # the hub hears nothing from the table
    holder: str = ""  # the 伏せ石's draw-win right, once recorded (a colour)
    boards: tuple[int, int] | None = None  # REFUSED: the table's board size, the event's

    # ------------------------------------------------------------ transitions
    def pair(self, round: int, black: str, white: str, needs_toss: bool = False
             ) -> TableRound:
        """The director paired a game of ``round`` here (sent again: nothing changes)."""
        if self.stage in (Stage.PAIRED, Stage.REFUSED) and self.round == round:
            # sent again: a table set up for another board still refuses it
            return replace(self, black=black, white=white, needs_toss=needs_toss)
        self._next_round(round)
        return TableRound(Stage.PAIRED, round, self.table, black, white,
                          needs_toss=needs_toss, offline=self.offline)

    def no_game(self, round: int) -> TableRound:
        """``round`` has no game at this table."""
        self._next_round(round)
        return TableRound(Stage.IDLE, round, self.table, offline=self.offline)

    def bye(self, round: int, player: str) -> TableRound:
        """``player`` has no opponent in ``round`` (a win without a game, no table)."""
        self._next_round(round)
        return TableRound(Stage.BYE, round, None, player)

    def refused(self, table_size: int, event_size: int) -> TableRound:
        """The table, set up for ``table_size`` boards, will not begin this round's game
        on the event's ``event_size`` ones (said again: the sizes it says now)."""
        self._require(Stage.PAIRED, Stage.REFUSED)
        if table_size == event_size:
            raise RoundFlowError("the table is set up for the event's board: nothing to refuse")
        return replace(self, stage=Stage.REFUSED, boards=(table_size, event_size))

    def fixed(self) -> TableRound:
        """The arbiter set the table up for the event's board: it waits for the
        pairing again."""
        self._require(Stage.REFUSED)
        return replace(self, stage=Stage.PAIRED, boards=None)

    def started(self) -> TableRound:
        """The table set this round's game up (its state names the round's game)."""
        self._require(Stage.PAIRED)
        return replace(self, stage=Stage.PLAYING)

    def moved(self, moves: int) -> TableRound:
        self._require(Stage.PLAYING)
        return replace(self, moves=moves)

    def ended(self, black: int, white: int, winner: str, card: bool = True,
              flagged: Iterable[str] = ()) -> TableRound:
        """The game is over at the table with this score; ``card``: the players sign it
        there; ``flagged``: why the table asks the arbiter anyway."""
        self._require(Stage.PLAYING)
        done = replace(self, score=(black, white), winner=winner, card=card,
                       flagged=tuple(flagged))
        if not card:
            return replace(done, stage=Stage.ARBITER,
                           why="this table does not ask the players to sign")
        return replace(done, stage=Stage.SIGNATURES)

    def said(self, colour: str, agrees: bool) -> TableRound:
        """``colour``'s player signs (``agrees``) or disputes the result at the table; a
        word once said stands."""
        self._require(Stage.SIGNATURES)
        k = 0 if colour == "black" else 1
        if self.signed[k] is not None and self.signed[k] != agrees:
            raise RoundFlowError(f"{colour} has already answered; that stands (rule 15)")
        signed = (agrees, self.signed[1]) if k == 0 else (self.signed[0], agrees)
        now = replace(self, signed=signed)
        if False in signed:
            who = "Black" if signed[0] is False else "White"
            return replace(now, stage=Stage.ARBITER, why=f"{who} disputes it")
        if signed == (True, True):
            return now._to_director()
        return now

    def _to_director(self) -> TableRound:
        """Both signed: the desk passes it on, unless the table flagged it or a drawn
        board has no winner yet."""
        if self.flagged:
            return replace(self, stage=Stage.ARBITER,
                           why=f"the table flagged it: {', '.join(self.flagged)}")
        if self._drawn() and self.needs_toss:
            return replace(self, stage=Stage.TOSS)
        winner = self.holder if self._drawn() and self.holder else self.winner
        return replace(self, stage=Stage.DONE, how="signed", winner=winner)

    def _drawn(self) -> bool:
        return self.score is not None and self.score[0] == self.score[1]

    def toss(self, holder: str) -> TableRound:
        """The arbiter recorded the 伏せ石: ``holder`` (a colour) wins a drawn board."""
        self._require(Stage.PAIRED, Stage.REFUSED, Stage.PLAYING, Stage.SIGNATURES,
                      Stage.TOSS, Stage.ARBITER)
        if not self.needs_toss:
            raise RoundFlowError("no 伏せ石 is awaited at this table")
        now = replace(self, needs_toss=False, holder=holder)
        if self.stage is Stage.TOSS:
            return replace(now, stage=Stage.DONE, how="signed", winner=holder)
        return now

    def confirmed(self, black: int, white: int, winner: str) -> TableRound:
        """The arbiter confirmed the result (with corrected counts, perhaps)."""
        self._require(Stage.SIGNATURES, Stage.ARBITER, Stage.TOSS)
        if black == white and self.needs_toss:
            raise RoundFlowError("a drawn board and no 伏せ石 recorded: record the toss first")
        if black == white and self.holder:
            winner = self.holder  # the 伏せ石 decides a drawn board
        return replace(self, stage=Stage.DONE, score=(black, white), winner=winner,
                       how="confirmed")

    def forfeit(self, loser: str) -> TableRound:
        """A late player lost without a game (rules 11–12), whatever board the table is
        set up for."""
        self._require(Stage.PAIRED, Stage.REFUSED, Stage.PLAYING)
        winner = "white" if loser == "black" else "black"
        return replace(self, stage=Stage.DONE, winner=winner, how="forfeit")

    def link(self, online: bool) -> TableRound:
        """The hub hears the table, or no longer does."""
        return self if self.stage is Stage.BYE else replace(self, offline=not online)

    def _next_round(self, round: int) -> None:
        if not self.stage.over:
            raise RoundFlowError(f"round {self.round} is still {self.stage.value} here")
        if self.round is not None and round <= self.round and self.stage is not Stage.UNPAIRED:
            raise RoundFlowError(f"round {round} is not after round {self.round}")

    def _require(self, *stages: Stage) -> None:
        if self.stage not in stages:
            raise RoundFlowError(f"no such step while the table is {self.stage.value}")

    # ------------------------------------------------------------------ words
    def players(self) -> str:
        return f"{self.black} (black) – {self.white} (white)"

    def _won(self) -> str:
        if self.winner == "draw":
            return "a draw"
        name = self.black if self.winner == "black" else self.white
        return f"{name or (self.winner or '').capitalize()} wins"

    def step(self) -> Step:
        """The one text of the current state, its label, who acts and what to do."""
        s, r = self.stage, self.round
        head = f"Round {r}: " if r is not None else ""
        if s is Stage.UNPAIRED:
            nxt = 1 if r is None else r + 1
            todo = f"the director pairs round {nxt} once every result of the round is in" \
                if r is not None else "the director pairs round 1 after the lottery"
            return Step(s, f"Waiting for the pairing of round {nxt}.",
                        "waiting for the pairing", "director", todo)
        if s is Stage.IDLE:
            return Step(s, f"{head}no game at this table: idle until the next round.",
                        "idle (no game this round)", "director", "nothing to do here")
        if s is Stage.BYE:
            return Step(s, f"{head}{self.black} has a bye (a win without a game).",
                        "bye", "director", "nothing to play")
        if s is Stage.PAIRED:
            todo = ("the table sets the game up; if it still shows its last game, "
                    "send the pairings again")
            return Step(s, f"{head}{self.players()}: paired, not set up at the table "
                           "yet.", "paired, not started", "table", todo)
        if s is Stage.REFUSED:
            assert self.boards is not None
            mine, event = self.boards
            todo = refusal_todo(event)
            return Step(s, f"{head}{self.players()}: pairing refused, the table is set up "
                           f"for {a_label(mine)} board and the event is on "
                           f"{board_size(event).label} boards: {todo}.",
                        "pairing refused", "arbiter", todo)
        if s is Stage.PLAYING:
            if self.offline:
                return Step(s, f"{head}{self.players()}: playing, move {self.moves}; the "
                               "table is offline, the hub hears nothing from it.",
                            "playing (offline)", "arbiter", "look at the table")
            if not self.moves:
                return Step(s, f"{head}{self.players()}: waiting for the first move.",
                            "waiting for the first move", "black", "Black plays the first move")
            return Step(s, f"{head}{self.players()}: playing, move {self.moves}.",
                        f"playing, move {self.moves}", "players", "play on")
        score = _score(self.score)
        if s is Stage.SIGNATURES:
            missing = [c for c, said in zip(("Black", "White"), self.signed, strict=True)
                       if said is None]
            if not missing:
                return Step(s, f"{head}game over, {score}: signed by both, the result "
                               "goes to the director.", "signed by both", "hub",
                            "the hub passes it to the director")
            who = " and ".join(missing)
            todo = f"{who} sign{'s' if len(missing) == 1 else ''} the result at the table"
            return Step(s, f"{head}game over, {score}: waiting for {who} to sign.",
                        f"waiting for {who} to sign", missing[0].lower()
                        if len(missing) == 1 else "players", todo)
        if s is Stage.TOSS:
            return Step(s, f"{head}{score} and no 伏せ石 recorded: {TOSS_TODO}.",
                        "waiting for the 伏せ石", "arbiter", TOSS_TODO)
        if s is Stage.ARBITER:
            todo = "the arbiter checks the score card and confirms the result"
            if self._drawn() and self.needs_toss:
                todo = f"the arbiter records the 伏せ石 first, then {todo[12:]}"
            return Step(s, f"{head}game over, {score}: waiting for the arbiter to confirm "
                           f"the result ({self.why}).", "waiting for the arbiter", "arbiter",
                        todo)
        done = {"signed": "signed by both", "confirmed": "confirmed by the arbiter",
                "forfeit": "by forfeit (不戦敗)"}.get(self.how, "")
        said = f"{score}, " if score and self.how != "forfeit" else ""
        return Step(s, f"{head}done, {said}{self._won()}{', ' + done if done else ''}"
                       " — nothing to do.", f"done {score}".strip(), "director",
                    "nothing to do")


def of_facts(round: int | None, table: int, *, paired: tuple[str, str] | None,
             on_table: bool = False, moves: int = 0,
             result: tuple[int, int, str] | None = None,
             signoff: tuple[bool | None, bool | None] | None = None,
             flagged: Iterable[str] = (), needs_toss: bool = False,
             held: tuple[int, int, str, str] | None = None, refused: str = "",
             online: bool = True, boards: tuple[int, int] | None = None) -> TableRound:
    """The round at ``table`` from what the hub holds: ``paired`` (black, white) in
    ``round`` or None; ``on_table``: the table's state is of this round's game, with
    ``moves`` and its ``result`` (black, white, winner) and ``signoff`` (each player's
    word; None: the table does not ask them); ``held``: the director's result (black,
    white, winner, how); ``refused``: why the desk did not take a signed result;
    ``boards``: the table's board size and the event's, when they differ and the table
    has not begun the round's game (it refuses the pairing)."""
    base = TableRound(table=table, offline=not online)
    if round is None:
        return base
    if paired is None:
        return base.no_game(round)
    flow = base.pair(round, *paired, needs_toss=needs_toss)
    if held is not None:
        b, w, winner, how = held
        score = None if how == "forfeit" else (b, w)
        return replace(flow, stage=Stage.DONE, score=score, winner=winner, how=how,
                       signed=signoff or (None, None), card=signoff is not None)
    if not on_table:
        return flow if boards is None else flow.refused(*boards)
    flow = flow.started().moved(moves)
    if result is None:
        return flow
    flow = flow.ended(*result, card=signoff is not None, flagged=flagged)
    if flow.stage is Stage.ARBITER:
        return flow
    for colour, said in zip(("black", "white"), signoff or (None, None), strict=True):
        if said is not None and flow.stage is Stage.SIGNATURES:
            flow = flow.said(colour, said)
    if flow.stage is Stage.DONE:  # both signed, yet the director does not hold it
        return replace(flow, stage=Stage.SIGNATURES, how="") if not refused else \
            replace(flow, stage=Stage.ARBITER, how="", why=refused)
    if refused and flow.stage is Stage.SIGNATURES:
        return replace(flow, stage=Stage.ARBITER, why=refused)
    return flow


def bar(round: int | None, rounds: Iterable[TableRound]) -> str:
    """The round at a glance: ``Round 2: 3 of 4 results, 4 byes, 1 waiting for the
    arbiter`` (only what there is, beside the results), then the arbiter's next step at
    each table that refuses its pairing (it holds the round up): ``— arbiter: table 7, …``."""
    items = list(rounds)
    if round is None:
        return "No round is paired yet."
    count = {s: sum(1 for t in items if t.stage is s) for s in Stage}
    games = sum(count[s] for s in ORDER)
    parts = [f"{count[Stage.DONE]} of {games} result{'s' if games != 1 else ''}"]
    for stage, one, many in (
            (Stage.BYE, "1 bye", "{} byes"),
            (Stage.REFUSED, "1 pairing refused", "{} pairings refused"),
            (Stage.PAIRED, "1 not started", "{} not started"),
            (Stage.PLAYING, "1 playing", "{} playing"),
            (Stage.SIGNATURES, "1 waiting for signatures", "{} waiting for signatures"),
            (Stage.TOSS, "1 waiting for the 伏せ石", "{} waiting for the 伏せ石"),
            (Stage.ARBITER, "1 waiting for the arbiter", "{} waiting for the arbiter"),
            (Stage.IDLE, "1 table idle", "{} tables idle")):
        if count[stage]:
            parts.append(one if count[stage] == 1 else many.format(count[stage]))
    said = f"Round {round}: " + ", ".join(parts)
    refused = [t for t in items if t.stage is Stage.REFUSED]
    if refused:  # each one the arbiter's to put right (its Step.who)
        said += f" — {refused[0].step().who}: " + "; ".join(
            f"table {t.table}, {t.step().todo}" for t in refused)
    return said
