"""The ``kaeshi`` entry point: every command is reachable and errors are clean."""

from __future__ import annotations

import subprocess
import sys

import pytest

from controller.cli import build_parser, main


def test_every_command_module_registers_a_subcommand():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    names = set(sub.choices)
    assert {"perft", "record", "simulate", "arbitrate", "run", "demo", "calibrate"} <= names


def test_calibrate_finds_its_targets_through_the_installed_entry_points():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    calibrate = sub.choices["calibrate"]
    targets = next(a for a in calibrate._actions if a.dest == "target")
    assert {"camera", "hall"} <= set(targets.choices)


def test_perft_prints_leaf_count(capsys):
    assert main(["perft", "4"]) == 0
    assert capsys.readouterr().out.strip() == "244"


def test_perft_from_board_string(capsys):
    start = "-" * 27 + "OX------XO" + "-" * 27
    assert main(["perft", "3", "--board", start, "--to-move", "X"]) == 0
    assert capsys.readouterr().out.strip() == "56"


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["perft", "2", "--board", "Q" + "-" * 63], "bad character 'Q' at a1"),
        (["perft", "2", "--board", "-" * 63], "has 63 squares"),
        (["perft", "2", "--board", "-" * 64, "--to-move", "Z"], "not a colour"),
        (["perft", "-1"], "depth must be 0 or more"),
    ],
)
def test_bad_input_is_a_message_not_a_traceback(args, needle):
    proc = subprocess.run(
        [sys.executable, "-m", "controller.cli", *args], capture_output=True, text=True
    )
    assert proc.returncode == 1
    assert needle in proc.stderr
    assert "Traceback" not in proc.stderr
