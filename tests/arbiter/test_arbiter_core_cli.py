"""``kaeshi simulate`` and ``kaeshi arbitrate`` end to end, and logs that are garbage."""

from __future__ import annotations

import json

import pytest
from arbiter_logs import wthor_2001

from controller.cli import main
from controller.records import load_games, save_games

START = "---------------------------OX------XO---------------------------"
AFTER_F5 = START[:36] + "XX" + START[38:]


def line(**fields: object) -> str:
    return json.dumps(fields)


@pytest.fixture(scope="module")
def few_games(data_dir, tmp_path_factory) -> str:
    """Ten WTH_2001 games in a small file, so each command reads little."""
    path = tmp_path_factory.mktemp("records") / "few.json"
    save_games(list(wthor_2001(data_dir)[:10]), path)
    return str(path)


def test_simulate_then_arbitrate_matches_the_truth(few_games, tmp_path, capsys):
    log, truth, rec = tmp_path / "log.jsonl", tmp_path / "truth.jsonl", tmp_path / "game.json"
    assert (
        main(
            [
                "simulate",
                few_games,
                "--game",
                "3",
                "--errors",
                "0.2",
                "--seed",
                "7",
                "--noise",
                "0.05",
                "--out",
                str(log),
                "--truth",
                str(truth),
            ]
        )
        == 0
    )
    assert "injected" in capsys.readouterr().err
    assert main(["arbitrate", str(log), "--mode", "tournament", "--record", str(rec)]) == 0
    got = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    want = [json.loads(line) for line in truth.read_text().splitlines()]
    assert [{k: v for k, v in e.items() if k != "t"} for e in got] == [
        {k: v for k, v in e.items() if k != "t"} for e in want
    ]
    assert any(e["event"] == "irregularity" for e in got)
    record = json.loads(rec.read_text())["games"][0]
    assert any(m["comment"] for m in record["moves"])


def test_clean_game_record_round_trips(few_games, tmp_path, capsys):
    log, rec = tmp_path / "log.jsonl", tmp_path / "game.ggf"
    assert main(["simulate", few_games, "--game", "10", "--no-clock", "--out", str(log)]) == 0
    assert main(["arbitrate", str(log), "--record", str(rec)]) == 0
    original = load_games(few_games)[9]
    again = load_games(rec)[0]
    assert again.transcript_moves() == original.transcript_moves()
    assert again.result == original.result


def test_simulate_writes_to_stdout_without_presses(few_games, capsys):
    assert main(["simulate", few_games, "--game", "1", "--no-clock", "--no-hand"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines and all("board" in json.loads(line) for line in lines)


@pytest.mark.parametrize(
    "args,message",
    [
        (["--game", "0"], "--game must be 1 to"),
        (["--errors", "1.5"], "--errors must be between 0 and 1"),
        (["--noise", "-0.1"], "--noise must be between 0 and 1"),
    ],
)
def test_simulate_bad_options(few_games, capsys, args, message):
    assert main(["simulate", few_games, *args]) == 1
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


GARBAGE = [
    ("not json", [line(t=0, board=START), "this is not json"], "line 2: not JSON"),
    ("bad board", [line(t=0, board=START.replace("O", "Q", 1))], "line 1: bad character 'Q'"),
    ("short board", [line(t=0, board="---")], "line 1: board string has 3 squares"),
    ("time backwards", [line(t=5, board=START), line(t=4, press="white")],
     "line 2: time goes backwards"),
    ("bad press", [line(t=0, press="red")], "line 1: 'press' must be"),
    ("no t", [line(board=START)], "line 1: missing or non-numeric 't'"),
]


@pytest.mark.parametrize("name,lines,message", GARBAGE, ids=[g[0] for g in GARBAGE])
def test_garbage_log_names_the_line(tmp_path, capsys, name, lines, message):
    log = tmp_path / "log.jsonl"
    log.write_text("\n".join(lines) + "\n")
    assert main(["arbitrate", str(log)]) == 1
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err


def test_events_before_a_bad_line_are_not_lost(tmp_path, capsys):
    log = tmp_path / "log.jsonl"
    lines = [line(t=i / 10, board=START) for i in range(3)]
    lines += [line(t=1.0, press="white"), line(t=1.1, board=AFTER_F5),
              line(t=1.2, board=AFTER_F5), line(t=1.3, press="black"),
              line(t=0.5, press="white")]
    log.write_text("\n".join(lines) + "\n")
    assert main(["arbitrate", str(log)]) == 1
    out, err = capsys.readouterr()
    assert "line 8: time goes backwards" in err
    assert [json.loads(x)["event"] for x in out.splitlines()] == ["move"]


def test_missing_log_file(tmp_path, capsys):
    assert main(["arbitrate", str(tmp_path / "nope.jsonl")]) == 1
    assert "nope.jsonl" in capsys.readouterr().err


def test_arbitrate_from_a_given_start(tmp_path, capsys):
    board = "-OX-----" + "-" * 48 + "------OX"
    after = "XXX-----" + "-" * 48 + "------OX"
    log = tmp_path / "log.jsonl"
    log.write_text("\n".join([line(t=0, board=board), line(t=0.1, board=after),
                              line(t=0.2, board=after)]) + "\n")
    assert main(["arbitrate", str(log), "--board", board, "--to-move", "X"]) == 0
    events = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [(e["event"], e.get("square")) for e in events] == [("move", "a1"), ("pass", None)]
    assert main(["arbitrate", str(log), "--board", board, "--handicap", "1"]) == 1
    assert "either --board or --handicap" in capsys.readouterr().err


def test_arbitrate_settled_counts_a_board_the_press_follows_at_once(tmp_path, capsys):
    """A log from the sensor board: each change once, the press 10 ms after the last."""
    log = tmp_path / "hall.jsonl"
    f5 = START[:37] + "X" + START[38:]  # e5 still white
    log.write_text("\n".join([line(t=0, board=START), line(t=1.0, press="white"),
                              line(t=2.0, board=f5), line(t=2.3, board=AFTER_F5),
                              line(t=2.31, press="black")]) + "\n")
    assert main(["arbitrate", str(log), "--settled"]) == 0
    events = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [(e["event"], e.get("square"), e.get("flips")) for e in events] == [
        ("move", "f5", ["e5"]),
    ]
    assert main(["arbitrate", str(log)]) == 0  # as raw frames, e5 has not stood long enough
    kinds = [json.loads(x).get("kind") for x in capsys.readouterr().out.splitlines()]
    assert kinds == [None, "forgotten_flip"]
