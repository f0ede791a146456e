"""Dan and kyu awards and 王座戦 qualification, read from the table in the rules."""

from __future__ import annotations

import pytest

from controller.tournament.awards import awards

RANKING = [f"p{k}" for k in range(1, 11)]


@pytest.mark.parametrize(
    ("division", "wins", "after_six", "third", "expected"),
    [
        ("open", {"p5": 6, "p6": 5, "p7": 5, "p8": 4, "p9": 3},
         {"p5": (5, 1), "p6": (5, 1), "p7": (4, 2), "p8": (4, 2), "p9": (3, 3)}, "p4",
         ["七段", "六段", "六段", "五段", "五段", "五段", "三段", "二段", None, None]),
        ("women", {"p4": 3, "p5": 4, "p6": 3, "p7": 2}, {}, "p4",
         ["五段", "四段", "三段", "二段", "二段", "初段", None, None, None, None]),
        ("children", {}, {}, "p4",
         ["三段", "二段", "初段", None, None, None, None, None, None, None]),
    ],
)
def test_grades_by_division(division, wins, after_six, third, expected):
    got = awards(division, RANKING, wins, after_six, third)
    assert [a.grade for a in got] == expected
    assert [a.place for a in got] == list(range(1, 11))


def test_ouza_qualification():
    open_ = awards("open", RANKING, {}, {"p1": (6, 0), "p5": (4, 2), "p6": (3, 3)}, None)
    assert [a.name for a in open_ if a.ouza] == ["p1", "p5"]
    women = awards("women", RANKING, {"p1": 5, "p6": 4}, {}, "p4")
    assert [a.name for a in women if a.ouza] == ["p1", "p4", "p6"]
    children = awards("children", RANKING, {}, {}, None)
    assert [a.name for a in children if a.ouza] == RANKING[:8]
