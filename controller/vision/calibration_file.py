"""The camera calibration file: what ``kaeshi calibrate camera`` writes and what
``kaeshi watch``, ``kaeshi recognize`` and the service read.

The file holds the image size, the board homography in the user's a1 orientation,
the disc height used for oblique views and the colour model; it is plain JSON so a
user can read it and a bug report can include it. It lives beside the reader so the
running service never needs the calibration tools.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path

from controller.boardsize import a_label
from controller.errors import KaeshiError
from controller.vision.setup import CameraSetup

FORMAT = "kaeshi-camera-calibration"
VERSION = 1


class CalibrationError(KaeshiError):
    """A calibration file that cannot be used; the message names the file and the fault."""


def check_board_size(path: str | Path, made: int, wanted: int, option: str = "--size",
                     setting: bool = False) -> None:
    """Refuse a calibration made on another board than the one the user named.

    Its grid has other squares: read as the named board, every square would be
    misnamed. The message gives both sizes, the option that named the board (a
    command's ``--size`` or, ``setting``, a configuration key such as ``game.size``)
    and both ways out: calibrate again at that size, or name the calibration's."""
    if made == wanted:
        return
    named, instead = ((f"{option} = {wanted}", f"set {option} = {made}") if setting
                      else (f"{option} {wanted}", f"give {option} {made}"))
    raise CalibrationError(
        f"{path} was made on {a_label(made)} board, not {a_label(wanted)} one as "
        f"{named} says: calibrate again with 'kaeshi calibrate camera --size {wanted}', "
        f"or {instead}")


@dataclass
class CameraCalibration:
    setup: CameraSetup
    source: str = ""
    created: str = field(default_factory=lambda: time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
    #: None: a bare set-up (``CameraSetup.to_dict``), made without a verdict on it
    start_position_ok: bool | None = False

    @property
    def refused(self) -> bool:
        """Made on a picture whose start position did not read (kept with
        ``--keep-refused``): worth a warning each time a game is read with it."""
        return self.start_position_ok is False

    def to_dict(self) -> dict[str, object]:
        return {
            "format": FORMAT,
            "version": VERSION,
            "created": self.created,
            "source": self.source,
            "start_position_ok": self.start_position_ok,
            **self.setup.to_dict(),
        }


def refused_note(path: str | Path) -> str:
    """What a game read with a refused calibration (kept with ``--keep-refused``, or
    written before refusals were kept out) should be told: its grid or colours may
    be wrong, and nothing in play can tell."""
    return (f"{path} was refused when it was made (the start position did not read on "
            "it): squares may read wrong all game. Look at its picture, and calibrate "
            "again unless the grid and discs there are right")


def save_calibration(path: str | Path, cal: CameraCalibration) -> None:
    p = Path(path)
    try:
        p.write_text(json.dumps(cal.to_dict(), indent=2) + "\n", encoding="utf-8")
    except OSError as exc:
        raise CalibrationError(f"{p}: cannot write calibration ({exc.strerror})") from None


def save_settled_turn(path: str | Path, setup: CameraSetup) -> None:
    """Keep in the calibration (or bare set-up) file at ``path`` the grid on which the
    game settled which way round the board is (see
    :mod:`controller.vision.watching.turn_in_play`), so the next game reads the right way round
    from its first move. Everything else in the file stays as it was; the file is
    replaced whole, so a power cut leaves the old one or the new one, never half."""
    p = Path(path)
    try:
        d = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CalibrationError(f"{p}: cannot read the set-up to keep the turn in ({exc})") from None
    if not isinstance(d, dict) or "homography" not in d:
        raise CalibrationError(f"{p}: not a camera calibration or set-up file")
    kept = setup.to_dict()
    d.update({k: kept[k] for k in ("homography", "disc_bias", "turn_unsettled",
                                   "doubtful_squares")})  # named as the turned board names them
    part = p.with_name(p.name + ".part")
    try:
        part.write_text(json.dumps(d, indent=2) + "\n", encoding="utf-8")
        part.replace(p)
    except OSError as exc:
        raise CalibrationError(f"{p}: cannot keep the settled turn ({exc.strerror})") from None


def load_for_game(path: str | Path, size: int) -> CameraCalibration:
    """The service's camera set-up (``source.camera_setup``, a calibration or a bare
    set-up), refused when it was made on another board than the game's ``game.size``."""
    cal = load_calibration(path, bare=True)
    check_board_size(path, cal.setup.size, size, "game.size", setting=True)
    return cal


def load_calibration(path: str | Path, bare: bool = False) -> CameraCalibration:
    """The calibration in ``path``; with ``bare``, a bare set-up file (the
    service's ``source.camera_setup`` may name one) is read too, as a calibration
    without a verdict."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CalibrationError(
            f"{p}: no such calibration file (make one with: kaeshi calibrate camera)"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise CalibrationError(f"{p}: cannot read calibration ({exc})") from None
    try:
        d = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CalibrationError(
            f"{p}: not a calibration file (line {exc.lineno}: {exc.msg})"
        ) from None
    plain = bare and isinstance(d, dict) and "format" not in d
    if not plain:
        if not isinstance(d, dict) or d.get("format") != FORMAT:
            raise CalibrationError(f"{p}: not a camera calibration file")
        if d.get("version") != VERSION:
            raise CalibrationError(
                f"{p}: calibration version {d.get('version')} is not supported")
    try:
        setup = CameraSetup.from_dict(d)
    except ValueError as exc:
        raise CalibrationError(f"{p}: {exc}") from None
    if plain:
        return CameraCalibration(setup=setup, created="", start_position_ok=None)
    return CameraCalibration(
        setup=setup,
        source=str(d.get("source", "")),
        created=str(d.get("created", "")),
        start_position_ok=bool(d.get("start_position_ok", False)),
    )
