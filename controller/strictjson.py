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
    length (line breaks in a comment a page shows), only a lone surrogate is refused.

    A clean value (the usual case) is walked once, without building any path; only a
    value found unclean is walked again to name where."""
    if _clean(value, max_depth, text):
        return None
    return _where(value, max_depth, text) or "not a clean JSON value"


def _clean(value: Any, max_depth: int, text: bool, strings: bool = True) -> bool:
    """``strings`` False: every string is known clean already (see :func:`loads`)."""
    search = (_INVALID if text else _UNCLEAN).search if strings else _never
    max_str = 2**31 if text else MAX_STR
    stack: list[tuple[Any, int]] = [(value, 1)]
    pop, push = stack.pop, stack.append
    while stack:
        item, depth = pop()
        kind = type(item)
        if kind is str:
            if len(item) > max_str or search(item):
                return False
        elif kind is dict:
            if depth >= max_depth and item:
                return False
            for k, v in item.items():
                if type(k) is not str or len(k) > 100 or search(k):
                    return False
                push((v, depth + 1))
        elif kind is list or kind is tuple:
            if depth >= max_depth and item:
                return False
            for v in item:
                push((v, depth + 1))
        elif kind is float:
            if not math.isfinite(item):
                return False
        elif kind is int:
            if not -MAX_INT <= item <= MAX_INT:
                return False
        elif item is not None and kind is not bool:
            return False
    return True


def _never(s: str) -> None:
    return None


def _where(value: Any, max_depth: int, text: bool) -> str | None:
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
                digits = len(str(abs(item))) if abs(item) < 10**4000 else 4000
                return f"{path}: an integer of {digits} digits, beyond ±2**53"
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


_DECODER = json.JSONDecoder(parse_constant=_no_constant)


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
        value = _DECODER.decode(data)
    except StrictJSONError:
        raise
    except RecursionError:  # _too_deep counts brackets outside strings: cannot happen
        raise StrictJSONError(f"nested too deeply (more than {max_depth} levels)") from None
    except ValueError as exc:
        raise StrictJSONError(f"not JSON ({exc})") from None
    # a string holds a control character or a lone surrogate only if the text holds it
    # raw or as an escape: text with neither needs no look at each string
    strings = "\\" in data or _UNCLEAN.search(data) is not None
    if not _clean(value, max_depth, False, strings):
        raise StrictJSONError(_where(value, max_depth, False) or "not a clean JSON value")
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
