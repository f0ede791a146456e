"""Reviewing recorded games with Kaeshi's own engine over NBoard, through a pipe."""

from __future__ import annotations

import copy

import pytest

from controller.bitboard import bit_indices, flips, legal_moves
from controller.cli import main as cli_main
from controller.engine.client import EngineClient, EngineSpec
from controller.engine.process import own_engine_argv
from controller.engine.report import load_review, review_html, review_paths
from controller.engine.review import ReviewError, annotate, review_game, text_graph
from controller.engine.search import final_margin
from controller.records import load_games, read_ggf_text, write_ggf
from controller.service.games import write_game_files
from controller.squares import Color


@pytest.fixture(scope="module")
def game(data_dir):
    """The first game of the 2001 WTHOR file: a real game played to the end."""
    return load_games(data_dir / "games" / "wthor" / "WTH_2001.wtb")[0]


@pytest.fixture(scope="module")
def review(game):
    client = EngineClient(EngineSpec(tuple(own_engine_argv("nboard", 4, 60.0)), "nboard", 4, 60.0))
    try:
        yield review_game(game, client)
    finally:
        client.close()


def brute_force(p: int, o: int, memo: dict) -> int:
    """The exact margin for the mover by trying every line to the end (no pruning)."""
    key = (p, o)
    if key not in memo:
        moves = legal_moves(p, o)
        if not moves:
            memo[key] = final_margin(p, o) if not legal_moves(o, p) else -brute_force(o, p, memo)
        else:
            best = -99
            for sq in bit_indices(moves):
                f = flips(p, o, sq)
                best = max(best, -brute_force(o & ~f, p | f | 1 << sq, memo))
            memo[key] = best
    return memo[key]


def test_disc_losses_on_the_last_12_empties_match_a_brute_force_search(game, review):
    positions = game.positions()
    # the review's turns make implicit passes explicit, as the positions do
    assert len(review.moves) == len(positions) - 1
    memo: dict = {}
    checked = lost = 0
    for m, before, after in zip(review.moves, positions[:-1], positions[1:], strict=True):
        if 64 - (before.black | before.white).bit_count() > 12:
            continue
        sign = 1 if before.to_move is Color.BLACK else -1
        best = brute_force(before.mover, before.other, memo)
        value_after = brute_force(after.mover, after.other, memo)
        after_black = value_after if after.to_move is Color.BLACK else -value_after
        assert m.score == pytest.approx(after_black), f"move {m.number}"
        if m.square is None:
            continue
        assert m.loss == pytest.approx(best - sign * after_black), f"move {m.number}"
        checked += 1
        lost += m.loss > 0
    assert checked >= 11 and lost >= 2  # real mistakes among them, not only zeros


def test_the_review_marks_the_biggest_mistakes_and_writes_standard_ggf(game, review):
    worst = sorted((m.loss or 0 for m in review.moves), reverse=True)[:3]
    assert sorted((m.loss for m in review.mistakes()), reverse=True) == worst
    text = write_ggf(annotate(game, review))
    back = read_ggf_text(text)[0]
    assert [m.square for m in back.moves] == [m.square for m in game.moves]
    played = [m for m in review.moves if m.square is not None]
    for mv, rm in zip([m for m in back.moves if m.square], played, strict=True):
        mover_view = rm.score if rm.player == "black" else -rm.score
        assert mv.eval == pytest.approx(mover_view)
    marked = [mv for mv in back.moves if "MISTAKE" in mv.comment]
    assert len(marked) == len(review.mistakes())
    assert any("Reviewed by Kaeshi" in c for c in back.comments)


def test_the_score_graph_reads_at_a_glance(review):
    graph = text_graph(review)
    lines = graph.splitlines()
    assert len(lines) == 10 and lines[-1].count("!") == len(review.mistakes())
    assert all(len(line) == 6 + len(review.moves) for line in lines)


def test_kaeshi_games_review_writes_the_review_beside_the_game(tmp_path, game, capsys):
    folder = tmp_path / "games"
    write_game_files(game, "20260101-120000", folder)
    assert cli_main(["games", "review", "20260101-120000", "--folder", str(folder),
                     "--level", "1"]) == 0
    out = capsys.readouterr().out
    assert "discs lost: black" in out and "mistake:" in out
    ggf, js = review_paths(folder, "20260101-120000")
    assert "wrote" in out and ggf.is_file() and js.is_file()
    saved = load_review(js)
    assert len(saved.moves) == len(game.positions()) - 1
    page = review_html(saved, game, "20260101-120000")
    assert "<svg" in page and page.count('class="mistake"') == len(saved.mistakes())
    # the game's own record is left as the arbiter wrote it
    assert "Reviewed by" not in (folder / "20260101-120000.ggf").read_text()


def test_a_review_needs_an_engine_that_gives_scores(tmp_path, game, capsys):
    client = EngineClient(EngineSpec(tuple(own_engine_argv("gtp", 1)), "gtp", 1, 10.0))
    with pytest.raises(ReviewError, match="needs scores"):
        review_game(game, client)
    folder = tmp_path / "games"
    write_game_files(game, "g1", folder)
    config = tmp_path / "k.toml"
    config.write_text('[engine]\nprotocol = "gtp"\n')
    assert cli_main(["games", "review", "g1", "--folder", str(folder),
                     "--config", str(config)]) == 1
    assert "needs scores" in capsys.readouterr().err


def test_an_engine_crashing_mid_review_is_started_again_and_the_review_completes(game, tmp_path):
    import sys
    from pathlib import Path

    faults = Path(__file__).with_name("engine_faults.py")
    marker = tmp_path / "starts"
    client = EngineClient(EngineSpec((sys.executable, str(faults), "nboard", "crash", "20",
                                      str(marker)), "nboard", 2, 30.0), restarts=3)
    try:
        review = review_game(game, client)
    finally:
        client.close()
    assert marker.read_text().count("started") >= 3  # crashed after every 20 requests
    assert len(review.moves) == len(game.positions()) - 1
    assert review.moves[-1].score == pytest.approx(-42.0)  # the game's real result


def test_the_review_says_how_deep_each_position_was_searched(game, review):
    positions = game.positions()
    for m, before in zip(review.moves, positions[:-1], strict=True):
        empties = 64 - (before.black | before.white).bit_count()
        if not before.legal_moves():
            continue  # a forced pass is not searched
        assert m.depth is not None and 1 <= m.depth <= max(empties, 4)
        if empties <= 12:  # solved: the depth is the empties
            assert m.depth == empties, f"move {m.number}"
    assert review.seconds == 60.0
    assert "depth" in review.to_json()["moves"][0]


def test_a_review_note_joins_an_irregularity_note_on_one_line(game, review):
    marked = copy.deepcopy(game)
    # a move losing discs before any pass, so the record's and the review's numbers agree
    lost = next(i for i, m in enumerate(review.moves)
                if m.loss and all(x.square for x in review.moves[:i + 1]))
    marked.moves[lost].comment = ("Irregular move (rule 5): White did not turn e5. "
                                  "It was put right without being pointed out.")
    text = write_ggf(annotate(marked, review))
    assert "\n" not in text
    comment = read_ggf_text(text)[0].moves[lost].comment
    assert comment.startswith("Irregular move (rule 5): White did not turn e5. It was put "
                              "right without being pointed out. ")
    assert f"loses {review.moves[lost].loss:g} disc" in comment
