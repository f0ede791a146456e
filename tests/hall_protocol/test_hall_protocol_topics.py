"""The topic tree: every table topic parses back to its table and kind, anything else
to nothing, and a topic is only ever built for a slug and a table the readers accept."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.hall_protocol.checks import MAX_TABLE, ProtocolError
from controller.hall_protocol.topics import UPLINK, Topics, check_table

KINDS = ("state", "events", "online", "ack", "down")
slugs = st.from_regex(r"\A[a-z0-9][a-z0-9_-]{0,20}\Z")
tables = st.integers(1, MAX_TABLE)


@given(slugs, tables, st.sampled_from(KINDS))
def test_a_table_topic_parses_back_to_its_table_and_kind(slug: str, n: int, kind: str) -> None:
    topics = Topics(slug)
    topic = topics.table(n, kind)  # type: ignore[arg-type]
    assert topic == f"kaeshi/{slug}/table/{n}/{kind}"
    assert topics.parse(topic) == (n, kind)


@given(slugs, st.text(max_size=40))
def test_anything_but_a_table_topic_of_this_event_parses_to_nothing(slug: str, tail: str) -> None:
    topics = Topics(slug)
    parsed = topics.parse(f"{topics.root}/table/{tail}")
    if parsed is not None:  # only a real table number and kind come back
        n, kind = parsed
        assert tail == f"{n}/{kind}" and kind in KINDS and 1 <= n <= MAX_TABLE


def test_near_misses_parse_to_nothing() -> None:
    topics = Topics("open-2026")
    for topic in ("kaeshi/other/table/1/state", "kaeshi/open-2026/table/01/state",
                  "kaeshi/open-2026/table/0/state", f"kaeshi/open-2026/table/{MAX_TABLE + 1}/state",
                  "kaeshi/open-2026/table/1/state/x", "kaeshi/open-2026/table/1/moves",
                  "kaeshi/open-2026/table/+1/state", "kaeshi/open-2026/hub/online"):
        assert topics.parse(topic) is None, topic


def test_each_side_listens_only_to_what_the_other_writes() -> None:
    topics = Topics("open")
    assert topics.hub_subscriptions() == [f"kaeshi/open/table/+/{k}" for k in UPLINK]
    assert topics.uplink(3) == ["kaeshi/open/table/3/state", "kaeshi/open/table/3/events",
                                "kaeshi/open/table/3/online"]
    assert topics.table_subscriptions(3) == ["kaeshi/open/table/3/down",
                                             "kaeshi/open/table/3/ack", "kaeshi/open/hub/online"]


@pytest.mark.parametrize("slug", ["", "Open", "a/b", "a+", "#", "x" * 65, "é"])
def test_a_slug_that_would_break_the_topic_tree_is_refused(slug: str) -> None:
    with pytest.raises(ProtocolError, match="event slug"):
        Topics(slug)


@pytest.mark.parametrize("n", [0, -1, MAX_TABLE + 1, True, 1.0, "1", None])
def test_a_table_number_outside_the_hall_is_refused(n: object) -> None:
    with pytest.raises(ProtocolError, match="table number"):
        check_table(n)
    with pytest.raises(ProtocolError):
        Topics("open").state(n)  # type: ignore[arg-type]
