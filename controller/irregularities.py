"""The irregular moves in words: one row per kind, the only place their words live.

The arbiter names a kind and its squares (``forgotten_flip e5``); everything a person
reads says it with the row of :data:`KINDS`: its short name (a heading, a list item,
the pages' event lines — they get the names in the snapshot's ``kind_names``), the
sentence of what happened and the correction rule 5① asks for (第41期名人戦
ルール細則). The table's order is the report order: a move with several faults names
them, in records, on the pages and on the LEDs, in this order.

A kind missing from the table is an error where it is looked up, never a guess.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from controller.events import Irregularity


@dataclass(frozen=True, slots=True)
class KindWords:
    """The words of one kind. ``what`` and ``fix`` are :meth:`str.format` templates
    over the fields :func:`_fields` fills: ``who`` (the offender), ``own`` and
    ``other`` (colours), ``squares``, ``squares_or``, ``discs`` (``the discs on d4
    and e4``) and ``place`` (``its square`` or ``their squares``)."""

    name: str
    what: str
    fix: str


K = Irregularity

#: Every kind, in report order.
KINDS: dict[Irregularity, KindWords] = {
    K.FORGOTTEN_FLIP: KindWords("forgotten flip", "{who} did not turn {discs}",
                                "{who} must turn {discs} to {own}"),
    K.OVER_FLIP: KindWords("over-flip", "{who} turned {discs}, which should not have turned",
                           "{who} must turn {discs} back to {other}"),
    K.WRONG_COLOR: KindWords("wrong colour",
                             "{who} put the new disc on {squares} with the wrong colour up",
                             "{who} must turn the disc on {squares} to {own}"),
    K.OUT_OF_TURN: KindWords("move out of turn", "{who} played {squares} out of turn",
                             "{who} must take the disc on {squares} back and turn back "
                             "what it turned"),
    K.ILLEGAL_SQUARE: KindWords("illegal square", "{who} played {squares}, where no legal "
                                "move is", "{who} must take the disc on {squares} back and "
                                "play a legal move"),
    K.EXTRA_DISC: KindWords("extra disc", "{who} put more than one new disc down ({squares})",
                            "{who} must take back {discs}"),
    K.REMOVED_DISC: KindWords("removed disc", "{who} took away {discs}",
                              "{who} must put {discs} back"),
    K.SHIFTED_DISC: KindWords("shifted disc", "{who} left {discs} off {place}",
                              "{who} must set {discs} straight"),
    K.ILLEGAL_PASS: KindWords("illegal pass", "{who} passed with a legal move at {squares_or}",
                              "{who} must play {squares_or}"),
}

#: The kinds in the order a move's faults are reported.
REPORT_ORDER: dict[Irregularity, int] = {kind: i for i, kind in enumerate(KINDS)}

#: Short name per kind, as the JSON the pages read (``kind_names`` in their snapshots).
KIND_NAMES: dict[str, str] = {kind.value: words.name for kind, words in KINDS.items()}


def words(kind: str) -> KindWords:
    """The row of ``kind``; a kind the table lacks is a ``ValueError`` naming it."""
    return KINDS[Irregularity(kind)]


def name(kind: str) -> str:
    return words(kind).name


def _colour(color: str) -> str:
    return color.capitalize() if color in ("black", "white") else color


def _other(color: str) -> str:
    return {"black": "white", "white": "black"}.get(color, "the opponent")


def _list(squares: Iterable[str], last: str = "and") -> str:
    items = list(squares)
    if len(items) <= 1:
        return "".join(items) or "?"
    return ", ".join(items[:-1]) + f" {last} " + items[-1]


def _fields(player: str, squares: list[str]) -> dict[str, str]:
    many = len(squares) > 1
    return {
        "who": _colour(player),
        "own": player if player in ("black", "white") else "their own",
        "other": _other(player),
        "squares": _list(squares),
        "squares_or": _list(squares, "or"),
        "discs": f"the disc{'s' if many else ''} on {_list(squares)}",
        "place": "their squares" if many else "its square",
    }


def describe(kind: str, player: str, squares: list[str]) -> str:
    """One sentence: who did what, where. ``player`` committed it."""
    return words(kind).what.format(**_fields(player, squares))


def fix(kind: str, player: str, squares: list[str]) -> str:
    """The correction rule 5① asks of ``player``."""
    return words(kind).fix.format(**_fields(player, squares))


def instruction(kind: str, player: str, squares: list[str]) -> str:
    """What happens next under rule 5①, for an irregularity ``player`` committed.

    The opponent points it out by pressing their clock (handing the turn back) and
    naming the discs (for a pass, the legal moves); the offender corrects and
    presses. If the opponent moves on instead, the board stands as it is.
    """
    what = (f"that {_colour(player)} can play {_list(squares, 'or')}"
            if Irregularity(kind) is Irregularity.ILLEGAL_PASS else _list(squares))
    return point_out(player, what, fix(kind, player, squares))


def point_out(player: str, what: str, fixes: str) -> str:
    """Rule 5① in words: who may point out ``what`` and how, ``fixes`` (the offender's
    corrections, one sentence), whose clock ends it, and what happens otherwise."""
    opp, off = _colour(_other(player)), _colour(player)
    return (f"{opp} may point out {what}: press {opp}'s clock to hand the turn back; "
            f"then {fixes}, then press {off}'s clock. If {opp} plays on "
            "instead, the board stands as it is.")
