"""The real photo: a dim, oblique, late-middle-game board read with no help."""

from __future__ import annotations

import json

from controller import cli
from controller.symmetry import transform_board_string


def _truth(data_dir) -> str:
    labels = json.loads((data_dir / "photos/lavox/labels.json").read_text())
    rows = labels["images"]["sample.jpg"]["board"]
    return "".join(rows).replace("B", "X").replace("W", "O").replace(".", "-")


def test_real_photo_is_read_without_calibration(data_dir, capsys):
    truth = _truth(data_dir)
    rc = cli.main(["recognize", str(data_dir / "photos/lavox/sample.jpg")])
    out = capsys.readouterr().out.splitlines()
    assert rc == 0
    assert len(out) == 9 and all(len(line) == 8 for line in out[:8])
    assert out[8].startswith("confidence ")
    board = "".join(out[:8])
    # the photo's own orientation: row 1 is the top of the image, as labelled
    matches = [t for t in range(8) if transform_board_string(board, t) == truth]
    assert matches, "\n".join(out)
    assert board == truth
