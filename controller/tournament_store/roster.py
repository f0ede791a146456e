"""Reading the event file (TOML) and the roster (CSV); every error names its line."""

from __future__ import annotations

import csv
import io
import tomllib
from dataclasses import dataclass

from controller.tomlconfig import is_control
from controller.tournament.model import DIVISIONS, Player, TournamentError

COLUMNS = ("name", "rank", "club", "seed", "absent")
TRUE = {"1", "yes", "y", "x", "true", "absent", "欠", "欠場"}
FALSE = {"", "0", "no", "n", "false"}


@dataclass(frozen=True)
class EventConfig:
    name: str
    division: str
    date: str = ""
    country: str = ""
    sender: str = ""
    extend: bool = False  # the organiser confirms a field beyond the rules' size


def parse_event(text: str, where: str) -> EventConfig:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise TournamentError(f"{where}: {exc}") from None
    division = data.get("division", "open")
    if division not in DIVISIONS:
        raise TournamentError(
            f"{where}: division must be one of {', '.join(DIVISIONS)}, not {division!r}"
        )
    fields = {k: str(data.get(k, "")) for k in ("date", "country", "sender")}
    extend = data.get("extend", False)
    if not isinstance(extend, bool):
        raise TournamentError(f"{where}: extend must be true or false, not {extend!r}")
    return EventConfig(name=str(data.get("name", "")), division=division, extend=extend,
                       **fields)


def parse_roster(text: str, where: str) -> list[Player]:
    """Columns name, rank, club, seed, absent (header row required; born optional)."""
    rows = list(csv.reader(io.StringIO(text)))
    if not rows:
        raise TournamentError(f"{where}: the roster is empty")
    header = [h.strip().lower() for h in rows[0]]
    if "name" not in header:
        raise TournamentError(f"{where} line 1: the header must name the columns "
                              f"({', '.join(COLUMNS)})")
    players: list[Player] = []
    first_line: dict[str, int] = {}
    for line, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue
        cells = dict(zip(header, (c.strip() for c in row), strict=False))
        name = cells.get("name", "")
        if not name:
            raise TournamentError(f"{where} line {line}: the name is empty")
        for column in ("name", "rank", "club", "born"):
            bad = next((c for c in cells.get(column, "") if is_control(c)), None)
            if bad is not None:
                raise TournamentError(f"{where} line {line}: the {column} holds the control "
                                      f"character {bad!r} (a record or a pairing sheet would "
                                      "show other text than the one kept)")
        if name in first_line:
            raise TournamentError(
                f"{where} line {line}: duplicate name {name!r} (first on line {first_line[name]})"
            )
        first_line[name] = line
        seed_text = cells.get("seed", "")
        if seed_text and not all("0" <= ch <= "9" for ch in seed_text):
            raise TournamentError(f"{where} line {line}: seed must be digits, not {seed_text!r}")
        absent_text = cells.get("absent", "").lower()
        if absent_text not in TRUE | FALSE:
            raise TournamentError(
                f"{where} line {line}: absent must be empty, yes or no, not {absent_text!r}"
            )
        players.append(Player(
            name=name, rank=cells.get("rank", ""), club=cells.get("club", ""),
            seed=int(seed_text) if seed_text else None, absent=absent_text in TRUE,
            born=cells.get("born", ""),
        ))
    if not players:
        raise TournamentError(f"{where}: the roster lists nobody")
    return players
