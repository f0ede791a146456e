"""GGF reading and writing: tags, starts, results, passes, clocks, comments, errors."""

from __future__ import annotations

import pytest

from controller.position import Position
from controller.records import GameRecord, RecordError, read_ggf_text, write_ggf
from controller.records.ggf import board_value, parse_board, scan_ggf_text, write_ggf_games
from controller.records.model import Move
from controller.squares import Color

START_BO = "BO[8 -------- -------- -------- ---O*--- ---*O--- -------- -------- -------- *]"
# A real GGS game in which black must pass before white's a1.
PASS_GAME = (
    "d3c5e6d2c6d6b5f5e7f6f4f3g4d7g3g5h6h5h4e8c7h3c3h7e3b6g6f7d8c2d1c4b4a5f8f2e2a4a3b3f1"
    "g7b7c8a6a7c1b2a8b8a2e1h8g8h2g1h1g2a1b1"
)


def ggf(body: str, bo: str = START_BO) -> str:
    return f"(;GM[Othello]PC[Club]PB[Ann]PW[Bob]TY[8]{bo}{body};)"


def moves_tags(transcript: str, start: Color = Color.BLACK) -> str:
    pos = Position.start()
    out = []
    for i in range(0, len(transcript), 2):
        sq = transcript[i : i + 2]
        if not pos.legal_moves():
            pos = pos.pass_turn()
        out.append(f"{'B' if pos.to_move is Color.BLACK else 'W'}[{sq}]")
        pos = pos.play(sq)
    return "".join(out)


# ------------------------------------------------------------------ reading
def test_reads_every_field_of_a_game():
    text = (
        "1 (;GM[Othello]PC[GGS/os]DT[2003.12.15_12:33:18.MST]PB[Saio1200]PW[Saio3000]"
        "RB[2196.37]RW[2200.35]TI[05:00//02:00]TY[8]RE[+12.000]"
        + START_BO
        + "B[d3//0.01]W[C5/-1.5/2.25]B[f6]W[f5/0.5/]ZZ[kept];)"
    )
    (g,) = read_ggf_text(text)
    assert (g.black, g.white, g.place, g.time_control) == (
        "Saio1200",
        "Saio3000",
        "GGS/os",
        "05:00//02:00",
    )
    assert g.date == "2003-12-15"
    assert g.result == (38, 26) and g.result_note == ""
    assert g.start == Position.start()
    assert [(m.player, m.square, m.eval, m.time) for m in g.moves] == [
        (Color.BLACK, "d3", None, 0.01),
        (Color.WHITE, "c5", -1.5, 2.25),
        (Color.BLACK, "f6", None, None),
        (Color.WHITE, "f5", 0.5, None),
    ]
    assert g.extra == {
        "DT": "2003.12.15_12:33:18.MST",
        "RB": "2196.37",
        "RW": "2200.35",
        "ZZ": "kept",
    }


@pytest.mark.parametrize(
    ("re_value", "result", "note"),
    [
        ("+12.000", (38, 26), ""),
        ("-4.000", (30, 34), ""),
        ("+0.000", (32, 32), ""),
        ("+64.000", (64, 0), ""),
        ("-2:r", (31, 33), "resignation"),
        ("+10.00:t", (37, 27), "time"),
        ("+6:s", (35, 29), "agreement"),
    ],
)
def test_results_with_their_endings(re_value, result, note):
    (g,) = read_ggf_text(ggf(f"RE[{re_value}]"))
    assert (g.result, g.result_note) == (result, note)
    (again,) = read_ggf_text(write_ggf(g))
    assert (again.result, again.result_note) == (result, note)


def test_a_result_that_is_no_disc_split_is_kept_as_written():
    (g,) = read_ggf_text(ggf("RE[+0.5]"))
    assert g.result is None and g.extra["RE"] == "+0.5"
    assert "RE[+0.5]" in write_ggf(g)


def test_start_position_with_white_to_move_and_handicap():
    hand = Position.handicap(2)
    bo = f"BO[{board_value(hand)}]"
    assert bo == ("BO[8 *------- -------- -------- ---O*--- ---*O--- -------- -------- -------* O]")
    (g,) = read_ggf_text(ggf("W[f4]", bo))
    assert g.start == hand
    assert g.moves == [Move(Color.WHITE, "f4")]
    assert read_ggf_text(write_ggf(g)) == [g]


@pytest.mark.parametrize("size", [6, 10])
def test_other_board_sizes(size):
    start = Position.start(size)
    first = start.legal_squares()[0]
    (g,) = read_ggf_text(f"(;GM[Othello]TY[{size}]BO[{board_value(start)}]B[{first}];)")
    assert g.start.size == size and g.moves[0].square == first
    assert f"TY[{size}]" in write_ggf(g)
    # Without BO[], TY[] alone sets the board and its standard start.
    (g,) = read_ggf_text(f"(;GM[Othello]TY[{size}]B[{first.upper()}];)")
    assert g.start == start and g.moves[0].square == first


def test_bad_board_names_character_and_square():
    with pytest.raises(RecordError, match="bad character 'Z' at d1"):
        parse_board("8 ---Z---- " + "-" * 56 + " *")
    with pytest.raises(RecordError, match="side to move must be"):
        parse_board("8 " + "-" * 64 + " ?")
    with pytest.raises(RecordError, match="63 squares"):
        parse_board("8 " + "-" * 63 + " *")
    with pytest.raises(RecordError, match="board size 9"):
        parse_board("9 " + "-" * 81 + " *")


def test_passes_written_or_implied_read_the_same():
    explicit = read_ggf_text(ggf(moves_tags(PASS_GAME).replace("W[a1]", "B[PA]W[a1]")))
    implicit = read_ggf_text(ggf(moves_tags(PASS_GAME)))
    spelled = read_ggf_text(ggf(moves_tags(PASS_GAME).replace("W[a1]", "B[pass]W[A1]")))
    assert explicit == implicit == spelled
    passes = [m for m in implicit[0].moves if m.square is None]
    assert passes == [Move(Color.BLACK, None)]
    assert "B[PA]W[a1]" in write_ggf(implicit[0])
    assert implicit[0].is_finished()


def test_illegal_move_names_game_and_move_number():
    text = ggf("B[f5]W[d6]") + "\n" + ggf("B[f5]W[f4]B[a1]")
    scan = scan_ggf_text(text, "club.ggf")
    assert scan.games[0].error is None
    assert str(scan.games[1].error).startswith("club.ggf: game 2: offset ")
    assert str(scan.games[1].error).endswith("move 3: black cannot play a1: it turns no disc")
    with pytest.raises(RecordError, match="game 2"):
        read_ggf_text(text, "club.ggf")


def test_move_by_the_wrong_side_and_illegal_pass_are_refused():
    with pytest.raises(RecordError, match=r"move 2 \(d6\) is by black, but white is to move"):
        read_ggf_text(ggf("B[f5]B[d6]"))
    with pytest.raises(RecordError, match="move 1: black cannot pass: legal moves d3 c4 f5 e6"):
        read_ggf_text(ggf("B[PA]"))
    with pytest.raises(RecordError, match=r"move 1 \(B\[z9\]\).*not a square"):
        read_ggf_text(ggf("B[z9]"))
    with pytest.raises(RecordError, match="time 'x' is not a number"):
        read_ggf_text(ggf("B[f5//x]"))


def test_clock_readings_with_minutes():
    (g,) = read_ggf_text(ggf("B[f5//01:02.5]"))
    assert g.moves[0].time == 62.5


def test_several_games_with_count_prefixes():
    text = "1 (;GM[Othello]B[f5];)\n2 (;GM[Othello]B[d3]W[c3];)\n\n"
    games = read_ggf_text(text)
    assert [g.transcript_moves() for g in games] == [["f5"], ["d3", "c3"]]
    assert read_ggf_text(write_ggf_games(games)) == games


def test_comments_draw_win_right_and_event_round_trip():
    g = GameRecord.from_squares(
        ["f5", "d6", "c3"], black="Ann", white="Bob", event="Club [A] night", date="2024-05-06"
    )
    g.comments = ["printed from the arbiter's sheet", "second line\\with backslash"]
    g.moves[1].comment = "over_flip e5 ] wrong"
    g.moves[2].comment = "clock pressed late"
    g.draw_win_right = Color.WHITE
    text = write_ggf(g)
    assert "DW[W]" in text and "EV[Club [A\\] night]" in text and "DT[2024.05.06]" in text
    (back,) = read_ggf_text(text)
    assert back == g


def test_draw_win_right_settles_a_drawn_result():
    (g,) = read_ggf_text(ggf("RE[+0.000]DW[B]"))
    assert g.winner() is Color.BLACK
    with pytest.raises(RecordError, match="DW"):
        read_ggf_text(ggf("DW[maybe]"))


def test_not_othello_is_refused():
    with pytest.raises(RecordError, match="GM.Amazons. is not an Othello game"):
        read_ggf_text("(;GM[Amazons]TY[10];)")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("(;GM[Othello]PB[Ann", "value of PB never closed"),
        ("(;GM[Othello]PB[Ann]", "ends before the game's closing"),
        ("(;GM[Othello]PB[Ann] $ ;)", "offset 21: expected a tag"),
        ("no games here", "no GGF game found"),
    ],
)
def test_syntax_errors_name_the_place(text, message):
    with pytest.raises(RecordError, match=message.replace("$", r"\$")) as err:
        read_ggf_text(text, "x.ggf")
    assert str(err.value).startswith("x.ggf: ")


def test_empty_text_holds_no_games():
    assert read_ggf_text("  \n") == []


def test_epoch_dates_become_calendar_dates():
    (g,) = read_ggf_text("(;GM[Othello]DT[945277754];)")
    assert g.date == "1999-12-15" and g.extra["DT"] == "945277754"
    assert "DT[945277754]" in write_ggf(g)


def test_arbiter_notes_on_moves_survive_ggf_and_json():
    from controller.records.jsonform import dumps, loads

    g = GameRecord.from_squares(["f5", "d6", "c3"])
    g.add_comment("forgotten_flip e5", move=2)
    g.add_comment("shifted_disc c3", move=2)
    g.add_comment("table 4")
    # one line: a GGF reader goes by lines
    assert g.moves[1].comment == "forgotten_flip e5; shifted_disc c3"
    assert read_ggf_text(write_ggf(g)) == [g]
    assert loads(dumps([g])) == [g]
    with pytest.raises(RecordError, match="no move 4 to comment on"):
        g.add_comment("late", move=4)
