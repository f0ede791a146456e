"""Whole events through the pure core: leagues, advancement, finals, knock-out
divisions, withdrawals, absentees, and refused input that changes nothing."""

from __future__ import annotations

import copy

import pytest

from controller.tournament import Player, Tournament, TournamentError, award_list
from controller.tournament.knockout import brackets, knockout_pairs, slot_of

SEEDS = ["12345", "67890", "13579"]


def roster(n: int, **extra: Player) -> list[Player]:
    players = [Player(f"p{k:02d}", rank=f"{k % 7 + 1}段") for k in range(n)]
    return players + list(extra.values())


def play_round(t: Tournament, winner: str = "first") -> None:
    """Enter every table: the first-listed (or second-listed) player wins."""
    rnd = t.current
    assert rnd is not None
    for g in rnd.games:
        if g.table is None:
            continue
        wanted = g.first if winner == "first" else g.second
        t.record_result(g.table, "black" if g.black == wanted else "white")


def test_absent_players_get_numbers_but_no_league_and_no_games():
    t = Tournament(roster(8) + [Player("gone", absent=True)], "open", extend=True)
    t.draw_lottery(SEEDS)
    assert "gone" in t.numbers and "gone" not in t.groups
    rnd = t.pair_next_round()
    assert all("gone" not in (g.first, g.second) for g in rnd.games)
    assert "gone" not in [s.name for s in t.standings()]


def test_eight_players_leagues_won_in_round_one_wait_with_byes_until_round_six():
    # 「各予選リーグの1位は、6～7回戦に準決勝、決勝、3位決定戦を行い」; 「全勝が1名と
    # なった予選リーグの全勝選手を不戦勝とします。2回目の不戦勝となる場合もあります」
    t = Tournament(roster(8), "open", extend=True)
    t.draw_lottery(SEEDS)
    assert sorted(t.groups.values()) == list("AABBCCDD")
    r1 = t.pair_next_round()
    assert [g.stage for g in r1.games] == ["league"] * 4
    play_round(t)
    winners = {g.group: g.winner for g in r1.games}
    for number in range(2, 6):
        rnd = t.pair_next_round()
        byes = {g.group: g.first for g in rnd.games if g.stage == "league"}
        assert all(g.is_bye for g in rnd.games if g.stage == "league")
        assert byes == winners, f"round {number}"
        assert sum(g.stage == "placement" for g in rnd.games) == 2
        play_round(t)
    r6 = t.pair_next_round()
    assert r6.number == 6
    semis = [g for g in r6.games if g.stage == "semi"]
    assert {(g.first, g.second) for g in semis} == {
        (winners["A"], winners["D"]), (winners["B"], winners["C"])}
    assert sum(g.stage == "placement" for g in r6.games) == 2
    play_round(t)
    r7 = t.pair_next_round()
    assert sorted(g.stage for g in r7.games if g.stage != "placement") == ["final", "third"]
    assert sum(g.stage == "placement" for g in r7.games) == 2  # 「7回戦まで」
    play_round(t, "second")
    assert t.finished
    final = next(g for g in r7.games if g.stage == "final")
    third = next(g for g in r7.games if g.stage == "third")
    ranking = t.final_ranking()
    assert ranking[:4] == [final.second, final.first, third.second, third.first]
    with pytest.raises(TournamentError, match="finished"):
        t.pair_next_round()
    grades = {a.name: a.grade for a in award_list(t)}
    assert grades[ranking[0]] == "七段" and grades[ranking[1]] == "六段"


def test_league_of_six_keeps_pairing_until_the_unbeaten_count_is_a_power_of_two():
    t = Tournament(roster(24), "open", extend=True)
    t.draw_lottery(SEEDS)
    t.pair_next_round()
    play_round(t)
    # each league of 6: 3 unbeaten after round 1 -> not a power of two, all stay
    r2 = t.pair_next_round()
    assert all(g.stage == "league" for g in r2.games)
    assert len([g for g in r2.games if g.group == "A"]) == 3
    # equal wins where possible: 3 unbeaten and 3 with a loss -> one 1-win gap
    assert any("1 pair(s) with unequal wins" in n for n in r2.notes)
    play_round(t)
    r3 = t.pair_next_round()
    stages = {g.stage for g in r3.games}
    assert "placement" in stages


def test_sole_unbeaten_of_a_finished_league_has_a_bye_while_others_play():
    # 9 players: A gets 3, the others 2 (one odd league, no adjustment).  A league of
    # 2 is won after round 1; A (bye, then 2 unbeaten) only after round 2.
    t = Tournament(roster(9), "open", extend=True)
    t.draw_lottery(SEEDS)
    sizes = {x: sum(1 for v in t.groups.values() if v == x) for x in "ABCD"}
    assert sizes == {"A": 3, "B": 2, "C": 2, "D": 2}
    t.pair_next_round()
    play_round(t)
    r2 = t.pair_next_round()
    byes = [g for g in r2.games if g.is_bye and g.stage == "league"]
    assert {g.group for g in byes} == {"B", "C", "D"}
    assert [g.stage for g in r2.games if g.group == "A"] == ["league"]
    assert any("sole undefeated" in n for n in r2.notes)


def test_round_one_bye_goes_to_the_highest_number_of_an_odd_league():
    t = Tournament(roster(9), "open", extend=True)
    t.draw_lottery(SEEDS)
    r1 = t.pair_next_round()
    a_members = [n for n, x in t.groups.items() if x == "A"]
    bye = next(g for g in r1.games if g.group == "A" and g.is_bye)
    assert bye.first == max(a_members, key=lambda n: t.numbers[n])


def test_withdrawn_player_is_not_paired_and_keeps_their_wins():
    t = Tournament(roster(24), "open", extend=True)
    t.draw_lottery(SEEDS)
    r1 = t.pair_next_round()
    name = next(g.first for g in r1.games if g.table)
    with pytest.raises(TournamentError, match="without a result at table"):
        t.withdraw(name)
    play_round(t)
    t.withdraw(name)
    with pytest.raises(TournamentError, match="already withdrawn"):
        t.withdraw(name)
    wins_before = {s.name: s.wins for s in t.standings()}[name]
    r2 = t.pair_next_round()
    assert all(name not in (g.first, g.second) for g in r2.games)
    play_round(t)
    assert {s.name: s.wins for s in t.standings()}[name] == wins_before


def test_refused_results_change_nothing():
    t = Tournament(roster(8), "open", extend=True)
    t.draw_lottery(SEEDS)
    t.pair_next_round()
    with pytest.raises(TournamentError, match="no game at table 9"):
        t.record_result(9, "black")
    assert t.record_result(1, "black", (40, 24)) is True
    assert t.record_result(1, "black", (40, 24)) is False  # the same again: fine
    before = copy.deepcopy(t.current)
    with pytest.raises(TournamentError, match="table 1 already has the result black 40-24"):
        t.record_result(1, "white")
    with pytest.raises(TournamentError, match="table 2: a drawn board needs"):
        t.record_result(2, "draw")
    with pytest.raises(TournamentError, match="not a board count"):
        t.record_result(2, "black", (60, 10))
    assert t.current == before


def test_draw_goes_to_the_draw_win_holder_and_the_toss_sets_colours():
    t = Tournament(roster(8), "open", extend=True)
    t.draw_lottery(SEEDS)
    g = t.pair_next_round().games[0]
    with pytest.raises(TournamentError, match="'nobody' does not play there"):
        t.record_toss(1, black="nobody", draw_win=g.first)
    t.record_toss(1, black=g.second, draw_win=g.second)
    settings = t.game_settings(1)
    assert (settings.black, settings.white) == (g.second, g.first)
    assert settings.draw_win == g.second and settings.colour_chooser == g.first
    assert settings.minutes == 20 and settings.draws is False
    t.record_result(1, "draw", (32, 32))
    assert g.winner == g.second


def test_toss_is_placed_by_the_higher_rank():
    players = [Player("strong", rank="五段"), Player("weak", rank="2級")]
    players += [Player(f"x{k}", rank="") for k in range(6)]
    t = Tournament(players, "open", extend=True)
    t.draw_lottery(SEEDS)
    for g in t.pair_next_round().games:
        if {g.first, g.second} == {"strong", "weak"}:
            assert g.toss_by == "strong"
        elif g.table and not {g.first, g.second} & {"strong", "weak"}:
            assert g.toss_by is None  # unknown ranks, no birth dates: the elder decides


def test_roster_problems_are_refused():
    with pytest.raises(TournamentError, match="roster entry 2: 'a' is on the roster twice"):
        Tournament([Player("a"), Player("a")], "open")
    with pytest.raises(TournamentError, match="seeds are 1–4"):
        Tournament([Player("a", seed=5)], "open")
    with pytest.raises(TournamentError, match="b and a both hold seed 1"):
        Tournament([Player("a", seed=1), Player("b", seed=1)], "open")
    with pytest.raises(TournamentError, match="unknown division"):
        Tournament([Player("a")], "seniors")


@pytest.mark.parametrize("count", [2, 17, 33])
def test_knockout_divisions_refuse_sizes_the_rules_do_not_cover(count):
    with pytest.raises(TournamentError, match=str(count)):
        Tournament(roster(count), "women")


def test_bracket_layout_of_eighteen_players():
    # numbers deal A, B, C, D, A, …; group A holds 1, 5, 9, 13, 17 at seed positions
    # 1–5, and slots hold seed positions 1, 8, 5, 4, 3, 6, 7, 2
    assert [slot_of(n) for n in (1, 5, 9, 13, 17)] == [
        ("A", 0), ("A", 7), ("A", 4), ("A", 3), ("A", 2)]
    numbers = {f"n{k}": k for k in range(1, 19)}
    bracket = brackets(numbers)["A"]
    assert bracket == ["n1", None, "n17", "n13", "n9", None, None, "n5"]
    alive = set(numbers)
    assert knockout_pairs(bracket, 1, alive) == [
        ("n1", None), ("n17", "n13"), ("n9", None), ("n5", None)]
    alive.discard("n17")
    assert knockout_pairs(bracket, 2, alive) == [("n1", "n13"), ("n9", "n5")]


def test_women_division_full_event():
    t = Tournament(roster(20), "women")
    t.draw_lottery(SEEDS)
    assert sorted(t.numbers.values()) == list(range(1, 21))
    stages = []
    while not t.finished:
        rnd = t.pair_next_round()
        stages.append(sorted({g.stage for g in rnd.games}))
        play_round(t)
    assert stages == [["knockout"], ["knockout", "placement"], ["knockout", "placement"],
                      ["placement", "semi"], ["final", "placement", "third"]]
    ranking = t.final_ranking()
    final = next(g for g in t.rounds[4].games if g.stage == "final")
    third = next(g for g in t.rounds[4].games if g.stage == "third")
    assert ranking[:3] == [final.winner, final.loser, third.winner]
    grades = {a.name: a for a in award_list(t)}
    assert grades[ranking[0]].grade == "五段"
    assert grades[third.loser].grade == "二段" and grades[third.loser].ouza


def test_children_play_fifteen_minutes():
    t = Tournament(roster(18), "children")
    t.draw_lottery(SEEDS)
    t.pair_next_round()
    assert t.game_settings(1).minutes == 15


def test_new_othello_placement_pairs_highest_with_highest():
    t = Tournament(roster(24), "women")
    t.draw_lottery(SEEDS)
    t.pair_next_round()
    play_round(t)
    order = [s.name for s in t.standings()]
    r2 = t.pair_next_round()
    placement = [g for g in r2.games if g.stage == "placement"]
    losers = sorted({g.first for g in placement} | {g.second for g in placement if g.second},
                    key=order.index)
    # all on 0 wins and nobody has met: 1st–2nd, 3rd–4th, … of the provisional ranking
    assert [(g.first, g.second) for g in placement] == list(zip(losers[::2], losers[1::2],
                                                                strict=True))


def test_open_placement_pairs_highest_with_lowest():
    t = Tournament(roster(16), "open", extend=True)  # leagues of 4: knock-out from the start
    t.draw_lottery(SEEDS)
    t.pair_next_round()
    play_round(t)
    order = [s.name for s in t.standings()]
    r2 = t.pair_next_round()
    placement = [g for g in r2.games if g.stage == "placement"]
    names = sorted({g.first for g in placement} | {g.second for g in placement},
                   key=order.index)
    assert len(names) == 8  # the round-1 losers of all four leagues, together
    assert placement[0].first == names[0] and placement[0].second == names[-1]


def test_knockout_withdrawal_gives_the_next_opponent_a_bye():
    t = Tournament(roster(32), "children")
    t.draw_lottery(SEEDS)
    r1 = t.pair_next_round()
    play_round(t)
    first = next(g for g in r1.games if g.group == "A")
    t.withdraw(first.winner)
    r2 = t.pair_next_round()
    byes = [g for g in r2.games if g.is_bye and g.stage == "knockout"]
    assert len(byes) == 1 and byes[0].group == "A"


def test_qualified_players_count_every_round_as_won_and_semi_walkover():
    t = Tournament(roster(8), "open", extend=True)
    t.draw_lottery(SEEDS)
    r1 = t.pair_next_round()
    play_round(t)
    winner_a = next(g.winner for g in r1.games if g.group == "A")
    winner_d = next(g.winner for g in r1.games if g.group == "D")
    t.withdraw(winner_d)
    for _ in range(2, 6):
        rnd = t.pair_next_round()
        assert winner_d not in {g.first for g in rnd.games}
        play_round(t)
    r6 = t.pair_next_round()
    semi_ad = next(g for g in r6.games if g.stage == "semi" and g.group == "A-D")
    assert semi_ad.is_bye and semi_ad.first == winner_a
    play_round(t)
    wins = {s.name: s.wins for s in t.standings()}
    assert wins[winner_a] == 6  # the league game, four byes, the semi-final round
    assert wins[winner_d] == 1  # withdrawn: the rest counts as lost


def test_league_winner_who_withdraws_stops_collecting_wins():
    t = Tournament(roster(9), "open", extend=True)  # A has 3 players, B–D are won after round 1
    t.draw_lottery(SEEDS)
    r1 = t.pair_next_round()
    play_round(t)
    winner_b = next(g.winner for g in r1.games if g.group == "B")
    t.pair_next_round()  # B's winner has a bye (sole undefeated)
    play_round(t)
    assert {s.name: s.wins for s in t.standings()}[winner_b] == 2
    t.withdraw(winner_b)
    t.pair_next_round()  # round 3: B's winner withdrawn, so no bye for them
    play_round(t)
    assert {s.name: s.wins for s in t.standings()}[winner_b] == 2
    assert t.standings() == t.standings_from_scratch() == t.standings_after(3)
