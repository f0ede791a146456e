"""Provisional rankings: the nine criteria with notes *1–*4, and the 新オセロ方式 order."""

from __future__ import annotations

from controller.tournament.ranking import (
    GameResult,
    knockout_ranking,
    open_provisional,
    open_records,
)

NUMBERS = {"P": 11, "Q": 12, "R": 13, "S": 14}


def league(*games: tuple[int, str, str | None]) -> list[GameResult]:
    return [GameResult(r, "league", w, lo) for r, w, lo in games]


def test_nine_criteria_worked_example():
    # round 1: P beat Q, R beat S; round 2: P beat R, Q beat S
    # wins: P 2, Q 1, R 1, S 0
    records = open_records(league((1, "P", "Q"), (1, "R", "S"), (2, "P", "R"), (2, "Q", "S")))
    rows = open_provisional(NUMBERS, NUMBERS, records, {})
    by = {r.name: r for r in rows}
    # P beat Q (1) and R (1), lost to nobody: 1, then 1+1 = 2 from criterion 3 on
    assert by["P"].criteria == (1, 2, 2, 2, 2, 2, 2)
    # Q beat S (0), lost to P (2): 0 + 2 everywhere; R the same
    assert by["Q"].criteria == by["R"].criteria == (2,) * 7
    # S lost to R (1) and Q (1): lowest one 1, lowest two 2
    assert by["S"].criteria == (1, 2, 2, 2, 2, 2, 2)
    # Q and R tie on criteria 1–8; criterion 9: the larger lottery number ranks higher
    assert [r.name for r in rows] == ["P", "R", "Q", "S"]


def test_bye_is_a_win_over_a_minus_one_player():
    records = open_records(league((1, "P", "Q"), (1, "R", "S"), (2, "P", "R"), (2, "Q", "S"),
                                  (3, "S", None)))
    by = {r.name: r for r in open_provisional(NUMBERS, NUMBERS, records, {})}
    assert by["S"].wins == 1
    # beaten: the bye (−1); lost to Q (1) and R (1): −1 + 1 = 0, then −1 + 2 = 1
    assert by["S"].criteria[:2] == (0, 1)


def test_qualified_player_counts_remaining_games_as_won():
    records = open_records(league((1, "P", "Q"), (1, "R", "S"), (2, "P", "R"), (2, "Q", "S")))
    rows = open_provisional(NUMBERS, NUMBERS, records, {"P": 2})
    by = {r.name: r for r in rows}
    assert by["P"].wins == 4
    # Q lost to P, who now counts 4 wins: criterion 2 = 0 (S) + 4 (P)
    assert by["Q"].criteria[0] == 4
    # P's two counted-as-won games are wins over −1 players (note *4 applied to *2)
    assert by["P"].criteria[:4] == (1, 2, 1, 0)


def test_semi_final_and_final_games_do_not_count_as_league_wins():
    results = league((1, "P", "Q")) + [GameResult(2, "semi", "P", "R"),
                                       GameResult(3, "final", "P", "S")]
    by = {r.name: r for r in open_provisional(NUMBERS, NUMBERS, open_records(results), {})}
    assert by["P"].wins == 1


K_NUMBERS = {"A": 1, "B": 2, "C": 3, "D": 4}


def test_knockout_ranking_upset_rule_puts_the_lower_winner_above():
    results = [
        GameResult(1, "knockout", "A", "B"), GameResult(1, "knockout", "C", "D"),
        # round 2: D (0 wins) beats A (1 win): an upset; C beats B
        GameResult(2, "placement", "D", "A"), GameResult(2, "placement", "C", "B"),
    ]
    history = knockout_ranking(K_NUMBERS, list(K_NUMBERS), results, {})
    before = [s.name for s in history[0]]
    assert before == ["D", "C", "B", "A"]  # before round 1: larger number first
    after = history[2]
    by = {s.name: s for s in after}
    assert by["A"].wins == by["D"].wins == 1
    # without the upset rule A (who lost its latest game) would rank above D
    assert by["D"].wins_before == 1 and by["A"].wins_before == 0
    assert [s.name for s in after] == ["C", "D", "A", "B"]


def test_knockout_ranking_without_upset_puts_the_latest_loser_above():
    results = [
        GameResult(1, "knockout", "A", "B"), GameResult(1, "knockout", "C", "D"),
        # round 2: B (0) beats D (0): no upset; A (1) beats C (1)
        GameResult(2, "placement", "A", "C"), GameResult(2, "placement", "B", "D"),
    ]
    after = knockout_ranking(K_NUMBERS, list(K_NUMBERS), results, {})[2]
    by = {s.name: s for s in after}
    # C (1 win, lost latest, had 1 before) above B (1 win, won latest, had 0 before)
    assert by["C"].wins_before == 1 and by["B"].wins_before == 0
    assert [s.name for s in after] == ["A", "C", "B", "D"]


def test_knockout_ranking_falls_back_to_the_position_before_the_latest_game():
    results = [
        # round 1: A beats D, B beats C -> ranking B, A (B's number is larger), D, C
        GameResult(1, "knockout", "A", "D"), GameResult(1, "knockout", "B", "C"),
        # round 2: A beats B (1 v 1), D beats C (0 v 0) -> A, B, D, C
        GameResult(2, "placement", "A", "B"), GameResult(2, "placement", "D", "C"),
        # round 3: D (1) upsets A (2); B (1) beats C (0)
        GameResult(3, "placement", "D", "A"), GameResult(3, "placement", "B", "C"),
    ]
    history = knockout_ranking(K_NUMBERS, list(K_NUMBERS), results, {})
    assert [s.name for s in history[1]] == ["B", "A", "D", "C"]
    assert [s.name for s in history[2]] == ["A", "B", "D", "C"]
    by = {s.name: s for s in history[3]}
    # D, A and B all have 2 wins.  D won by an upset, so counts as having lost: 2
    # before.  A (upset loser, counts as a winner) and B (won) both had 1 before;
    # criterion 4: A stood above B before round 3, so A ranks higher although B's
    # lottery number (criterion 5) is larger.
    assert (by["D"].wins_before, by["A"].wins_before, by["B"].wins_before) == (2, 1, 1)
    assert [s.name for s in history[3]] == ["D", "A", "B", "C"]


def test_places_from_the_final_come_first():
    results = [GameResult(1, "knockout", "B", "A"), GameResult(2, "final", "A", "C")]
    after = knockout_ranking(K_NUMBERS, list(K_NUMBERS), results, {"A": 1, "C": 2, "B": 3})[2]
    assert [s.name for s in after][:3] == ["A", "C", "B"]
