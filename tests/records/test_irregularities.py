"""The one table of irregularity kinds (``controller/irregularities.py``): every kind
of the arbiter's enum has all its words, and no page keeps words or kinds of its own."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.events import Irregularity
from controller.irregularities import (
    KIND_NAMES,
    KINDS,
    REPORT_ORDER,
    describe,
    fix,
    instruction,
    name,
    words,
)

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted(p for folder in ("controller/web/static", "controller/hub/web/static")
               for p in (ROOT / folder).iterdir() if p.suffix in (".js", ".html", ".css"))
SQUARES = st.lists(st.sampled_from(["a1", "d4", "e5", "h8", "c3"]), min_size=1, max_size=4,
                   unique=True)


@pytest.mark.parametrize("kind", list(Irregularity), ids=str)
def test_every_kind_of_the_enum_has_every_word(kind: Irregularity) -> None:
    row = KINDS[kind]  # a kind missing from the table fails here
    assert row.name and row.what and row.fix
    assert row.what.startswith("{who} ") and row.fix.startswith("{who} must ")
    assert KIND_NAMES[kind.value] == row.name and kind in REPORT_ORDER


def test_the_table_holds_the_enum_and_nothing_else_with_distinct_names() -> None:
    assert set(KINDS) == set(Irregularity)
    assert len(set(KIND_NAMES.values())) == len(KIND_NAMES)
    assert sorted(REPORT_ORDER.values()) == list(range(len(Irregularity)))


@given(st.sampled_from(list(Irregularity)), st.sampled_from(["black", "white"]), SQUARES)
def test_every_template_fills_with_the_offender_and_every_square(
        kind: Irregularity, player: str, squares: list[str]) -> None:
    for text in (describe(kind, player, squares), fix(kind, player, squares)):
        assert "{" not in text and text.startswith(player.capitalize() + " ")
        assert all(sq in text for sq in squares)
    assert fix(kind, player, squares) in instruction(kind, player, squares)


def test_a_kind_the_table_lacks_is_refused_not_guessed() -> None:
    for look_up in (words, name, lambda k: describe(k, "black", ["e5"])):
        with pytest.raises(ValueError, match="no_such_kind"):
            look_up("no_such_kind")


#: Where a page names a kind: compared with an item's ``kind`` or as a ``data-kind``.
NAMED_KIND = re.compile(r"""\.kind\s*[!=]==?\s*["'](\w+)["']|data-kind=["']?(\w+)""")


def kinds_named(text: str) -> set[str]:
    return {a or b for a, b in NAMED_KIND.findall(text)}


def test_the_kind_finder_sees_how_pages_name_kinds() -> None:
    assert kinds_named('x.some((h) => h.kind === "illegal_pass")') == {"illegal_pass"}
    assert kinds_named('li[data-kind="over_flip"] { color: red }') == {"over_flip"}
    assert kinds_named('el("li", { "data-kind": it.kind })') == set()


def test_no_page_names_a_kind_the_table_lacks_or_keeps_its_own_words() -> None:
    assert len(PAGES) > 10
    named = {p.name: kinds_named(p.read_text(encoding="utf-8")) for p in PAGES}
    assert {k for ks in named.values() for k in ks} >= {"illegal_pass"}  # the finder works
    # the spectator page's moves have a kind too: a board set by the arbiter
    unknown = {page: sorted(ks - set(KIND_NAMES) - {"board"}) for page, ks in named.items()}
    assert {page: ks for page, ks in unknown.items() if ks} == {}
    copies = {p.name: [w for w in KIND_NAMES.values() if w in p.read_text(encoding="utf-8")]
              for p in PAGES}
    assert {page: ws for page, ws in copies.items() if ws} == {}
