"""Hostile input: each gets a clear error naming what and where, never a traceback,
and no text can forge a game in a record file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from controller.observation import ObservationLogError, parse_observation, read_observations
from controller.position import Position
from controller.records import write_ggf
from controller.records.jsonform import loads
from controller.records.model import GameRecord, RecordError
from controller.records.transcript import parse_transcript, scan_transcripts
from controller.service.config import ConfigError, parse_config
from controller.service.games import transcript_file

ROOT = Path(__file__).resolve().parents[2]
BIG = "9" * 400


@pytest.mark.parametrize("text,key,line", [
    ("[source]\nspeed = nan\n", "source.speed", 2),
    ("[game]\nmode = \"home\"\n[source]\nspeed = inf\n", "source.speed", 4),
    ("[source]\nlost_after = -inf\n", "source.lost_after", 2),
    ("[gpio]\ndebounce = nan\n", "gpio.debounce", 2),
    (f"[clock]\nmain = {BIG}\n", "clock.main", 2),
    ('[game]\nblack = "Ann\\n# result 64-0\\nf5d6c3"\n', "game.black", 2),
    ('[game]\nevent = "Cup\\u2028f5"\n', "game.event", 2),
    ('[game]\nblack = "Ann\\u202eoJ"\n', "game.black", 2),  # shows as "AnnJo"
    ('[game]\nwhite = "\\u2067Bob\\u2069"\n', "game.white", 2),
    ('[game]\nplace = "Hall\\u200f"\n', "game.place", 2),
])
def test_bad_config_values_are_refused_naming_file_line_and_key(text, key, line):
    with pytest.raises(ConfigError) as info:
        parse_config(text, "hall.toml")
    message = str(info.value)
    assert message.startswith(f"hall.toml line {line}: {key}")
    assert BIG not in message and len(message) < 200


def test_deeply_nested_toml_is_refused():
    with pytest.raises(ConfigError, match="hall.toml: not valid TOML: .*nested too deeply"):
        parse_config("x = " + "[" * 5000 + "]" * 5000, "hall.toml")


@pytest.mark.parametrize("line,fault", [
    ('{"t": ' + BIG + ', "press": "black"}', "out of range"),
    ('{"t": ' + "9" * 5000 + ', "press": "black"}', "not usable JSON"),
    ('{"t": 1e300, "press": "black"}', "out of range"),
    ('{"t": 1, "board": ' + "[" * 100000 + "]" * 100000 + "}", "nested too deeply"),
])
def test_bad_observations_are_refused_naming_the_line(line, fault):
    with pytest.raises(ObservationLogError, match=f"line 7: .*{fault}"):
        parse_observation(line, 7)


def _run(tmp_path: Path, config: str) -> subprocess.CompletedProcess[str]:
    cfg = tmp_path / "k.toml"
    cfg.write_text(config)
    return subprocess.run([sys.executable, "-m", "controller.cli", "run", "--config", str(cfg)],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)


def test_kaeshi_run_names_a_bad_config_without_a_traceback(tmp_path):
    done = _run(tmp_path, "[source]\nkind = \"sim\"\nspeed = nan\n")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "line 3: source.speed must be a finite number" in done.stderr


def test_kaeshi_run_names_a_bad_log_line_without_a_traceback(tmp_path):
    log = tmp_path / "log.jsonl"
    board = Position.start().board_string()
    log.write_text(json.dumps({"t": 0, "board": board}) + "\n"
                   + '{"t": ' + BIG + ', "press": "white"}\n')
    done = _run(tmp_path, f'[source]\nkind = "sim"\nlog = "{log}"\n'
                f'[journal]\npath = "{tmp_path / "j.sqlite"}"\n[web]\nenabled = false\n')
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert f"observation log {log}: line 2: 't' is out of range" in done.stderr


def test_a_record_with_absurd_numbers_is_refused_not_a_crash():
    doc = {"format": "kaeshi-games", "version": 1, "games": [
        {"moves": [{"player": "black", "square": "f5", "time": 10**400}]}]}
    with pytest.raises(RecordError, match="move 1: time is out of range"):
        loads(json.dumps(doc), "g.json")
    doc["games"][0]["moves"][0]["time"] = 1
    doc["games"][0]["result"] = [10**400, 0]
    with pytest.raises(RecordError, match="result must be"):
        loads(json.dumps(doc), "g.json")
    with pytest.raises(RecordError, match=r"version 10+\.\.\. not supported"):
        loads(json.dumps({"format": "kaeshi-games", "version": 10**400, "games": []}))


def test_a_line_break_in_a_name_or_comment_forges_no_game_in_the_transcript():
    rec = parse_transcript("f5d6c3")
    rec.black = "Ann\nf5f6e6f4"
    rec.event = "Cup\r\nd3c3"
    rec.comments = ["lost on time\nc4c3"]
    rec.moves[1].comment = "forgotten_flip\u2028e6f4"
    text = transcript_file(rec)
    scan = scan_transcripts(text, "game.txt")
    assert [g.transcript_moves() for g in scan.records()] == [["f5", "d6", "c3"]]
    assert "Ann f5f6e6f4" in text


def test_ggf_refuses_a_control_character_in_a_field():
    rec = GameRecord(black="Ann\nf5")
    with pytest.raises(RecordError, match=r"PB\[.*character '\\n' cannot be written"):
        write_ggf(rec)
    # a comment's line break is written as a space: GGF readers take a game by lines
    rec = GameRecord(comments=["two\nlines"])
    assert "C[two lines]" in write_ggf(rec) and "\n" not in write_ggf(rec)


def test_observation_logs_are_read_lazily():
    """A bad line far down does not stop the readings before it from coming (streaming)."""
    board = Position.start().board_string()
    lines = iter([json.dumps({"t": 0, "board": board}), "not json"])
    reader = read_observations(lines)
    assert next(reader).board == board
    with pytest.raises(ObservationLogError, match="line 2"):
        next(reader)


def test_kaeshi_run_on_a_log_loads_no_camera_or_tournament_libraries(tmp_path):
    """Start-up memory: a service fed by a log never imports numpy, OpenCV or networkx."""
    log = tmp_path / "log.jsonl"
    log.write_text(json.dumps({"t": 0, "board": Position.start().board_string()}) + "\n")
    cfg = tmp_path / "k.toml"
    cfg.write_text(f'[source]\nkind = "sim"\nlog = "{log}"\n'
                   f'[journal]\npath = "{tmp_path / "j.sqlite"}"\n'
                   f'[games]\nfolder = "{tmp_path / "games"}"\n[web]\nenabled = false\n')
    code = ("import sys\nfrom controller.cli import main\n"
            f"assert main(['run', '--config', {str(cfg)!r}]) == 0\n"
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'numpy', 'cv2', 'networkx'}))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize("mark", ["\u202e", "\u202d", "\u2066", "\u2067", "\u2068",
                                  "\u2069", "\u202a", "\u202b", "\u202c", "\u200e",
                                  "\u200f", "\u061c"])
def test_bidirectional_controls_in_names_are_refused_everywhere_a_name_comes_in(mark):
    """A name holding a bidirectional control displays as another name than the one
    kept: the configuration, a roster and a hub's next-game order each refuse it."""
    from controller.hall_protocol.checks import check_command_args
    from controller.tournament.model import TournamentError
    from controller.tournament_store.roster import parse_roster

    with pytest.raises(ConfigError, match=r"hall.toml line 2: game.black .*control"):
        parse_config(f'[game]\nblack = "Ann{mark}oJ"\n', "hall.toml")
    with pytest.raises(TournamentError, match="roster.csv line 3: the name holds the control"):
        parse_roster(f"name,rank\nAnn,1d\nBob{mark}xx,2d\n", "roster.csv")
    args = {"round": 1, "black": f"Ann{mark}", "white": "Bob", "minutes": 20,
            "draw_win_right": "none"}
    with pytest.raises(Exception, match="black"):
        check_command_args("next_game", "next_game", args)
    args["black"] = "Ann"
    check_command_args("next_game", "next_game", args)  # the same order without it is fine
    assert parse_config('[game]\nblack = "Zoë Ōta"\n', "hall.toml")["game.black"] == "Zoë Ōta"
