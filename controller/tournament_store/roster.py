"""Reading the event file (TOML) and the roster (CSV); every error names its line.

Rosters come as organisers have them: UTF-8 (with or without a BOM) or Shift_JIS /
CP932, the encoding Excel saves a CSV in on a Japanese system, told apart by whether
the bytes decode; anything else is refused naming the line.  Names are kept in NFKC
form with runs of spaces (the full-width 「　」 included) folded to one, so
「山田　太郎」 and 「山田 太郎」, or ``Ann`` and ``Ａｎｎ``, are found to be one name.
"""

from __future__ import annotations

import csv
import datetime
import io
import re
import tomllib
import unicodedata
from dataclasses import dataclass

from controller.boardsize import SIZES, STANDARD
from controller.tomlconfig import is_control
from controller.tournament.model import DIVISIONS, Player, TournamentError

COLUMNS = ("name", "rank", "club", "seed", "absent")
#: Optional columns, and the other headings taken for them.
OPTIONAL = {"born": ("born", "birth", "birthday"),
            "federation_id": ("federation_id", "wof_id", "player_id", "id"),
            "romanised": ("romanised", "romanized", "latin", "name_latin"),
            "country": ("country", "nation")}
#: 段 1–9 and 級 1–20 (also written 3d, 2k, 三段, 初段).
_RANK = re.compile(r"^(\d{1,2}|[初一二三四五六七八九])(段|級|d|dan|k|kyu)$", re.I)
_KANJI = "初一二三四五六七八九"
_YEAR = re.compile(r"^\d{4}$")
_CP932_STRAY = frozenset("\x80\uf8f0\uf8f1\uf8f2\uf8f3")
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
    #: The board the event is played on (``size = 6`` for a 6x6 side event); files
    #: written before other sizes lack it: 8x8.
    size: int = STANDARD


_ISO_DAY = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")


def check_date(date: object, where: str, *, needed: bool = False) -> str:
    """The event's day as ``YYYY-MM-DD`` (a TOML date, or a string of one); empty only
    when not ``needed`` (an event that sends no rating file). The WOF file's ``%%Date:``
    line is written from it, so a day that is not in the calendar is refused here."""
    if isinstance(date, datetime.datetime):
        raise TournamentError(f"{where}: date is the event's day (2021-07-18), not a time "
                              f"of day ({date.isoformat()})")
    if isinstance(date, datetime.date):
        date = date.isoformat()
    if date == "" and not needed:
        return ""
    if date == "" or date is None:
        raise TournamentError(f"{where}: the event has no date (the day it is held, "
                              "YYYY-MM-DD)")
    if not isinstance(date, str) or not _ISO_DAY.match(date):
        raise TournamentError(f"{where}: date must be the event's day as YYYY-MM-DD "
                              f"(2021-07-18), not {date!r}")
    try:
        datetime.date.fromisoformat(date)
    except ValueError:
        raise TournamentError(f"{where}: date {date!r} is not a day of the calendar") from None
    return date


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
    fields = {k: str(data.get(k, "")) for k in ("country", "sender")}
    fields["date"] = check_date(data.get("date", ""), where)
    extend = data.get("extend", False)
    if not isinstance(extend, bool):
        raise TournamentError(f"{where}: extend must be true or false, not {extend!r}")
    size = data.get("size", STANDARD)
    if isinstance(size, bool) or size not in SIZES:
        raise TournamentError(f"{where}: size must be the board's side, one of "
                              f"{', '.join(map(str, SIZES))}, not {size!r}")
    return EventConfig(name=str(data.get("name", "")), division=division, extend=extend,
                       size=size, **fields)


def fold_name(name: str) -> str:
    """A name as the roster keeps it: NFKC, spaces folded (decision: one form, so the
    sheets and every command see the same text)."""
    return " ".join(unicodedata.normalize("NFKC", name).split())


def decode_roster(data: bytes, where: str) -> str:
    """The roster's text: UTF-8 (BOM or not), else CP932 (Shift_JIS as Excel writes
    it); else refused naming the line of the first byte neither reads."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as utf8:
        bad = utf8.start
        try:
            text = data.decode("cp932")
        except UnicodeDecodeError:
            text = None
        # CP932 reads 0x80, 0xA0 and 0xFD–0xFF alone as stand-ins no Excel file holds
        odd = None if text is None else next(
            (k for k, ch in enumerate(text) if ch in _CP932_STRAY), None)
        if text is not None and odd is None:
            return text
        line = (data[:bad].count(b"\n") + 1 if text is None or odd is None
                else text[:odd].count("\n") + 1)
        raise TournamentError(
            f"{where} line {line}: byte 0x{data[bad]:02x} is neither UTF-8 nor "
            "Shift_JIS; save the file as \"CSV UTF-8\" (Excel: File → Save As → CSV "
            "UTF-8) and try again") from None


def check_rank(rank: str, where: str) -> str:
    if not rank:
        return ""
    m = _RANK.match(rank)
    if m:
        digits, unit = m.groups()
        value = int(digits) if digits.isdigit() else _KANJI.index(digits) or 1
        top = 9 if unit.lower() in ("段", "d", "dan") else 20
        if 1 <= value <= top:
            return rank
    raise TournamentError(f"{where}: the rank {rank!r} is not one of 1–9段 or 1–20級 "
                          "(also written 初段, 三段, 3d, 2k), or empty")


def check_born(born: str, where: str, on: str = "") -> str:
    """A year (YYYY) or an ISO date, not after the event's date (``on``)."""
    if not born:
        return ""
    try:
        day = (datetime.date(int(born), 1, 1) if _YEAR.match(born)
               else datetime.date.fromisoformat(born))
    except ValueError:
        raise TournamentError(f"{where}: born must be a year (1975) or a date "
                              f"(1975-04-01), not {born!r}") from None
    if day.year < 1900:
        raise TournamentError(f"{where}: born {born!r} is before 1900")
    if on:
        try:
            event_day = datetime.date.fromisoformat(on)
        except ValueError:
            event_day = None
        if event_day is not None and day > event_day:
            raise TournamentError(f"{where}: born {born!r} is after the event's date {on}")
    return born


def _column(cells: dict[str, str], key: str) -> str:
    for heading in OPTIONAL.get(key, (key,)):
        if cells.get(heading):
            return cells[heading]
    return ""


def parse_roster(text: str, where: str, on: str = "") -> list[Player]:
    """Columns name, rank, club, seed, absent (header row required); optionally born,
    federation_id, romanised, country.  ``on``: the event's date (born is before it)."""
    rows = list(csv.reader(io.StringIO(text)))
    if not rows:
        raise TournamentError(f"{where}: the roster is empty")
    header = [fold_name(h).lower() for h in rows[0]]
    if "name" not in header:
        raise TournamentError(f"{where} line 1: the header must name the columns "
                              f"({', '.join(COLUMNS)})")
    players: list[Player] = []
    first_line: dict[str, tuple[int, str]] = {}
    for line, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue
        at = f"{where} line {line}"
        cells = dict(zip(header, (c.strip() for c in row), strict=False))
        for column, value in cells.items():
            bad = next((c for c in value if is_control(c)), None)
            if bad is not None:
                raise TournamentError(f"{at}: the {column} holds the control character "
                                      f"{bad!r} (a record or a pairing sheet would show "
                                      "other text than the one kept)")
        name = fold_name(cells.get("name", ""))
        if not name:
            raise TournamentError(f"{at}: the name is empty")
        key = name.casefold()
        if key in first_line:
            first, written = first_line[key]
            same = "" if written == cells["name"] else (
                f", written {written!r} there: names are compared after NFKC and folding "
                "spaces")
            raise TournamentError(
                f"{at}: duplicate name {cells['name']!r} (first on line {first}{same})")
        first_line[key] = (line, cells["name"])
        seed_text = fold_name(cells.get("seed", ""))
        if seed_text and not all("0" <= ch <= "9" for ch in seed_text):
            raise TournamentError(f"{at}: seed must be digits, not {seed_text!r}")
        absent_text = fold_name(cells.get("absent", "")).lower()
        if absent_text not in TRUE | FALSE:
            raise TournamentError(
                f"{at}: absent must be empty, yes or no, not {absent_text!r}"
            )
        rank = check_rank(fold_name(cells.get("rank", "")).replace(" ", ""), at)
        born = check_born(fold_name(_column(cells, "born")), at, on)
        fid = fold_name(_column(cells, "federation_id"))
        if fid and not (fid.isascii() and fid.isdigit()):
            raise TournamentError(f"{at}: the federation ID must be digits, not {fid!r}")
        country = fold_name(_column(cells, "country")).upper()
        if country and not (country.isascii() and country.isalpha() and len(country) == 3):
            raise TournamentError(f"{at}: the country must be a three-letter code (JPN), "
                                  f"not {country!r}")
        players.append(Player(
            name=name, rank=rank, club=fold_name(cells.get("club", "")),
            seed=int(seed_text) if seed_text else None, absent=absent_text in TRUE,
            born=born, federation_id=fid, romanised=fold_name(_column(cells, "romanised")),
            country=country,
        ))
    if not players:
        raise TournamentError(f"{where}: the roster lists nobody")
    return players
