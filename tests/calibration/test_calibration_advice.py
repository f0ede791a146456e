"""What a refused calibration tells the user to change: each cause the picture
shows, named, and no cause it does not show."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from reflections import reflection_over

from calibration import camera
from calibration.advice import (
    FAINT_FELT,
    NO_CAUSE_SEEN,
    NO_FELT,
    no_board_advice,
    picture_hint,
)
from calibration.camera import calibrate_image
from controller.measure.evaluation import own_start_picture
from controller.position import START_BOARD
from controller.squares import parse_square
from controller.synth.picture import Scene, render
from controller.vision.cv import cv2
from controller.vision.finding.finder import BoardNotFound

TABLE = (60, 90, 120)  # a brown table, BGR
FELT = (40, 140, 40)


def _board_on_table(table: tuple[int, int, int] = TABLE) -> np.ndarray:
    img = np.full((240, 320, 3), table, np.uint8)
    img[50:190, 90:230] = FELT
    return img


def test_a_reflection_on_the_board_is_named():
    img = _board_on_table()
    cv2.circle(img, (150, 110), 18, (250, 250, 250), -1)
    img = cv2.GaussianBlur(img, (5, 5), 0)
    assert "reflection" in picture_hint(img)


def test_a_reflection_on_a_dull_felt_the_hue_test_misses_is_named():
    # the felt's right part in shade, greyish (green leads by 12 grey levels), on a
    # purple table: round a reflection there the hue test finds no felt, the green
    # lead does
    def lamp_over(right_part: tuple[int, int, int]) -> np.ndarray:
        img = np.full((240, 320, 3), (110, 60, 100), np.uint8)
        img[20:220, 20:120] = FELT
        img[20:220, 120:300] = right_part
        cv2.circle(img, (165, 120), 18, (250, 250, 250), -1)
        return cv2.GaussianBlur(img, (9, 9), 0)

    assert "reflection" in picture_hint(lamp_over((50, 62, 50)))
    # a grey table there instead (no green lead): a lamp's pool beside the board
    assert "reflection" not in picture_hint(lamp_over((62, 62, 62)))


def test_a_reflection_over_most_of_a_small_board_is_named():
    # felt round the patch fills too little of the ring, which reaches past the small
    # board's edges onto the table and through the reflection's pale halo; the patch
    # lies amid the felt all the same
    img = np.full((240, 320, 3), (95, 80, 100), np.uint8)
    img[110:150, 140:180] = (30, 75, 30)
    cv2.circle(img, (160, 130), 16, (250, 250, 250), -1)
    assert "reflection" in picture_hint(cv2.GaussianBlur(img, (15, 15), 0))


def test_a_rendered_reflection_on_a_small_near_black_board_is_named():
    # own hard scene 302/19: a small board with a near-black felt on a mauve table,
    # the lamp's reflection over its middle; refused, it was told no cause was seen
    advice = no_board_advice(own_start_picture(302, 19).image, felt_seen=True)
    assert advice.startswith("a lamp's reflection lies on the board"), advice


def test_a_hand_over_the_board_at_calibration_is_named():
    r = render(START_BOARD, Scene(hand=True, tilt_deg=15), seed=3)
    warnings = calibrate_image(r.image).warnings
    assert any(w.startswith("something covers f1, g1") for w in warnings), warnings


def test_squares_unread_round_a_reflection_are_blamed_on_the_lamp_not_a_hand():
    # own hard scene 306/44, no hand in it: the reflection's halo reads as something
    # over two squares beside the ones it washes out
    warnings = calibrate_image(own_start_picture(306, 44).image).warnings
    assert any(w.startswith("a lamp's reflection washes out") for w in warnings), warnings
    assert not any(w.startswith("something covers") for w in warnings), warnings


def test_no_lamp_is_blamed_in_a_dim_picture_that_shows_none():
    # own hard scene 305/6, drawn without a reflection, at a brightness of 29 of 255:
    # the reader calls two empty squares glare, though nothing on the board is
    # brighter than a fifth of full scale
    warnings = calibrate_image(own_start_picture(305, 6).image).warnings
    assert not any("reflection" in w for w in warnings), warnings
    assert any(w.startswith("the picture is too dark") for w in warnings), warnings


def test_a_lamps_pool_on_a_pale_table_or_white_discs_are_no_reflection():
    img = _board_on_table((170, 180, 190))
    cv2.rectangle(img, (0, 0), (60, 239), (235, 235, 235), -1)  # pale table, lit
    cv2.circle(img, (130, 100), 6, (240, 240, 240), -1)  # two white start discs
    cv2.circle(img, (150, 120), 6, (240, 240, 240), -1)
    assert "reflection" not in picture_hint(img)
    lit_table = _board_on_table((150, 160, 170))
    cv2.circle(lit_table, (285, 40), 20, (245, 245, 245), -1)  # off the board, on the table
    assert "reflection" not in picture_hint(cv2.GaussianBlur(lit_table, (9, 9), 0))


def test_green_all_round_is_named_as_such_not_as_a_board_past_every_edge():
    img = np.full((240, 320, 3), (70, 120, 70), np.uint8)  # a greenish cloth
    img[50:190, 90:230] = FELT
    hint = picture_hint(img)
    assert "green reaches across the whole picture" in hint
    assert "outside the picture" not in hint and "go on past" not in hint


def test_a_rendered_lamp_reflection_is_named(tmp_path):
    glare = Scene(glare=True, light=1.2, table="wood")
    named = [s for s in range(6) if "reflection" in picture_hint(
        render(START_BOARD, glare, seed=s).image)]
    plain = [s for s in range(6) if "reflection" in picture_hint(
        render(START_BOARD, Scene(table="wood"), seed=s).image)]
    assert len(named) >= 3 and plain == []


def test_discs_where_the_start_has_none_are_named_with_what_to_do():
    # discs left on three squares of the edge: one or two the calibration would name
    # and keep (see test_vision_calibrating_fit), three it refuses
    board = "X" + START_BOARD[1:7] + "O" + START_BOARD[8:63] + "O"  # a1, h1, h8
    r = render(board, Scene(tilt_deg=10), seed=4)
    result = calibrate_image(r.image, corners=r.corners)
    assert not result.calibration.start_position_ok
    assert any(w.startswith("calibration refused: 3 squares do not") for w in result.warnings)
    assert any(w.startswith("a1, h1, h8 read as a disc where the start position has none")
               for w in result.warnings), result.warnings


def test_a_start_disc_read_empty_beside_a_reflection_is_blamed_on_the_lamp_too():
    board = START_BOARD[:28] + "-" + START_BOARD[29:]  # e4 reads empty: no disc there
    r = render(board, Scene(tilt_deg=10), seed=4)
    hint = "e4 read empty next to a lamp's reflection"
    beside = calibrate_image(reflection_over(r, 20, sigma=0.6, peak=3.0), corners=r.corners)
    assert beside.fit.mismatches == [28]
    assert any(w.startswith(hint) for w in beside.warnings), beside.warnings
    plain = calibrate_image(r.image, corners=r.corners)  # no lamp: nothing to blame it on
    assert plain.fit.mismatches == [28]
    assert not any(w.startswith(hint) for w in plain.warnings)


def test_a_board_not_found_with_no_cause_in_sight_still_says_what_to_try():
    # felt in view, evenly lit, neither dark nor under a reflection nor cut off
    assert picture_hint(_board_on_table()) == ""
    assert no_board_advice(_board_on_table()) == NO_CAUSE_SEEN
    assert "--corners" in NO_CAUSE_SEEN
    # no felt at all: the camera is pointed elsewhere
    assert no_board_advice(np.full((240, 320, 3), TABLE, np.uint8)) == NO_FELT
    # a cause in sight is named instead
    dark = (_board_on_table() * 0.15).astype(np.uint8)
    assert "too dark" in no_board_advice(dark)


def test_felt_the_finder_saw_is_never_called_missing():
    # a nearly black felt (green leads by a few grey levels) on a purple table: the
    # plain hue test sees no felt, the finder does (see the test below)
    img = np.full((240, 320, 3), (110, 60, 100), np.uint8)
    img[50:190, 90:230] = (10, 13, 10)
    assert no_board_advice(img) == NO_FELT  # nothing else said there was felt
    assert no_board_advice(img, felt_seen=True) == FAINT_FELT
    assert "felt" in FAINT_FELT and "--corners" in FAINT_FELT


def test_the_calibration_error_says_the_felt_is_faint_where_the_finder_saw_it():
    img = np.full((240, 320, 3), (110, 60, 100), np.uint8)
    img[50:190, 90:230] = (10, 13, 10)  # the finder sees this felt, without a grid on it
    with pytest.raises(BoardNotFound) as error:
        calibrate_image(img)
    assert str(error.value).startswith("a green area was found but no board grid on it")
    assert str(error.value).endswith(FAINT_FELT)
    assert error.value.felt_seen


def test_the_calibration_error_carries_the_advice(monkeypatch):
    def not_found(*args: object) -> None:
        raise BoardNotFound("a green area was found but no board grid on it")

    monkeypatch.setattr(camera, "fit_on_start", not_found)
    with pytest.raises(BoardNotFound) as error:
        calibrate_image(_board_on_table())
    assert str(error.value) == ("a green area was found but no board grid on it; "
                                + NO_CAUSE_SEEN)


def test_a_refused_calibration_keeps_the_old_file_unless_asked(tmp_path, capsys):
    """A refusal must not replace a good calibration, nor pass for one: the command
    fails and says so; ``--keep-refused`` writes it marked, and watch then warns."""
    from controller import cli
    from controller.vision.calibration_file import (
        CameraCalibration,
        load_calibration,
        save_calibration,
    )
    from controller.vision.cv import write_image
    from controller.vision.setup import CameraSetup

    board = "X" + START_BOARD[1:7] + "O" + START_BOARD[8:63] + "O"  # discs on a1, h1, h8
    r = render(board, Scene(tilt_deg=10), seed=4)
    write_image(tmp_path / "start.png", r.image)
    corners = [f"{x:.1f},{y:.1f}" for x, y in r.corners]
    out = tmp_path / "cal.json"
    good = CameraCalibration(CameraSetup((640, 480), np.eye(3)), start_position_ok=True)
    save_calibration(out, good)
    before = out.read_text()
    args = ["calibrate", "camera", "--image", str(tmp_path / "start.png"), "--corners",
            *corners, "--out", str(out)]
    assert cli.main(args) == 1
    said = capsys.readouterr().err
    assert f"calibration refused: {out} left as it was" in said and "--corners" in said
    assert out.read_text() == before and (tmp_path / "cal.png").stat().st_size > 1000

    fresh = tmp_path / "none.json"
    assert cli.main([*args[:-1], str(fresh)]) == 1
    assert "not written" in capsys.readouterr().err and not fresh.exists()

    assert cli.main([*args, "--keep-refused"]) == 0
    assert not load_calibration(out).start_position_ok
    capsys.readouterr()
    frames = tmp_path / "frames"
    frames.mkdir()
    write_image(frames / "0.png", r.image)
    cli.main(["watch", "--images", str(frames), "--calibration", str(out),
              "--out", str(tmp_path / "w.jsonl")])
    assert f"{out} was refused when it was made" in capsys.readouterr().err


def test_a_start_disc_of_the_other_colour_is_named_as_such():
    # d4 turned black: not a disc too many, as the message used to say
    d4 = 3 * 8 + 3
    board = START_BOARD[:d4] + "X" + START_BOARD[d4 + 1:]
    r = render(board, Scene(tilt_deg=10), seed=4)
    result = calibrate_image(r.image, corners=r.corners)
    assert result.fit.mismatches == [d4]
    assert not any("where the start position has none" in w for w in result.warnings)
    assert any(w.startswith("read d4 black, the other colour than the start position has "
                            "there") and "turn them over" in w for w in result.warnings), \
        result.warnings
    # the same square read white but off its centre is no disc of the other colour
    from calibration.camera import _mismatch_advice

    fit = result.fit
    aside = replace(fit, reading=replace(
        fit.reading, board=fit.reading.board[:d4] + "o" + fit.reading.board[d4 + 1:]))
    assert not any("the other colour" in w for w in _mismatch_advice(aside))


@pytest.mark.parametrize(("square", "read", "says"), [
    ("d4", "X", "so a white disc can look dark"),
    ("e4", "O", "a lamp mirrored in a black disc's top can make it look white"),
])
def test_a_start_disc_swapped_beside_a_lamp_is_explained_the_way_it_went(
        monkeypatch, square, read, says):
    """A black disc read white beside a lamp was once told that a white disc can look
    dark: the explanation must fit the way the colour went."""
    r = render(START_BOARD, Scene(tilt_deg=10), seed=4)
    fit = calibrate_image(r.image, corners=r.corners).fit
    i = parse_square(square)
    board = fit.reading.board[:i] + read + fit.reading.board[i + 1:]
    swapped = replace(fit, reading=replace(fit.reading, board=board), mismatches=[i])
    monkeypatch.setattr(camera, "next_to_glare", lambda reading: np.ones(64, bool))
    advice = camera._mismatch_advice(swapped)
    assert len(advice) == 1 and advice[0].startswith(f"read {square} ")
    assert says in advice[0] and "move the lamp off the middle" in advice[0]
    other = ("can make it look white" if read == "X" else "so a white disc can look dark")
    assert other not in advice[0]
