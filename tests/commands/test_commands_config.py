"""`kaeshi config`: the example it writes is one the service reads back, and `check`
reports what a file changes, refuses what the service would refuse, and hides secrets."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.cli import main
from controller.service.config import OPTIONS, example_toml, load_config

ROOT = Path(__file__).resolve().parents[2]


def test_example_prints_the_shipped_example(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["config", "example"]) == 0
    printed = capsys.readouterr().out
    assert printed == example_toml()
    assert printed == (ROOT / "deploy" / "kaeshi.example.toml").read_text(encoding="utf-8")


def test_example_output_is_read_back_at_the_defaults(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "kaeshi.toml"
    assert main(["config", "example", "--output", str(target)]) == 0
    config = load_config(target)
    assert all(config[o.name] == o.default for o in OPTIONS)
    assert main(["config", "check", str(target)]) == 0
    assert "every option at its default" in capsys.readouterr().out


def test_example_never_overwrites(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "kaeshi.toml"
    target.write_text("# mine\n", encoding="utf-8")
    assert main(["config", "example", "--output", str(target)]) == 1
    assert "exists: not overwritten" in capsys.readouterr().err
    assert target.read_text(encoding="utf-8") == "# mine\n"


def test_check_lists_changes_in_table_order_and_hides_secrets(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "kaeshi.toml"
    target.write_text('[web]\ntoken = "correct-horse-battery-staple-42"\n'
                      '[clock]\nmain = 600\n[game]\nmode = "home"\nblack = "Ann \\"A\\""\n',
                      encoding="utf-8")
    assert main(["config", "check", str(target)]) == 0
    out = capsys.readouterr().out
    lines = [line.strip() for line in out.splitlines()[1:]]
    assert lines == ['game.mode = "home"', 'game.black = "Ann \\"A\\""', "clock.main = 600",
                     "web.token = (set)"]
    assert "correct-horse" not in out


def test_check_refuses_what_the_service_refuses(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "kaeshi.toml"
    target.write_text("[clock]\nmain = 5\n", encoding="utf-8")
    assert main(["config", "check", str(target)]) == 1
    err = capsys.readouterr().err
    assert str(target) in err and "line 2" in err and "clock.main" in err


@given(st.text(max_size=40))
def test_check_agrees_with_the_service_on_any_value(raw: str) -> None:
    """Whatever a person types as a value, `check` accepts exactly what the service's
    reader accepts (the command has no reader of its own)."""
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        target = Path(folder) / "kaeshi.toml"
        target.write_text(f"[game]\nevent = {raw}\n", encoding="utf-8")
        try:
            load_config(target)
            service_reads = True
        except Exception:
            service_reads = False
        assert (main(["config", "check", str(target)]) == 0) is service_reads
