"""The games folder keeps a game from a handicap start, in every format that can hold it."""

from __future__ import annotations

import logging

from controller.cli import main as cli_main
from controller.position import Position
from controller.records import GameRecord, load_games
from controller.service.games import write_game_files

GAME_ID = "20260101-120000"


def _handicap_game() -> GameRecord:
    start = Position.handicap(2)
    squares, pos = [], start
    for _ in range(6):
        squares.append(pos.legal_squares()[0])
        pos = pos.play(squares[-1])
    return GameRecord.from_squares(squares, start=start, black="Ann", white="Bob")


def test_a_handicap_game_gets_no_transcript_and_the_log_says_why(tmp_path, caplog):
    game = _handicap_game()
    folder = tmp_path / "games"
    with caplog.at_level(logging.WARNING, logger="kaeshi.service"):
        written = write_game_files(game, GAME_ID, folder)

    assert sorted(p.name for p in written) == [f"{GAME_ID}.ggf", f"{GAME_ID}.json"]
    assert sorted(p.name for p in folder.iterdir()) == [f"{GAME_ID}.ggf", f"{GAME_ID}.json"]
    assert f"{GAME_ID}.txt not written: game {GAME_ID} (Ann vs Bob): a transcript" in caplog.text
    assert "a 2-disc handicap" in caplog.text
    for ext in (".json", ".ggf"):
        again = load_games(folder / f"{GAME_ID}{ext}")[0]
        assert again.start == game.start
        assert again.moves == game.moves


def test_listing_marks_it_and_exporting_a_transcript_is_refused(tmp_path, capsys):
    folder = tmp_path / "games"
    write_game_files(_handicap_game(), GAME_ID, folder)

    assert cli_main(["games", "list", "--folder", str(folder)]) == 0
    out = capsys.readouterr().out
    assert f"{GAME_ID}  Ann vs Bob" in out and "(not the standard start: GGF/json only)" in out
    assert cli_main(["games", "export", GAME_ID, "txt", "--folder", str(folder)]) == 1
    err = capsys.readouterr().err
    assert f"game {GAME_ID} (Ann vs Bob): a transcript holds only games" in err
    assert "Traceback" not in err
    assert cli_main(["games", "export", GAME_ID, "ggf", "--folder", str(folder)]) == 0
    assert "BO[8 " in capsys.readouterr().out
