"""What to change when a calibration picture shows no board, or not the start position.

A refusal alone leaves the user guessing; each cause the picture shows gets one
sentence naming it and what to do: too little or too much light, a lamp's
reflection on the board, felt-green surroundings that hide the board's outline, a
corner outside the picture, something over the board.
"""

from __future__ import annotations

import numpy as np

from controller.squares import square_name
from controller.vision.calibrating.fit import StartFit
from controller.vision.calibrating.start_reading import next_to_glare, start_of
from controller.vision.cv import components, cv2
from controller.vision.finding.finder import green_mask_hsv
from controller.vision.geometry import corners_of, upright_order

UNREAD_ADVICE = 8  # unread squares at calibration from which the user is told what to change
NAMED = 8  # squares named in one piece of advice, the rest as "..."
DARK = 30  # grey level (of 255) below which a picture is too dark to read discs well
DARK_FELT = 20  # ... and of the felt itself, where the discs are judged against it
BRIGHT_FELT = 215  # the felt this bright is washed out: too much light or exposure
BORDER_FELT = 0.08  # share of a picture's edge that felt must reach to be cut off there
FELT_AREA = 0.03  # share of the picture the felt must cover to be taken for the board
SOME_FELT = 0.005  # ... and to look for a reflection beside it (a reflection cuts it up)
#: A lamp's reflection: a patch this bright in every channel (no colour: not the felt) ...
REFLECTION_GREY = 200
#: ... as large as this share of the felt seen (a white start disc is under 1 %), on
#: the felt or beside it (the felt's box, half as wide again on each side: a
#: reflection cuts the felt up, so it may lie at the edge of the largest piece)
REFLECTION_SHARE = 0.02
RING_FELT = 0.25  # share of felt round the patch: it lies on the board
#: ... felt there being green to the hue test, or green leading red and blue by this
#: many grey levels: a dark felt, or one the reflection's halo pales, fails the hue
#: test, while a table of another colour does not lead with green
RING_LEAD = 6
SMALL_WIDTH = 160  # the picture is judged at this width: causes, not details

CORNER_NAMES = ("upper-left", "upper-right", "lower-right", "lower-left")
_CORNER_OF = {frozenset(("top", "left")): "upper-left", frozenset(("top", "right")): "upper-right",
              frozenset(("bottom", "right")): "lower-right",
              frozenset(("bottom", "left")): "lower-left"}


#: What to try when no board was found and the picture shows none of the causes
#: above: in the project's own refused pictures these are small boards in a blurred
#: or dim picture, whose printed lines and black discs do not stand out.
NO_CAUSE_SEEN = ("the picture shows no cause the calibration knows (it is neither too dark "
                 "nor lit by a lamp's reflection on the board): the printed lines are probably "
                 "too faint or blurred to see. Hold the camera still and focus it on the board, "
                 "bring it closer or zoom in so that the board fills more of the picture, light "
                 "the board evenly, or give its corners with --corners")


def picture_hint(image: np.ndarray) -> str:
    """What is wrong with a picture in which no board was found, as far as it shows."""
    return "; ".join(h for h in (_light_hint(image), *_picture_causes(image)) if h)


#: ... and when the picture shows no felt at all.
NO_FELT = ("no green felt in view: point the camera at the board (a board of another "
           "colour needs the colour model edited in the calibration file)")


#: ... and when the finder saw a felt-coloured area that the plain hue test above
#: does not (a felt nearly black, or greyed by a tinted light).
FAINT_FELT = ("the board's felt shows too little green to be told apart from the table and "
              "the discs (a very dark felt, or a dim or tinted light): light the board evenly "
              "with a white lamp beside it rather than over it, raise the camera's exposure, "
              "or give its corners with --corners")


def no_board_advice(image: np.ndarray, felt_seen: bool = False) -> str:
    """What to change when no board was found: the causes the picture shows, or
    where it shows none, what usually helps (a refusal must never leave the user
    with nothing to try). ``felt_seen``: the finder found a felt-coloured area
    (see :class:`controller.vision.finding.felt.BoardNotFound`), so the camera is
    not to be told it sees no felt."""
    hint = picture_hint(image)
    if hint:
        return hint
    small = _small(image)
    felt = None if small is None else _felt(small)[1]
    if felt is not None and felt.mean() >= SOME_FELT:
        return NO_CAUSE_SEEN
    return FAINT_FELT if felt_seen else NO_FELT


def _felt(small: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(every felt-green pixel, the largest piece of them) of a picture at
    ``SMALL_WIDTH``."""
    green = green_mask_hsv(cv2.cvtColor(small, cv2.COLOR_BGR2HSV))
    return green, _largest(green)


def _picture_causes(image: np.ndarray, borders: bool = True) -> list[str]:
    """A lamp's reflection on the board; felt running into the picture's edges."""
    small = _small(image)
    if small is None:
        return []
    green, felt = _felt(small)
    out = [_reflection_hint(small, felt, green > 0)] if felt.mean() >= SOME_FELT else []
    if borders and felt.mean() >= FELT_AREA:
        out.append(_border_hint(felt))
    return [h for h in out if h]


def _light_hint(image: np.ndarray) -> str:
    """Too dark or washed out, with the picture's brightness; else ''."""
    grey = float(np.mean(image)) if image is not None and image.size else 0.0
    if grey < DARK:
        return (f"the picture is too dark (average brightness {grey:.0f} of 255): "
                "switch on a lamp over the board or raise the camera's exposure")
    if grey > 235:
        return (f"the picture is washed out (average brightness {grey:.0f} of 255): "
                "lower the camera's exposure")
    return ""


def _small(image: np.ndarray) -> np.ndarray | None:
    if image is None or image.ndim != 3 or min(image.shape[:2]) < 16:
        return None
    height = max(2, round(SMALL_WIDTH * image.shape[0] / image.shape[1]))
    return cv2.resize(image, (SMALL_WIDTH, height), interpolation=cv2.INTER_AREA)


def _largest(mask: np.ndarray) -> np.ndarray:
    """The largest felt-coloured area of ``mask`` (empty if there is none)."""
    n, labels, stats, _ = components(mask)
    if n <= 1:
        return np.zeros(mask.shape, bool)
    return labels == 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))


def _border_hint(felt: np.ndarray) -> str:
    """The felt running into the picture's edges: a corner outside the picture, or,
    when it reaches two opposite edges, surroundings as green as the felt."""
    sides = [side for side in ("top", "bottom", "left", "right") if side in _edges_reached(felt)]
    if not sides:
        return ""
    if _across(set(sides)):
        return ("green reaches across the whole picture: if it is the table or the wall "
                "behind, the board's outline cannot be told from it; put the board on a "
                "surface of another colour or give its corners with --corners (if it is "
                "the board, move the camera back so that the whole board shows)")
    corner = _CORNER_OF.get(frozenset(sides))
    where = (f"the board's {corner} corner seems to be outside the picture" if corner
             else "the board seems to go on past the picture's "
             + " and ".join(sides) + " edge" + ("s" if len(sides) > 1 else ""))
    return where + ": move or turn the camera (or zoom out) so that the whole board shows"


def _reflection_hint(small: np.ndarray, felt: np.ndarray, green: np.ndarray) -> str:
    """A lamp's reflection on or at the edge of the felt: bright in every channel,
    one patch larger than a white disc, and clear of the picture's edges (a pale
    table or a window runs into them).

    On the board means felt round the patch or, failing that, the patch's centre
    inside the felt's convex hull: round a small board the ring reaches past its
    edges onto the table, and a near-black felt under a tinted light is neither green
    nor led by green there, yet a board is convex, so a patch amid its felt lies on
    it."""
    ys, xs = np.nonzero(felt)
    hull = cv2.convexHull(np.stack([xs, ys], axis=1).astype(np.int32))
    h, w = felt.shape
    dx, dy = (xs.max() - xs.min()) // 2 + 1, (ys.max() - ys.min()) // 2 + 1
    bright = (small.min(axis=2) >= REFLECTION_GREY).astype(np.uint8)
    n, labels, stats, centres = components(bright)
    channels = small.astype(np.int16)
    lead = channels[..., 1] - np.maximum(channels[..., 0], channels[..., 2]) >= RING_LEAD
    for k in range(1, n):
        (x, y, cw, ch, area), (cx, cy) = stats[k], centres[k]
        clear = x > 0 and y > 0 and x + cw < w and y + ch < h
        beside = (xs.min() - dx <= cx <= xs.max() + dx) and (ys.min() - dy <= cy <= ys.max() + dy)
        if not (clear and beside and area >= REFLECTION_SHARE * len(xs)):
            continue
        # felt round it, past its soft halo: on the board, not a lamp's pool on a table
        patch = (labels == k).astype(np.uint8)
        reach = 2 * int(np.sqrt(area)) + 1
        ring = (cv2.dilate(patch, np.ones((reach, reach), np.uint8)) > 0) & (patch == 0)
        amid = cv2.pointPolygonTest(hull, (float(cx), float(cy)), False) >= 0
        if amid or (green[ring] | lead[ring]).mean() >= RING_FELT:
            return ("a lamp's reflection lies on the board: move the lamp or tilt the "
                    "camera so that the reflection leaves the board")
    return ""


def what_to_change(image: np.ndarray, fit: StartFit) -> list[str]:
    """What the user should change when the start position could not be fitted.

    Each reason seen gets one sentence: corners of the board outside the picture,
    too little or too much light, a lamp's reflection, something over the board.
    """
    small = _small(image)
    felt_mask = np.zeros((1, 1), bool) if small is None else _felt(small)[1]
    reached = _edges_reached(felt_mask)
    if _across(reached):  # green all round: the corners cannot be told
        out = [_border_hint(felt_mask)]
    else:
        out = [f"the board's {name} corner is outside the picture: move or turn the camera "
               "(or zoom out) so that the whole board shows"
               for name in _corners_outside(image, fit, reached)]
    felt = float(np.median(fit.reading.felt_grey))
    hint = _light_hint(image)
    if hint:
        out.append(hint)
    elif felt < DARK_FELT:
        out.append(f"too dark: the felt shows only {felt:.0f} of 255 grey levels; switch on a "
                   "lamp over the board or raise the camera's exposure")
    elif felt > BRIGHT_FELT:
        out.append(f"too bright: the felt shows {felt:.0f} of 255 grey levels; lower the "
                   "camera's exposure or dim the lamp")
    n = fit.setup.size
    reasons = fit.reading.reasons or ("",) * len(fit.reading.board)
    # a reflection's halo, neither felt nor glare to the reader, reads as something
    # over the squares round it: the lamp's doing, not a hand's
    halo = next_to_glare(fit.reading)
    white = _white_somewhere(image, fit)
    for why, advice in (("glare", "a lamp's reflection washes out {}: move the lamp or tilt "
                         "the camera so that the reflection leaves the board"),
                        ("occluded", "something covers {}: clear the board and keep hands "
                         "out of the picture")):
        squares = [square_name(i, n) for i, r in enumerate(reasons)
                   if r == why and (white[i] if why == "glare" else not halo[i])]
        if why == "occluded" and (felt < DARK_FELT or hint):
            continue  # in the dark, felt that cannot be told is no hand
        if len(squares) >= 2 or (squares and any(
                square_name(i, n) in squares for i in start_of(n).discs)):
            names = ", ".join(squares[:NAMED]) + (" ..." if len(squares) > NAMED else "")
            out.append(advice.format(names))
    if not any("reflection" in line for line in out):
        # a grid that a reflection threw off reads no glare where the reflection is
        out += _picture_causes(image, borders=False)
    return out


def _white_somewhere(image: np.ndarray, fit: StartFit) -> np.ndarray:
    """(64,) bools: squares of the fit's grid with a pixel as bright as a lamp's
    reflection (``REFLECTION_GREY``) in every channel.

    The reader calls a square glare when it is bright and colourless next to the
    felt, and in a dim picture a pale frame or noise can be that at a fortieth of
    full scale; a lamp's reflection saturates. Blaming a lamp the picture does not
    show would send the user to move one that is not there."""
    reader = fit.setup.reader()
    canvas = reader.warp(image).reshape(-1, 3)
    return (canvas[reader.layout.square].min(axis=2) >= REFLECTION_GREY).any(axis=1)


def _corners_outside(image: np.ndarray, fit: StartFit, reached: set[str]) -> list[str]:
    """The grid's corners that lie outside the picture, where the felt runs into the
    picture's edge past which the corner lies (``reached``): a grid refused for a
    wrong guess can hang past edges the board itself stays clear of, and sending the
    user to move the camera for those would mislead."""
    h, w = image.shape[:2]
    out = []
    for name, (x, y) in zip(CORNER_NAMES, upright_order(corners_of(fit.setup.homography)),
                            strict=True):
        beyond = {side for side, past in (("left", x < 0), ("right", x >= w), ("top", y < 0),
                                          ("bottom", y >= h)) if past}
        if beyond & reached:
            out.append(name)
    return out


def _across(sides: set[str]) -> bool:
    """Felt reaching two opposite edges: green surroundings, or a board filling the view."""
    return {"top", "bottom"} <= sides or {"left", "right"} <= sides


def _edges_reached(felt: np.ndarray) -> set[str]:
    """The picture's edges the felt runs into."""
    edges = {"top": felt[0], "bottom": felt[-1], "left": felt[:, 0], "right": felt[:, -1]}
    return {name for name, line in edges.items() if line.mean() > BORDER_FELT}


def too_dim(image: np.ndarray, fit: StartFit) -> bool:
    """A picture or felt this dark: a calibration that worked in it still says so."""
    return bool(_light_hint(image)) or float(np.median(fit.reading.felt_grey)) < DARK_FELT
