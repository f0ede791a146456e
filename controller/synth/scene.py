"""What a synthetic photograph shows apart from the position: the :class:`Scene`,
and ``random_scene`` that draws plausible ones, easy or hard."""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace

import numpy as np

from controller.boardsize import STANDARD
from controller.synth.camera import Camera, board_outline, make_camera
from controller.synth.textures import BOARD_STYLES, FRAME_STYLES, TABLE_STYLES

HAND_MODES = ("exact", "full")


#: Each numeric field's allowed range, checked in this order, with what the error
#: adds after it.
RANGES: tuple[tuple[str, float, float, str], ...] = (
    ("tilt_deg", 0, 60, ""),
    ("light", 0.05, 3, ""),
    ("light_gradient", 0, 1, ""),
    ("noise", 0, 0.5, ""),
    ("blur", 0, 20, ""),
    ("board_fraction", 0.1, 1.2, ""),
    ("distance", 3, 200, " square widths"),
    ("jitter", 0, 0.1, " (larger offsets are shifted discs)"),
    ("vignette", 0, 1, ""),
    ("warmth", -1, 1, ""),
    ("line_weight", 0.2, 3.0, ""),
    ("line_light", 0.0, 0.8, ""),
    ("felt_tone", 0.3, 1.6, ""),
    ("felt_grey", 0.0, 0.7, ""),
    ("lens", 0.0, 0.15, ""),
    ("overhang", 0.0, 0.3, ""),
    ("sheen", 0.0, 0.8, ""),
    ("bands", 0.0, 0.7, ""),
)


@dataclass(frozen=True)
class Scene:
    """Everything about how a picture is taken, apart from the position itself.

    Angles are degrees; lengths are square widths. ``random_scene`` draws one.
    """

    width: int = 640
    height: int = 480
    tilt_deg: float = 0.0  # camera tilt from straight above (0 = top-down, up to 45)
    rotation_deg: float = 0.0  # in-plane rotation of the board in the image (CCW)
    board_style: str = "felt"  # felt | glossy | recessed
    frame_style: str = "black"  # black | wood | none
    light: float = 1.0  # overall brightness (0.3 = dim)
    light_gradient: float = 0.0  # uneven light: relative change across the image
    shadow: bool = False  # a large soft shadow (a person, a lamp arm) over part of the view
    glare: bool = False  # a lamp's reflection: a bright, partly saturated spot
    noise: float = 0.0  # sensor noise, standard deviation as a fraction of full scale
    blur: float = 0.0  # Gaussian blur sigma in pixels (focus, shake)
    jpeg_quality: int | None = None  # re-encode as JPEG at this quality
    clutter: bool = False  # disc trays, a pen, a cup beside the board
    hand: bool = False  # a hand reaching over the board (truth gets '?')
    board_fraction: float = 0.75  # share of the image the playing area spans
    # Extensions beyond the basic set:
    view_from_deg: float = 0.0  # side the camera leans towards: 0 row-8 edge, 90 a-file edge
    distance: float = 16.0  # camera distance from the board centre (perspective strength)
    offset: tuple[float, float] = (0.0, 0.0)  # board position off the image centre (-1..1)
    jitter: float = 0.0  # largest off-centre placement of ordinary (unshifted) discs
    table: str = "wood"  # wood | dark | cloth | light
    hand_mode: str = "exact"  # exact: '?' as given; full: arms reach out, may hide more
    vignette: float = 0.0  # darkening towards the image corners (0..1)
    warmth: float = 0.0  # colour cast of the light: -1 bluish daylight .. 1 orange lamp
    # The look of boards and cameras beyond the basic set (defaults: as before):
    line_weight: float = 1.0  # grid line width, relative to a typical board's
    line_light: float = 0.0  # grid lines mixed towards the felt's colour (0..0.8: faint)
    felt_tone: float = 1.0  # felt brightness, relative (0.4 a dark felt .. 1.4)
    felt_grey: float = 0.0  # felt mixed towards grey (0..0.7: a dull, greyish green)
    lens: float = 0.0  # barrel distortion of a wide lens (0..0.08 at the image corner)
    cast: tuple[float, float, float] = (1.0, 1.0, 1.0)  # white balance error, B, G, R gains
    overhang: float = 0.0  # share of the board pushed past the image edge (0..0.3)
    sheen: float = 0.0  # a lamp mirrored in the disc tops: black discs lifted towards grey
    bands: float = 0.0  # stripes of shade or light across the view (blinds, a window)
    resting_hand: bool = False  # the waiting player's hand lying still at the board's edge

    def __post_init__(self) -> None:
        def bad(name: str, why: str) -> ValueError:
            return ValueError(f"Scene.{name}: {why} (got {getattr(self, name)!r})")

        if not (16 <= self.width <= 8192 and 16 <= self.height <= 8192):
            raise bad("width", "image size must be 16..8192 pixels on each side")
        for name, allowed in (("board_style", BOARD_STYLES), ("frame_style", FRAME_STYLES),
                              ("table", TABLE_STYLES), ("hand_mode", HAND_MODES)):
            if getattr(self, name) not in allowed:
                raise bad(name, f"must be one of {', '.join(allowed)}")
        if self.jpeg_quality is not None and not 1 <= self.jpeg_quality <= 100:
            raise bad("jpeg_quality", "must be 1..100 or None")
        for name, lo, hi, unit in RANGES:
            if not lo <= getattr(self, name) <= hi:
                raise bad(name, f"must be between {lo} and {hi}{unit}")
        if len(self.cast) != 3 or not all(0.5 <= float(c) <= 1.5 for c in self.cast):
            raise bad("cast", "must be three gains between 0.5 and 1.5")
        _camera(self)  # a camera too close for its tilt is refused here, not mid-render


def random_scene(rng: np.random.Generator, hard: bool = False, **overrides: object) -> Scene:
    """Draw a plausible scene; ``hard`` adds oblique views, poor light and clutter."""
    u = rng.uniform
    if not hard:
        d: dict[str, object] = dict(
            tilt_deg=u(0, 25), rotation_deg=u(-8, 8), view_from_deg=u(0, 360),
            light=u(0.75, 1.15), light_gradient=u(0, 0.2), shadow=rng.random() < 0.15,
            glare=rng.random() < 0.1, noise=u(0, 0.015), blur=u(0, 0.7),
            jpeg_quality=None if rng.random() < 0.5 else int(rng.integers(75, 96)),
            clutter=rng.random() < 0.3, hand=False, board_fraction=u(0.6, 0.85),
            distance=u(12, 25), jitter=u(0, 0.04), vignette=u(0, 0.2),
        )
    else:
        d = dict(
            tilt_deg=u(10, 45), rotation_deg=u(-30, 30), view_from_deg=u(0, 360),
            light=u(0.3, 1.2), light_gradient=u(0.15, 0.6), shadow=rng.random() < 0.6,
            glare=rng.random() < 0.5, noise=u(0.005, 0.045), blur=u(0, 2.0),
            jpeg_quality=None if rng.random() < 0.3 else int(rng.integers(30, 85)),
            clutter=rng.random() < 0.7, hand=rng.random() < 0.5, board_fraction=u(0.45, 0.9),
            distance=u(8, 20), jitter=u(0, 0.08), vignette=u(0, 0.5),
        )
        # In dim light a camera turns its gain up, and the noise with it.
        d["noise"] = float(d["noise"]) + 0.03 * max(0.0, 1.0 - float(d["light"]))  # type: ignore[arg-type]
    d.update(
        board_style=str(rng.choice(BOARD_STYLES)), frame_style=str(rng.choice(FRAME_STYLES)),
        table=str(rng.choice(TABLE_STYLES)), offset=(u(-0.8, 0.8), u(-0.8, 0.8)),
        hand_mode="full", warmth=u(-0.6, 0.9) if hard else u(-0.2, 0.3),
    )
    if hard:
        d.update(_wide_look(np.random.default_rng(rng.integers(2**32))))
    known = {f.name for f in fields(Scene)}
    unknown = sorted(set(overrides) - known)
    if unknown:
        raise ValueError(f"random_scene: unknown Scene field(s): {', '.join(unknown)}")
    d.update(overrides)
    scene = Scene(**d)  # type: ignore[arg-type]
    if "rotation_deg" not in overrides:
        # Keep a1 the corner towards the top left, as a reader's orientation rule expects.
        for _ in range(4):
            if _a1_turn(scene) < 40:
                break
            scene = replace(scene, rotation_deg=scene.rotation_deg * 0.5)
    return scene


def _wide_look(rng: np.random.Generator) -> dict[str, object]:
    """Boards and cameras as varied as real ones: thin, faint or heavy grid lines,
    dark or dull felt, a wide lens, a wrong white balance, exposure too high or
    too low, a board small in the frame or cut off by its edge, glossy discs that
    mirror the lamp, stripes of shade, the waiting player's hand resting at the edge."""
    u = rng.uniform
    small = rng.random() < 0.2
    return dict(
        line_weight=u(0.35, 1.6), line_light=u(0.0, 0.6) if rng.random() < 0.4 else 0.0,
        felt_tone=u(0.6, 1.25), felt_grey=u(0.0, 0.4) if rng.random() < 0.4 else 0.0,
        lens=u(0.0, 0.05) if rng.random() < 0.5 else 0.0,
        cast=tuple(float(c) for c in u(0.85, 1.15, 3)),
        light=u(0.3, 1.35), board_fraction=u(0.25, 0.45) if small else u(0.45, 0.95),
        overhang=u(0.02, 0.15) if rng.random() < 0.1 else 0.0,
        sheen=u(0.1, 0.55) if rng.random() < 0.5 else 0.0,
        bands=u(0.15, 0.5) if rng.random() < 0.25 else 0.0,
        resting_hand=bool(rng.random() < 0.25),
    )


def _a1_turn(scene: Scene) -> float:
    """Degrees between the direction of a1's corner from the board centre and the
    image's top-left diagonal."""
    c = _camera(scene).project(board_outline())
    d = c[0] - c.mean(axis=0)
    ang = math.degrees(math.atan2(d[1], d[0]))
    return abs((ang + 135 + 180) % 360 - 180)


def _camera(scene: Scene, n: int = STANDARD) -> Camera:
    """The scene's camera over an ``n`` x ``n`` board."""
    return make_camera(scene.width, scene.height, scene.tilt_deg, scene.view_from_deg,
                       scene.rotation_deg, scene.distance, scene.board_fraction, scene.offset,
                       scene.overhang, n)
