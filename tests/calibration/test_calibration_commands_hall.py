"""``kaeshi calibrate hall`` on the firmware simulator: a refused run, a restored file."""

from __future__ import annotations

from hall_readings import readings

from calibration.hall.model import derive, save
from controller.cli import main
from controller.hall import messages as m
from controller.hall.simboard import SimBoard


def test_cli_refuses_a_board_that_never_changed(tmp_path, capsys):
    out = tmp_path / "cal.json"
    with SimBoard(seed=4, eeprom_write_us=0, step_us=100) as sim:
        sim.spread(seed=2, offset_sd=20.0, noise=1.5)
        sim.set_board("-" * 63 + "X")
        code = main(
            ["calibrate", "hall", "--port", sim.port, "--yes", "--samples", "10", "--out", str(out)]
        )
        _, flags = sim.state()
    captured = capsys.readouterr()
    assert code == 1
    assert "calibration refused" in captured.err
    assert "were the discs placed as asked?" in captured.err
    assert " a1" in captured.err and " h8" in captured.err
    assert not out.exists()
    assert (tmp_path / "cal.png").exists()  # the picture shows what went wrong
    assert "Step 1/3" in captured.out
    assert not flags & m.Flag.CAL_VALID


def test_cli_restores_a_saved_calibration(tmp_path, capsys):
    cal = derive(*readings())
    path = tmp_path / "saved.json"
    save(cal, path)
    with SimBoard(seed=4, eeprom_write_us=0, step_us=100) as sim:
        code = main(["calibrate", "hall", "--port", sim.port, "--restore", str(path)])
        _, flags = sim.state()
    assert code == 0 and f"{cal.crc:#06x}" in capsys.readouterr().out
    assert flags & m.Flag.CAL_VALID
