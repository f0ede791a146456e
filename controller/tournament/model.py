"""Players, divisions and per-division settings: the vocabulary every module shares."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from controller.errors import KaeshiError

Division = Literal["open", "women", "children"]
DIVISIONS: tuple[Division, ...] = ("open", "women", "children")


class TournamentError(KaeshiError):
    """Input the rules or the event's state refuse; the message names what and where."""


@dataclass(frozen=True)
class Player:
    """One roster entry.  ``seed`` is the number drawn at reception (1–4 in the open
    division; the designated number in the women's and children's divisions)."""

    name: str
    rank: str = ""
    club: str = ""
    seed: int | None = None
    absent: bool = False
    born: str = ""
    #: For the rating list: the federation's player ID, the romanised name, the
    #: country (WOF three-letter code); empty when the roster does not give them.
    federation_id: str = ""
    romanised: str = ""
    country: str = ""


@dataclass(frozen=True)
class DivisionSettings:
    """What every game of a division is played with (大会方式: 持ち時間, 引き分け)."""

    division: Division
    minutes: int
    draws: bool
    system: Literal["league", "knockout"]


SETTINGS: dict[Division, DivisionSettings] = {
    "open": DivisionSettings("open", minutes=20, draws=False, system="league"),
    "women": DivisionSettings("women", minutes=20, draws=False, system="knockout"),
    "children": DivisionSettings("children", minutes=15, draws=False, system="knockout"),
}


def settings_for(division: str) -> DivisionSettings:
    if division not in SETTINGS:
        raise TournamentError(
            f"unknown division {division!r}; expected one of {', '.join(DIVISIONS)}"
        )
    return SETTINGS[division]


#: Which end of the standings an unpaired top player meets: the open division's
#: rule 6 pairs them as low as it can, the 新オセロ方式 as high as it can.
Prefer = Literal["lowest", "highest"]


@dataclass(frozen=True)
class Entrant:
    """One player as the pairing sees them: standing, past opponents, past byes."""

    name: str
    wins: int
    had_bye: bool = False
    played: frozenset[str] = frozenset()
