"""Who places the 伏せ石 (rule 1): the higher 段級位, or the elder when equal or unknown."""

from __future__ import annotations

import re

KANJI = {"初": 1, "一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8,
         "九": 9, "十": 10}
_RANK = re.compile(r"^\s*(\d+|[初一二三四五六七八九十])\s*(段|級|d|dan|k|kyu)\s*$", re.I)


def rank_value(text: str) -> int | None:
    """Comparable strength of a rank: dan n → 100 + n, kyu n → 100 − n; None if unknown."""
    m = _RANK.match(text or "")
    if not m:
        return None
    digits, unit = m.groups()
    value = int(digits) if digits.isdigit() else KANJI[digits]
    if unit.lower() in ("段", "d", "dan"):
        return 100 + value
    return 100 - value


def toss_placer(a: str, a_rank: str, a_born: str, b: str, b_rank: str, b_born: str) -> str | None:
    """The player who hides the disc; ``None`` when neither rank nor age decides."""
    ra, rb = rank_value(a_rank), rank_value(b_rank)
    if ra is not None and rb is not None and ra != rb:
        return a if ra > rb else b
    if a_born and b_born and a_born != b_born:
        return a if a_born < b_born else b  # ISO dates or years: earlier is elder
    return None
