"""The ``kaeshi`` entry point: every command is reachable and errors are clean."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from controller import commands
from controller.cli import build_parser, main


def _subcommands(parser):
    return next(a for a in parser._actions if a.dest == "command").choices


def test_the_table_lists_every_command_module_and_each_registers_its_arguments():
    on_disk = {p.stem for p in Path(commands.__file__).parent.glob("*.py")} - {"__init__"}
    assert {c.module for c in commands.COMMANDS.values()} == on_disk
    assert {"perft", "record", "simulate", "arbitrate", "run", "demo", "calibrate"} <= set(
        commands.COMMANDS)
    for name in commands.COMMANDS:
        parser = _subcommands(build_parser([name]))[name]
        assert parser.get_default("func") is not None or parser._subparsers, name


def test_the_listing_names_every_command_without_loading_one():
    listing = _subcommands(build_parser(["--help"]))
    assert set(listing) == set(commands.COMMANDS)
    assert all(p.get_default("func") is None for p in listing.values())


#: What no ``--help`` may import: the camera's, the solver's, the servers' and the
#: drivers' libraries.
HEAVY = ("numpy", "cv2", "networkx", "starlette", "uvicorn", "paho", "serial", "gpiozero",
         "sqlite3")


@pytest.mark.parametrize("name", ["", *commands.COMMANDS])
def test_help_imports_no_heavy_library_and_no_other_command(name):
    argv = [name, "--help"] if name else ["--help"]
    probe = (
        "import sys\n"
        "from controller.cli import main\n"
        "try:\n"
        f"    main({argv!r})\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(' '.join(sorted(sys.modules)), file=sys.stderr)\n"
    )
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=True)
    loaded = set(proc.stderr.split())
    assert "usage: kaeshi" in proc.stdout
    assert sorted(m for m in loaded if m.split(".")[0] in HEAVY) == []
    others = {f"controller.commands.{c.module}" for n, c in commands.COMMANDS.items()
              if n != name}
    assert sorted(loaded & others) == []


def test_calibrate_finds_its_targets_through_the_installed_entry_points():
    parser = build_parser(["calibrate"])
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
