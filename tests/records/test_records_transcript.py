"""Transcripts: forgiving to read, one canonical way to write."""

from __future__ import annotations

import pytest
from game_strategies import games
from hypothesis import given, settings

from controller.position import Position
from controller.records import (
    GameRecord,
    RecordError,
    load_games,
    parse_transcript,
    save_games,
    transcript,
)
from controller.records.model import Move
from controller.records.transcript import parse_tokens, scan_transcripts, write_transcripts
from controller.squares import Color

# A real game in which black must pass before white's a1 (see the GGF tests).
PASS_GAME = (
    "d3c5e6d2c6d6b5f5e7f6f4f3g4d7g3g5h6h5h4e8c7h3c3h7e3b6g6f7d8c2d1c4b4a5f8f2e2a4a3b3f1"
    "g7b7c8a6a7c1b2a8b8a2e1h8g8h2g1h1g2a1b1"
)


def test_reads_mixed_case_and_whitespace():
    g = parse_transcript(" F5d6\n C3 d3\tc4 ")
    assert g.transcript_moves() == ["f5", "d6", "c3", "d3", "c4"]
    assert [m.player for m in g.moves] == [Color.BLACK, Color.WHITE] * 2 + [Color.BLACK]


@pytest.mark.parametrize("spelling", ["--", "PA", "pa", "pass", "PASS", ""])
def test_passes_may_be_written_or_left_out(spelling):
    written = PASS_GAME.replace("g2a1", f"g2{spelling}a1")
    g = parse_transcript(written)
    assert [m for m in g.moves if m.square is None] == [Move(Color.BLACK, None)]
    assert g.is_finished()
    assert g.final_position().final_score() == (32, 32)


def test_writes_lowercase_squares_run_together_without_passes():
    g = parse_transcript(PASS_GAME.upper())
    assert g.transcript_moves()[0] == "d3"
    assert transcript(g) == PASS_GAME


def test_bad_character_is_named_with_its_position():
    with pytest.raises(RecordError, match=r"character 7 \('x'\) .* after 3 moves"):
        parse_tokens("f5d6c3x4")
    with pytest.raises(RecordError, match=r"character 3 \('i'\)"):
        parse_tokens("f5i9")
    with pytest.raises(RecordError, match=r"character 5 \('9'\)"):
        parse_tokens("f5d69")


def test_illegal_move_and_illegal_pass_name_the_move_number():
    with pytest.raises(RecordError, match="move 3: black cannot play a1: it turns no disc"):
        parse_transcript("f5d6a1")
    with pytest.raises(RecordError, match="move 2: white cannot play f5: occupied"):
        parse_transcript("f5f5")
    with pytest.raises(RecordError, match="move 2: white cannot pass: legal moves"):
        parse_transcript("f5--d6")
    with pytest.raises(RecordError, match="the game is already over"):
        parse_transcript(PASS_GAME + "h1")


def test_ten_by_ten_squares():
    start = Position.start(10)
    first = start.legal_squares()[-1]
    g = parse_transcript(first.upper(), start=start)
    assert g.moves == [Move(Color.BLACK, first)]
    assert parse_tokens("a10j1", 10)[0].square == 90


def test_file_with_comments_and_blank_lines(tmp_path):
    path = tmp_path / "club.txt"
    path.write_text("# club night, round 1\n\nf5d6c3d3c4\n  # a comment\nF5 F6 E6 F4\n\n")
    games_read = load_games(path)
    assert [g.transcript_moves() for g in games_read] == [
        ["f5", "d6", "c3", "d3", "c4"],
        ["f5", "f6", "e6", "f4"],
    ]


def test_file_problems_name_the_line(tmp_path):
    scan = scan_transcripts("# header\nf5d6\nf5d6a1\n", "t.txt")
    assert scan.games[0].error is None
    assert str(scan.games[1].error) == (
        "t.txt: game 2: line 3: move 3: black cannot play a1: it turns no disc"
    )


def test_writing_refuses_what_a_transcript_cannot_hold(tmp_path):
    handicap = GameRecord(start=Position.handicap(1))
    with pytest.raises(RecordError, match="game 2: a transcript holds only games from the"):
        write_transcripts([GameRecord(), handicap])
    with pytest.raises(RecordError, match="out.txt"):
        save_games([GameRecord(), handicap], tmp_path / "out.txt")
    assert not (tmp_path / "out.txt").exists()


@settings(max_examples=60, deadline=None)
@given(games())
def test_transcript_round_trip(moves):
    g = GameRecord.from_squares(moves)
    text = transcript(g)
    assert text == "".join(moves)
    again = parse_transcript(text)
    assert again.moves == g.moves
    spaced = parse_transcript(" ".join(m.upper() for m in moves))
    assert spaced.moves == g.moves


def _first_moves(start: Position, count: int) -> list[str]:
    squares, pos = [], start
    for _ in range(count):
        squares.append(pos.legal_squares()[0])
        pos = pos.play(squares[-1])
    return squares


@pytest.mark.parametrize(("start", "named"), [
    (Position.handicap(2), "a 2-disc handicap"),
    (Position.start(10).with_to_move(Color.WHITE), "a set-up position on a 10x10 board"),
    (Position.start().with_to_move(Color.WHITE), "a set-up position with white to move"),
])
def test_a_game_from_another_start_is_refused_naming_the_game(start, named):
    game = GameRecord.from_squares(_first_moves(start, 4), start=start,
                                   black="Ann", white="Bob")
    with pytest.raises(RecordError, match=rf"^game Ann vs Bob: .* starts from {named} "):
        transcript(game)
    game.extra["KID"] = "20260101-120000"
    with pytest.raises(RecordError, match=r"^game 20260101-120000 \(Ann vs Bob\): a transcript"):
        transcript(game)
    with pytest.raises(RecordError, match="^round 3: a transcript holds only games from the "
                                          "centre-four start"):
        transcript(game, "round 3")
