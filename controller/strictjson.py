"""JSON read and written strictly: what one side refuses, the other never writes.

Python's :mod:`json` reads ``NaN``, ``Infinity``, ``1e400`` (as infinity), a lone
surrogate escape (``"\\ud800"``, a string no UTF-8 encoder can write back) and nesting
deep enough to raise :class:`RecursionError`; each of those once reached the hub's
store and turned every page that served the value into a 500. :func:`loads` refuses
all of them with a reason, and :func:`dumps` refuses to write what :func:`loads`
would refuse, so a value that passed one edge is safe at every other.

A value is *clean* when every string is valid Unicode without control characters
(C0, DEL, C1, the line and paragraph separators, the bidirectional controls), every
number is finite and an integer is within JavaScript's safe range, and it nests at
most ``max_depth`` levels. Text with line breaks has no place in any message of
the hall or any request body of the pages.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from controller.errors import KaeshiError

#: Deepest nesting accepted (a table state is four levels deep).
MAX_DEPTH = 16
#: Largest integer accepted: beyond this a browser's JSON.parse loses digits.
MAX_INT = 2**53
#: Longest string accepted anywhere (a field's own reader bounds it further).
MAX_STR = 4096

#: What makes a string unclean: lone surrogates, C0/DEL/C1 controls, line and
#: paragraph separators, bidirectional controls (as ``controller.tomlconfig.is_control``).
_UNCLEAN = re.compile(
    "[\ud800-\udfff\x00-\x1f\x7f-\x9f\u2028\u2029"
    "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
#: What no UTF-8 encoder can write: a lone surrogate (what an output must not hold).
_INVALID = re.compile("[\ud800-\udfff]")


class StrictJSONError(KaeshiError, ValueError):
    """JSON that is not clean; the message says what and where (a JSON path)."""


def string_problem(s: str, pattern: re.Pattern[str] = _UNCLEAN) -> str | None:
    """Why ``s`` is not a clean string, or None."""
    m = pattern.search(s)
    if m is None:
        return None
    c = m.group()
    if "\ud800" <= c <= "\udfff":
        return f"a lone surrogate (U+{ord(c):04X}) at character {m.start()}"
    return f"a control character (U+{ord(c):04X}) at character {m.start()}"


def problem(value: Any, max_depth: int = MAX_DEPTH, text: bool = False) -> str | None:
    """Why ``value`` (as :mod:`json` parses it) is not clean, or None; iterative, so a
    deep value costs no recursion. ``text``: strings may be any valid Unicode of any
    length (line breaks in a comment a page shows), only a lone surrogate is refused."""
    pattern, max_str = (_INVALID, 2**31) if text else (_UNCLEAN, MAX_STR)
    stack: list[tuple[Any, str, int]] = [(value, "$", 1)]
    while stack:
        item, path, depth = stack.pop()
        if depth > max_depth:
            return f"{path}: nested too deeply (more than {max_depth} levels)"
        if isinstance(item, str):
            if len(item) > max_str:
                return f"{path}: a string of {len(item)} characters (at most {max_str})"
            why = string_problem(item, pattern)
            if why:
                return f"{path}: {why}"
        elif isinstance(item, bool) or item is None:
            continue
        elif isinstance(item, int):
            if abs(item) > MAX_INT:
                return f"{path}: an integer beyond ±2**53"
        elif isinstance(item, float):
            if not math.isfinite(item):
                return f"{path}: {item!r} is not a finite number"
        elif isinstance(item, dict):
            for k, v in item.items():
                if not isinstance(k, str):
                    return f"{path}: a key that is not a string"
                why = string_problem(k, pattern) if len(k) <= 100 else "a key too long"
                if why:
                    return f"{path}: key {why}"
                stack.append((v, f"{path}.{k}"[:120], depth + 1))
        elif isinstance(item, list | tuple):
            stack.extend((v, f"{path}[{i}]", depth + 1) for i, v in enumerate(item))
        else:
            return f"{path}: a {type(item).__name__} is not a JSON value"
    return None


def _no_constant(name: str) -> Any:
    raise StrictJSONError(f"{name} is not a number JSON allows")


def _int(text: str) -> int:
    if len(text.lstrip("-")) > 16:
        raise StrictJSONError(f"an integer of {len(text)} digits")
    return int(text)


def loads(data: bytes | str, max_depth: int = MAX_DEPTH) -> Any:
    """The clean value of ``data``; anything else raises :class:`StrictJSONError`."""
    if isinstance(data, bytes | bytearray):
        try:
            data = bytes(data).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise StrictJSONError(f"not UTF-8 text ({exc.reason} at byte {exc.start})"
                                  ) from None
    if _too_deep(data, max_depth):
        raise StrictJSONError(f"nested too deeply (more than {max_depth} levels)")
    try:
        value = json.loads(data, parse_constant=_no_constant, parse_int=_int)
    except StrictJSONError:
        raise
    except RecursionError:  # _too_deep counts brackets outside strings: cannot happen
        raise StrictJSONError(f"nested too deeply (more than {max_depth} levels)") from None
    except ValueError as exc:
        raise StrictJSONError(f"not JSON ({exc})") from None
    why = problem(value, max_depth)
    if why:
        raise StrictJSONError(why)
    return value


def _too_deep(text: str, max_depth: int) -> bool:
    """Whether brackets nest deeper than ``max_depth`` outside strings: found before
    parsing, so ten thousand ``[`` cost a scan, not a RecursionError."""
    if text.count("[") + text.count("{") <= max_depth:
        return False
    depth = 0
    in_string = escaped = False
    for c in text:
        if in_string:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c in "[{":
            depth += 1
            if depth > max_depth:
                return True
        elif c in "]}":
            depth -= 1
    return False


def dumps(value: Any, max_depth: int = MAX_DEPTH, text: bool = False) -> str:
    """``value`` as JSON, refused (:class:`StrictJSONError`) where :func:`loads` would
    refuse what it wrote: a page never sends what a browser or a reader cannot read.
    ``text``: for a page, whose reader (a browser) takes any valid Unicode: only NaN,
    infinities and lone surrogates are refused (see :func:`problem`)."""
    why = problem(value, max_depth, text)
    if why:
        raise StrictJSONError(why)
    return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))


#: Nesting a page's JSON may have.
PAGE_DEPTH = 64


def page_json(value: Any) -> str:
    """A page's or feed's JSON: any valid Unicode, finite numbers (``dumps(text=True)``)."""
    return dumps(value, PAGE_DEPTH, text=True)
