"""``kaeshi record convert`` and ``kaeshi record verify`` as a user runs them."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from controller.cli import main
from controller.records import load_games
from controller.records.wthor import HEADER


@pytest.fixture
def wthor_copy(tmp_path: Path, data_dir: Path) -> Path:
    """WTH_1977.wtb with its name files, in a scratch directory."""
    src = data_dir / "games" / "wthor"
    for name in ("WTH_1977.wtb", "WTHOR.JOU", "WTHOR.TRN"):
        shutil.copy(src / name, tmp_path / name)
    return tmp_path / "WTH_1977.wtb"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("ext", [".ggf", ".json", ".txt", ".wtb"])
def test_convert_wthor_to_each_format_and_back(capsys, tmp_path, wthor_copy, ext):
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    target = out_dir / f"games{ext}"
    code, out, _ = run(capsys, "record", "convert", str(wthor_copy), str(target))
    assert code == 0
    assert out == f"12 games: {wthor_copy} -> {target}\n"
    original = load_games(wthor_copy)
    back = load_games(target)
    assert [g.moves for g in back] == [g.moves for g in original]
    if ext != ".txt":
        assert [(g.black, g.white, g.result) for g in back] == [
            (g.black, g.white, g.result) for g in original
        ]
    if ext == ".wtb":
        assert sorted(p.name for p in out_dir.iterdir()) == ["WTHOR.JOU", "WTHOR.TRN", "games.wtb"]


def test_convert_wtb_beside_existing_names_keeps_records_identical(capsys, tmp_path, wthor_copy):
    ggf = tmp_path / "1977.ggf"
    assert run(capsys, "record", "convert", str(wthor_copy), str(ggf))[0] == 0
    again = tmp_path / "again.wtb"
    assert run(capsys, "record", "convert", str(ggf), str(again))[0] == 0
    assert again.read_bytes()[HEADER.size :] == wthor_copy.read_bytes()[HEADER.size :]


def test_convert_unknown_extension_is_a_clear_error(capsys, tmp_path, wthor_copy):
    code, out, err = run(capsys, "record", "convert", str(wthor_copy), str(tmp_path / "x.pgn"))
    assert code == 1 and out == ""
    assert err == (
        f"kaeshi: error: {tmp_path / 'x.pgn'}: unknown record format '.pgn'; "
        "use one of .wtb, .ggf, .txt, .json\n"
    )
    code, _, err = run(capsys, "record", "convert", str(tmp_path / "games"), str(wthor_copy))
    assert code == 1 and "unknown record format '(no extension)'" in err


def test_verify_counts_unfinished_games(capsys, tmp_path):
    path = tmp_path / "club.txt"
    path.write_text("f5d6c3d3c4\nf5f6f7g5h4c5b5f4e3\n")
    code, out, err = run(capsys, "record", "verify", str(path))
    assert code == 0 and err == ""
    assert out == "games: 2, illegal: 0, score_mismatch: 0, unfinished: 1\n"


def test_verify_lists_every_problem_then_fails(capsys, tmp_path, wthor_copy):
    bad_txt = tmp_path / "bad.txt"
    bad_txt.write_text("f5d6\nf5d6c3d3c4a1\n")
    bad_ggf = tmp_path / "bad.ggf"
    # A finished 9-move wipe-out whose stated result is wrong.
    bad_ggf.write_text("(;GM[Othello]RE[+10.000]B[f5]W[f6]B[f7]W[g5]B[h4]W[c5]B[b5]W[f4]B[e3];)\n")
    code, out, err = run(capsys, "record", "verify", str(wthor_copy), str(bad_txt), str(bad_ggf))
    assert code == 1
    assert out == "games: 15, illegal: 1, score_mismatch: 1, unfinished: 1\n"
    assert err.splitlines() == [
        f"{bad_txt}: game 2: line 2: move 6: white cannot play a1: it turns no disc",
        f"{bad_ggf}: game 1: stated result 37-27, but the board ends 64-0",
    ]


def test_verify_reports_a_corrupt_file_without_traceback(capsys, tmp_path, wthor_copy):
    broken = tmp_path / "broken.wtb"
    broken.write_bytes(b"\x14\x18")
    code, out, err = run(capsys, "record", "verify", str(broken), str(wthor_copy))
    assert code == 1
    assert out == "games: 12, illegal: 0, score_mismatch: 0, unfinished: 0\n"
    assert err == f"{broken}: 2 bytes, shorter than the 16-byte WTHOR header\n"
    assert "Traceback" not in err


def test_verify_warns_about_a_short_file(capsys, tmp_path, wthor_copy):
    data = wthor_copy.read_bytes()
    wthor_copy.write_bytes(data[:-30])
    code, out, err = run(capsys, "record", "verify", str(wthor_copy))
    assert code == 0
    assert out == "games: 11, illegal: 0, score_mismatch: 0, unfinished: 0\n"
    assert "warning:" in err and "final partial record of 38 bytes" in err
    code, _, err = run(capsys, "record", "verify", "--no-warnings", str(wthor_copy))
    assert code == 0 and err == ""


def test_verify_missing_file_is_named(capsys, tmp_path):
    code, _, err = run(capsys, "record", "verify", str(tmp_path / "nope.ggf"))
    assert code == 1 and "nope.ggf" in err
