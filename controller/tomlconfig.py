"""Typed TOML option files: the one parser behind ``kaeshi.toml`` and ``hub.toml``.

A configuration declares its options once, as a tuple of :class:`Option`; this
module turns that list into a checked values dict, an example file and a README
table. Both files are written by hand in a hall, often in a hurry, so every fault
names the file, the line and the key, and nothing a file can hold — NaN, a line
break smuggled into a name, a 400-digit number, brackets nested thousands deep —
gets past the checks or comes back as a traceback. Keeping the hardening in one
place means a new configuration cannot forget a piece of it.
"""

from __future__ import annotations

import math
import re
import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.errors import KaeshiError
from controller.web.tokens import WeakTokenError, check_token_strength


class TomlConfigError(KaeshiError):
    """A configuration file that cannot be used; each configuration raises its own subclass."""


@dataclass(frozen=True, slots=True)
class Option:
    """One option: ``section.key``, its Python type, its bounds and why it exists."""

    section: str
    key: str
    type: type
    default: Any
    doc: str
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] | tuple[int, ...] = ()

    @property
    def name(self) -> str:
        return f"{self.section}.{self.key}"

    def describe_bounds(self) -> str:
        if self.choices:
            return " / ".join(f"`{c}`" for c in self.choices)
        if self.low is not None and self.high is not None:
            return f"{fmt_number(self.low)} – {fmt_number(self.high)}"
        if self.type is str:
            return "text"
        if self.type is bool:
            return "`true` / `false`"
        return ""


def fmt_number(x: float) -> str:
    """A bound as a person would write it: ``10``, not ``10.0``."""
    return str(int(x)) if float(x).is_integer() else str(x)


TYPE_NAMES: dict[type, str] = {
    int: "an integer", float: "a number", str: "a string", bool: "true or false",
}


def check_value(option: Option, value: Any, error: type[TomlConfigError]) -> Any:
    """The value converted and bounded, or ``error`` naming the option (the caller adds where).

    Order matters: type first (so the bounds compare numbers), then finiteness
    (NaN passes every comparison), then text, choices and bounds.
    """
    name, t = option.name, option.type
    if t is float and isinstance(value, int) and not isinstance(value, bool):
        try:
            value = float(value)
        except OverflowError:
            raise error(f"{name} must be a number of usual size; got {short(value)}") from None
    if (t is int and isinstance(value, bool)) or not isinstance(value, t):
        raise error(
            f"{name} must be {TYPE_NAMES[t]}, not {type(value).__name__} {short(value)}"
        )
    if isinstance(value, float) and not math.isfinite(value):
        # NaN passes every bound check (all comparisons are false): refuse it by name
        raise error(f"{name} must be a finite number; got {value!r}")
    if isinstance(value, str) and any(is_control(c) for c in value):
        bad = next(c for c in value if is_control(c))
        raise error(f"{name} must be one line of text without control characters; "
                    f"found {bad!r}")
    if option.choices and value not in option.choices:
        raise error(f"{name} must be one of {', '.join(map(str, option.choices))}; "
                    f"got {short(value)}")
    number = value if isinstance(value, int | float) else None  # bounds are for numbers
    if option.low is not None and number is not None and number < option.low:
        raise error(f"{name} must be at least {fmt_number(option.low)}; got {short(value)}")
    if option.high is not None and number is not None and number > option.high:
        raise error(f"{name} must be at most {fmt_number(option.high)}; got {short(value)}")
    return value


#: Bidirectional controls (the marks, embeddings, overrides and isolates): invisible,
#: they reorder the text after them, so a name holding U+202E displays as another
#: name in a record or on a pairing sheet than the one stored.
BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
                          "\u2066\u2067\u2068\u2069")


def is_control(c: str) -> bool:
    """Line breaks and other control characters (in a name they would forge record
    lines) and bidirectional controls (they would show another name than the one kept)."""
    return ord(c) < 32 or 0x7F <= ord(c) < 0xA0 or c in "\u2028\u2029" or c in BIDI_CONTROLS


def short(value: Any) -> str:
    """A value for a message; a 400-digit number or a page of text is not repeated whole."""
    text = repr(value) if not isinstance(value, int) or abs(value) < 10**30 else (
        f"a {len(str(abs(value)))}-digit number")
    return text if len(text) <= 60 else text[:57] + "..."


_HEADER = re.compile(r"^\s*\[?\[\s*([A-Za-z0-9_\-\"']+)\s*\]")
_KEY = re.compile(r"^\s*([A-Za-z0-9_\-]+|\"[^\"]*\"|'[^']*')\s*(?:\.\s*([A-Za-z0-9_\-]+))?\s*=")


class KeyLines:
    """Line numbers of tables and keys, so messages can point into the file.

    ``tomllib`` gives no positions for values it parsed, so the plain line
    structure the options use (``[section]`` then ``key = value``, or a dotted
    ``section.key = value`` at the top) is scanned separately.
    """

    def __init__(self, text: str) -> None:
        self.keys: dict[tuple[str, str | None], int] = {}
        section = ""
        for lineno, line in enumerate(text.splitlines(), 1):
            header = _HEADER.match(line)
            if header:
                section = header.group(1).strip("\"'")
                self.keys.setdefault((section, None), lineno)
                continue
            key = _KEY.match(line)
            if key:
                first, second = key.group(1).strip("\"'"), key.group(2)
                if second is not None and not section:
                    self.keys.setdefault((first, second), lineno)
                    self.keys.setdefault((first, None), lineno)
                elif second is None:
                    if section:
                        self.keys.setdefault((section, first), lineno)
                    else:
                        self.keys.setdefault((first, None), lineno)

    def where(self, section: str, key: str | None) -> str:
        """`` line N`` for the key (or its section), empty when it cannot be found."""
        lineno = self.keys.get((section, key)) or self.keys.get((section, None))
        return f" line {lineno}" if lineno else ""


@dataclass(frozen=True, slots=True)
class Parsed:
    """A checked file: every option's value by ``section.key``, and the raw tables given,
    for checks across options that want to blame the key the user actually wrote."""

    values: dict[str, Any]
    given: dict[str, Any]
    lines: KeyLines


class Schema:
    """The options of one configuration file and the error type its faults raise."""

    def __init__(self, options: Sequence[Option], error: type[TomlConfigError]) -> None:
        self.options = tuple(options)
        self.error = error
        self.by_name: dict[str, Option] = {o.name: o for o in self.options}
        self.sections: tuple[str, ...] = tuple(dict.fromkeys(o.section for o in self.options))

    def defaults(self) -> dict[str, Any]:
        return {o.name: o.default for o in self.options}

    def check(self, name: str, value: Any) -> Any:
        """One option set outside a file (e.g. from the command line), checked the same way."""
        option = self.by_name.get(name)
        if option is None:
            raise self.error(f"unknown option {name!r}")
        return check_value(option, value, self.error)

    def parse(self, text: str, source: str) -> Parsed:
        """Every option's value, defaults filled in; the first fault raises, naming where."""
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise self.error(f"{source}: not valid TOML: {exc}") from None
        except RecursionError:
            raise self.error(f"{source}: not valid TOML: arrays or tables nested too "
                             f"deeply{_deepest(text)}") from None
        values = self.defaults()
        lines = KeyLines(text)
        for section, table in data.items():
            if section not in self.sections:
                raise self.error(
                    f"{source}{lines.where(section, None)}: unknown section [{_label(section)}] "
                    f"(known: {', '.join(self.sections)})"
                )
            if not isinstance(table, dict):
                raise self.error(
                    f"{source}{lines.where(section, None)}: {section!r} must be a "
                    f"[{section}] table"
                )
            for key, value in table.items():
                name = f"{section}.{key}"
                option = self.by_name.get(name)
                where = lines.where(section, key)
                if option is None:
                    known = ", ".join(o.key for o in self.options if o.section == section)
                    raise self.error(
                        f"{source}{where}: unknown key {short(name)} "
                        f"(known in [{section}]: {known})"
                    )
                try:
                    values[name] = check_value(option, value, self.error)
                except TomlConfigError as exc:
                    raise self.error(f"{source}{where}: {exc}") from None
        return Parsed(values, data, lines)

    def example(self, header: Iterable[str], width: int = 86) -> str:
        """An example file listing every option at its default, with its documentation."""
        out = [f"# {line}" if line else "#" for line in header]
        for section in self.sections:
            out.append("")
            out.append(f"[{section}]")
            for o in (o for o in self.options if o.section == section):
                out.extend(f"# {chunk}" for chunk in _wrap(o.doc, width))
                if o.choices or o.low is not None:
                    bounds = o.describe_bounds().replace("`", "")
                    out.append(f"# ({TYPE_NAMES[o.type]}; {bounds})")
                out.append(f"{o.key} = {toml_value(o.default)}")
        return "\n".join(out) + "\n"

    def markdown_table(self) -> str:
        """The README table of options: name, type, bounds, default, meaning."""
        rows = ["| option | type | allowed | default | meaning |",
                "| --- | --- | --- | --- | --- |"]
        for o in self.options:
            rows.append(
                f"| `{o.name}` | {o.type.__name__} | {o.describe_bounds()} "
                f"| `{toml_value(o.default)}` | {o.doc} |"
            )
        return "\n".join(rows) + "\n"


def read_text(path: str | Path, error: type[TomlConfigError],
              what: str = "configuration file") -> tuple[str, str]:
    """The file's text and its name for messages; a missing or unreadable file is ``error``."""
    p = Path(path)
    try:
        return p.read_text(encoding="utf-8"), str(p)
    except FileNotFoundError:
        raise error(f"{p}: {what} not found") from None
    except UnicodeDecodeError as exc:
        raise error(f"{p}: not UTF-8 text ({exc.reason})") from None
    except OSError as exc:
        raise error(f"{p}: cannot read the {what} ({exc.strerror or exc})") from None


def _deepest(text: str, limit: int = 100) -> str:
    """`` (line N, key K)`` where brackets first nest past ``limit``, found by a rough scan
    (quoted strings skipped) since the parser gave up without a position."""
    depth, quote, key = 0, "", ""
    section = ""
    for lineno, line in enumerate(text.splitlines(), 1):
        if depth == 0 and not quote:
            header = _HEADER.match(line)
            if header:
                section = header.group(1).strip("\"'")
                continue
            found = _KEY.match(line)
            if found:
                parts = [section, found.group(1).strip("\"'"), found.group(2) or ""]
                key = ".".join(p for p in parts if p)
        escaped = False
        for c in line:
            if quote:
                if escaped:
                    escaped = False
                elif c == "\\" and quote == '"':
                    escaped = True
                elif c == quote:
                    quote = ""
            elif c in "\"'":
                quote = c
            elif c == "#":
                break
            elif c in "[{":
                depth += 1
                if depth > limit:
                    return f" (line {lineno}, key {_label(key)})" if key else f" (line {lineno})"
            elif c in "]}":
                depth = max(0, depth - 1)
    return ""


def _label(name: str) -> str:
    """A name from the file, quoted and cut when it holds control characters or runs long."""
    return name if len(name) <= 60 and not any(is_control(c) for c in name) else short(name)


def toml_value(value: Any) -> str:
    """A default as it is written in TOML."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return repr(value)


def _wrap(text: str, width: int) -> list[str]:
    words, lines, line = text.split(), [], ""
    for w in words:
        if line and len(line) + 1 + len(w) > width:
            lines.append(line)
            line = w
        else:
            line = f"{line} {w}" if line else w
    if line:
        lines.append(line)
    return lines


def check_secret(parsed: Parsed, name: str, source: str,
                 error: type[TomlConfigError]) -> None:
    """A weak secret is refused while the file is read, naming its line, before a service
    starts work (a journal, a broker connection) that a page without it could not serve."""
    token = parsed.values[name]
    if not token:
        return
    try:
        check_token_strength(token, name)
    except WeakTokenError as exc:
        section, key = name.split(".", 1)
        raise error(f"{source}{parsed.lines.where(section, key)}: {exc}") from None
