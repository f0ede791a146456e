"""The dashboard's order: what needs the arbiter first, then the rest by table number."""

from __future__ import annotations

from hub_web_support import Hall

from controller.hall_protocol.protocol import ClockState, GameResult, TableStatus
from controller.hub.web.dashboard import (
    CLOCK,
    IRREGULARITY,
    REST,
    RESULT,
    STOPPED,
    attention,
    clock_now,
    dashboard,
)

NOW = 1_000_000.0
FLAG = {"kind": "forgotten_flip", "player": "white", "squares": ["e4", "f4"]}


def running(black_s: float, white_s: float, side: str = "black", at: float = NOW) -> ClockState:
    return ClockState(int(black_s * 1000), int(white_s * 1000), side, at)


def hall_of_every_kind() -> Hall:
    hall = Hall()
    hall.state(1, NOW, clock=running(600, 600))
    hall.state(2, NOW, service="paused", clock=ClockState(500_000, 400_000, "white", NOW,
                                                            paused=True))
    hall.state(3, NOW, clock=running(600, 600), result=GameResult(40, 24, "black"),
               service="game_over")
    hall.state(4, NOW, clock=running(30, 600))  # black: 30 s left
    hall.state(5, NOW, clock=running(600, 600), flags=[FLAG])
    hall.state(6, NOW, clock=running(600, 600))
    hall.state(7, NOW, clock=running(600, 600), online=False)
    hall.state(8, NOW, clock=running(600, 5, side="white", at=NOW - 10))  # white fell
    hall.state(9, NOW, clock=running(600, 600), flags=[FLAG])
    hall.state(10, NOW, service="sensor_lost", clock=running(600, 600))
    hall.state(11, NOW, clock=running(600, 600), result=GameResult(30, 34, "white"),
               service="game_over")
    return hall


def test_dashboard_puts_what_needs_the_arbiter_first() -> None:
    hall = hall_of_every_kind()
    confirmed = {11}  # table 11's result is already with the director
    cards = dashboard(hall.store.tables(), NOW, lambda st: st.table not in confirmed)
    order = [c["table"] for c in cards]
    # irregularities by table; fallen flag before 30 s left; stopped by table; result; rest
    assert order == [5, 9, 8, 4, 2, 7, 10, 3, 1, 6, 11]
    ranks = [c["attention"]["rank"] for c in cards]
    assert ranks == [IRREGULARITY] * 2 + [CLOCK] * 2 + [STOPPED] * 3 + [RESULT] + [REST] * 3
    top = cards[0]
    (flag,) = top["irregularities"]
    assert {k: flag[k] for k in FLAG} == FLAG
    assert flag["text"] == "White did not turn the discs on e4 and f4"
    assert flag["instruction"].startswith("Black may point out e4 and f4: press Black's clock")
    assert top["attention"]["detail"] == "white: forgotten flip e4 f4"
    assert top["discs"] == {"black": 2, "white": 2} and "moves" in top
    assert cards[2]["attention"]["detail"] == "white's flag has fallen"
    assert cards[3]["attention"]["detail"] == "black has 30 s left"
    assert [c["attention"]["detail"] for c in cards[4:7]] == ["paused", "offline", "sensor lost"]
    assert cards[7]["awaiting_confirmation"] is True
    assert cards[7]["attention"]["detail"] == "40-24 to confirm"


def test_a_clock_falls_into_the_warning_as_time_passes() -> None:
    hall = Hall()
    hall.state(1, NOW, clock=running(600, 90))
    hall.state(2, NOW, clock=running(600, 90, side="white"))
    hall.state(3, NOW, clock=running(600, 600))
    assert [c["table"] for c in dashboard(hall.store.tables(), NOW, lambda s: False)] == [1, 2, 3]
    later = NOW + 40  # white at table 2 has run for 40 s: 50 s left
    cards = dashboard(hall.store.tables(), later, lambda s: False)
    assert [c["table"] for c in cards] == [2, 1, 3]
    assert cards[0]["clock"] == {"black_ms": 600_000, "white_ms": 50_000, "running": "white",
                                 "paused": False, "flag": None}


def test_a_finished_game_and_record_mode_need_no_ruling() -> None:
    hall = Hall()
    # a game over on time with a zero clock is a result, not a falling flag
    hall.state(1, NOW, clock=ClockState(0, 1000, None, NOW, flag="black"),
               result=GameResult(30, 20, "white", "time"), service="game_over")
    # in record mode nothing live reaches the arbiter either
    hall.state(2, NOW, mode="record", flags=[FLAG])
    by_table = {s.table: s for s in hall.store.tables()}
    assert attention(by_table[1], NOW, awaiting=False).rank == REST
    assert attention(by_table[1], NOW, awaiting=True).rank == RESULT
    assert attention(by_table[2], NOW, awaiting=False).rank == REST
    assert dashboard([by_table[2]], NOW, lambda s: False)[0]["irregularities"] == []


def test_a_table_never_heard_in_full_is_listed_by_presence() -> None:
    status = TableStatus(table=12, online=False, state=None, last_seen=NOW)
    card = dashboard([status], NOW, lambda s: False)[0]
    assert card["attention"]["rank"] == STOPPED
    assert "board" not in card


def test_clock_now_counts_down_only_the_running_side() -> None:
    assert clock_now(running(100, 200, "black", at=NOW - 2.5), NOW) == (97_500, 200_000)
    paused = ClockState(100_000, 200_000, "black", NOW - 50, paused=True)
    assert clock_now(paused, NOW) == (100_000, 200_000)
    assert clock_now(running(1, 200, "black", at=NOW - 5), NOW) == (0, 200_000)
