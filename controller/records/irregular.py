"""Irregular moves in words a person reads, and each game's history of them.

The arbiter speaks in kinds and squares (``forgotten_flip e5``); arbiters, players
and whoever reads a record later want a sentence: who did what, where, what the
opponent may do about it under rule 5① (第41期名人戦 ルール細則), and what became of
it. Every output — the table's page, the hall's pages, the record's comments —
takes the kinds' words from :mod:`controller.irregularities` and the statuses' words
from here, so they never disagree.

:class:`History` is a fold over the arbiter's events and rulings: replaying a
journal rebuilds it exactly, as it rebuilds the game.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from controller.events import Irregularity
from controller.irregular_flow import Fault, Flow
from controller.irregularities import describe
from controller.position import IllegalMoveError, Position
from controller.records.model import join_comments

if TYPE_CHECKING:
    from controller.records.model import GameRecord, Move

#: What became of an irregularity.
OPEN = "open"  # may still be pointed out and put right
CORRECTED = "corrected"  # put right on the board
WITHDRAWN = "withdrawn"  # the move (or pass) was taken back and played again
STOOD = "stood"  # not pointed out before the next move: the board stands as it is
ACCEPTED = "accepted"  # the arbiter accepted the board as it stood
RULED = "ruled"  # the arbiter set the position

STATUS_TEXT: dict[str, str] = {
    OPEN: "open: it may still be pointed out",
    CORRECTED: "put right",
    WITHDRAWN: "taken back and played again",
    STOOD: "not pointed out: it stands",
    ACCEPTED: "accepted by the arbiter as it stood",
    RULED: "position set by the arbiter",
}
#: An open one the opponent has pointed out: no longer "may be pointed out".
POINTED_OUT_TEXT = "pointed out: being put right"


@dataclass
class Entry:
    """One irregularity of the game and what became of it."""

    n: int  # the move it happened on: 1-based, passes counted (as in the record)
    player: str  # who committed it
    kind: str
    squares: list[str]
    t: float  # game time it was flagged
    status: str = OPEN
    until: float | None = None  # game time its status was settled
    #: Put right after the opponent pointed it out (False: the mover's own doing; None:
    #: not known, a journal from before the distinction was kept).
    pointed_out: bool | None = None

    def text(self) -> str:
        return describe(self.kind, self.player, self.squares)

    @property
    def counts(self) -> bool:
        """Whether it counts among the game's irregularities: every one but a move taken
        back and played again (it never happened on the board). The one definition of
        the count the table's page, the record and ``kaeshi games list`` give."""
        return self.status != WITHDRAWN

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["text"] = self.text()
        d["status_text"] = (POINTED_OUT_TEXT if self.status == OPEN and self.pointed_out
                            else STATUS_TEXT[self.status])
        d["counts"] = self.counts
        if self.status == OPEN:
            flow = Flow().flagged(self.player, self.n, [Fault(Irregularity(self.kind),
                                                               tuple(self.squares))])
            if self.pointed_out:
                flow = flow.point_out()
            d["instruction"] = flow.step().to_json()["todo"]
        return d

    def comment(self) -> str:
        """The sentence for the record, on the move it happened on."""
        return f"{IRREGULAR_NOTE}{self.text()}. {self.outcome()}".strip()

    def outcome(self) -> str:
        """What became of it, in one sentence (the record's comment, the hub's log)."""
        return {
            CORRECTED: {True: "It was pointed out and put right.",
                        False: "It was put right without being pointed out.",
                        None: "It was put right."}[self.pointed_out],
            WITHDRAWN: {True: "It was pointed out and the move taken back.",
                        False: "The move was taken back without being pointed out.",
                        None: "The move was taken back."}[self.pointed_out],
            STOOD: "It was not pointed out and stands.",
            ACCEPTED: "The arbiter accepted the board as it stood.",
            RULED: "The arbiter set the position.",
            OPEN: "It was pointed out and is being put right." if self.pointed_out
            else "It may still be pointed out.",
        }[self.status]


@dataclass
class History:
    """Every irregularity of one game, kept to its end (a fold over the arbiter)."""

    entries: list[Entry] = field(default_factory=list)

    def take(self, events: Iterable[Any], moves: int, t: float,
             open_now: Iterable[dict[str, Any]] | None = None) -> None:
        """Fold in one step at game time ``t``: its events (``Event`` or dicts),
        ``moves`` in the record after it, and the arbiter's open flags after it (a
        flag that left them unexplained was left behind when the next move began;
        None: only the events say, as in a store of events without the arbiter)."""
        for ev in events:
            d = ev.to_dict() if hasattr(ev, "to_dict") else dict(ev)
            kind, when = d.get("event"), float(d.get("t", t))
            if kind in ("move", "pass", "game_over"):
                self._settle(STOOD, when)
            if kind == "irregularity":
                self.entries.append(Entry(moves, str(d["player"]), str(d["kind"]),
                                          list(d.get("squares", [])), when))
            elif kind == "pointed_out":
                for e in self.entries:
                    if e.status == OPEN and e.player == d.get("player"):
                        e.pointed_out = True
            elif kind == "corrected":
                said = d.get("pointed_out")
                self._corrected(str(d["kind"]), list(d.get("squares", [])), when,
                                said if isinstance(said, bool) else None)
        if open_now is None:
            return
        still = {(f.get("player"), f.get("kind"), tuple(f.get("squares", [])))
                 for f in open_now}
        for e in self.entries:
            if e.status == OPEN and (e.player, e.kind, tuple(e.squares)) not in still:
                e.status, e.until = STOOD, t

    def _corrected(self, kind: str, squares: list[str], t: float,
                   pointed_out: bool | None) -> None:
        for e in self.entries:
            if e.status == OPEN and e.kind == kind and e.squares == squares:
                withdrawn = kind in ("illegal_square", "illegal_pass", "out_of_turn")
                e.status, e.until = (WITHDRAWN if withdrawn else CORRECTED), t
                e.pointed_out = pointed_out
                return

    def _settle(self, status: str, t: float) -> None:
        for e in self.entries:
            if e.status == OPEN:
                e.status, e.until = status, t

    def ruled(self, t: float, accepted: bool) -> None:
        """The arbiter's ruling settles whatever was open."""
        self._settle(ACCEPTED if accepted else RULED, t)

    def open(self) -> list[Entry]:
        return [e for e in self.entries if e.status == OPEN]

    def to_json(self) -> list[dict[str, Any]]:
        return [e.to_json() for e in self.entries]

    def on_move(self, n: int) -> list[Entry]:
        """The irregularities the record notes on move ``n``: those that count."""
        return [e for e in self.entries if e.n == n and e.counts]

    def count(self) -> int:
        """How many irregularities the game had (:attr:`Entry.counts`)."""
        return sum(e.counts for e in self.entries)


#: How the record's note on a move begins, once per irregularity that counts
#: (:meth:`Entry.comment`): a finished game's count is read back from its record.
IRREGULAR_NOTE = "Irregular move (rule 5): "


def count_in_comments(comments: Iterable[str]) -> int:
    """The irregularities a record notes on its moves (what :meth:`History.count` gave).

    A record in words has one :data:`IRREGULAR_NOTE` per irregularity; a record the
    arbiter wrote without the words (``kind squares; kind squares``) one note per kind."""
    kinds = {k.value for k in Irregularity}
    total = 0
    for comment in comments:
        said = comment.count(IRREGULAR_NOTE)
        if not said:
            said = sum(1 for part in comment.split(";")
                       if part.split()[:1] and part.split()[0] in kinds)
        total += said
    return total


#: How a record says, in words, that play went on from a board the rules do not give.
#: GGF has no tag for it; Kaeshi reads this sentence back (the board as in ``BO``).
STOOD_NOTE = "Play went on from the board as it stood after this move: "
_STOOD = re.compile(re.escape(STOOD_NOTE) + r"(\d{1,2}(?: [-*O]+)+ [*O])\.?")


def stood_note(board: str) -> str:
    """The sentence for a record: ``board`` is a GGF ``BO`` value."""
    return f"{STOOD_NOTE}{board}."


def split_stood(comment: str) -> tuple[str, str | None]:
    """A comment without its stood-board sentence, and the board it names (or None)."""
    m = _STOOD.search(comment)
    if m is None:
        return comment, None
    rest = (comment[: m.start()] + comment[m.end():]).strip()
    return re.sub(r"[ \t]*\n[ \t]*\n+", "\n", rest), m.group(1)


def stood_board(before: Position | None, after: Position | None, mv: Move
                ) -> Position | None:
    """The official board after ``mv`` if the rules, from ``before``, do not give it (an
    irregular move that stood, a ruling); else None. Its side to move is the opponent's."""
    if before is None or after is None:
        return None
    here = before.with_to_move(mv.player)
    kept = after.with_to_move(mv.player.opponent)
    if mv.player is not before.to_move and before.legal_moves():
        return kept  # a move out of turn that stood: the rules gave the turn to the other side
    try:
        if mv.square is None:
            if here.legal_moves():
                return kept  # a pass with a move available, not pointed out
            ruled = here.pass_turn()
        else:
            ruled = here.play(mv.square)
    except IllegalMoveError:
        return kept
    return None if (ruled.black, ruled.white) == (after.black, after.white) else kept


def for_people(rec: GameRecord, history: History, after: dict[int, Position]) -> GameRecord:
    """The arbiter's record made readable: each move's irregularities in words and what
    became of them, the board play went on from wherever the rules do not give it
    (``after``: the official board after each move, 0 the start), and the mode in
    words rather than a tag GGF does not have."""
    mode = rec.extra.pop("mode", None)
    if mode is not None:
        rec.comments.insert(0, f"Judged by Kaeshi in {mode} mode.")
    for n, mv in enumerate(rec.moves, 1):
        entries = history.on_move(n)
        if entries:
            mv.comment = join_comments(*(e.comment() for e in entries))
        mv.stands = stood_board(after.get(n - 1), after.get(n), mv)
    return rec
