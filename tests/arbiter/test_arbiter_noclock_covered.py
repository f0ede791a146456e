"""Without a clock, a square covered by a resting hand since the last official position.

The waiting player's hand may lie over a square from the start of the game, so the
camera reads it ``?`` in every frame until a disc is put there. That square is
empty in the official position, so the board just before the disc went down is
known without ever seeing it empty: the move before it is judged the moment the
disc appears, exactly as when the square is in view.
"""

from __future__ import annotations

import pytest
from arbiter_logs import Log, brief

from controller.arbiter import Arbiter, ArbiterConfig, arbitrate
from controller.position import Position
from controller.squares import Color, parse_square, squares_of

MOVES = ("f5", "f6", "e6", "f4", "e3")  # black, white, black, white (f4), black
COVERED = "f4"


class Covered(Log):
    """A log whose ``covered`` squares read ``?`` until a disc is put there (a resting
    hand that lifts as the disc goes down)."""

    def __init__(self, covered: tuple[str, ...] = (), start: Position | None = None) -> None:
        self.covered = covered
        super().__init__(start)

    def show(self, frames: int = 2, hidden: tuple[str, ...] = ()) -> Log:
        return super().show(frames, hidden + self.covered)

    def play(self, position: Position, square: str) -> Position:
        """``square`` played on ``position``: the disc goes down (uncovering its square),
        then the flips are turned one by one."""
        symbol = position.to_move.symbol
        self.covered = tuple(s for s in self.covered if s != square)
        self.set(**{square: symbol})
        for f in squares_of(position.flips(square)):
            self.set(**{f: symbol})
        return position.play(square)


def game(cover_from: int, covered: tuple[str, ...] = (COVERED,)) -> Covered:
    """:data:`MOVES`, with ``covered`` hidden from the first frame (``cover_from`` 0)
    or from a still board before move ``cover_from``."""
    log = Covered(covered if cover_from == 0 else ())
    position = Position.start()
    for k, square in enumerate(MOVES):
        if k == cover_from:
            log.covered = covered
            log.show(3)
        position = log.play(position, square)
        log.show(3)
    return log


def timed(events: list) -> list[tuple]:
    return [(e.t, *b) for e, b in zip(events, brief(events), strict=True)]


IN_VIEW = [
    ("move", "black", "f5", ("e5",)),
    ("move", "white", "f6", ("e5",)),
    ("move", "black", "e6", ("e5",)),
    ("move", "white", "f4", ("e4", "f5")),
    ("move", "black", "e3", ("e4",)),
]


@pytest.mark.parametrize("settled", [False, True], ids=["camera", "settled"])
@pytest.mark.parametrize("cover_from", [0, 1], ids=["from-the-start", "before-the-last-judgement"])
def test_a_covered_square_empty_in_the_official_position_counts_as_empty(cover_from, settled):
    config = ArbiterConfig(settled=settled)
    seen = timed(arbitrate(game(cover_from, covered=()).obs, config))
    assert [e[1:] for e in seen] == IN_VIEW
    log = game(cover_from)
    f4 = parse_square(COVERED)
    boards = [o.board for o in log.obs if o.board is not None]
    first = next(k for k, b in enumerate(boards) if b[f4] == "O")
    readings = [b[f4] for b in boards[:first]]
    # hidden from the first frame, or from before white's f6 (whose appearance judges
    # black's f5: f4 is not seen again after that official position)
    since = 0 if cover_from == 0 else readings.index("?")
    assert since < 2 + 3 * 4 and set(readings[since:]) == {"?"}
    # the same moves, each judged at the same moment as with f4 in view
    assert timed(arbitrate(log.obs, config)) == seen


def test_the_move_before_is_judged_as_the_disc_on_the_covered_square_appears():
    log = game(0)
    arbiter = Arbiter()
    f4, e3 = parse_square(COVERED), parse_square("e3")
    judged: list[tuple[float, str]] = []
    for obs in log.obs:
        if obs.board is not None and obs.board[e3] != "-":
            break  # black's next move begins
        judged += [(obs.t, e.fields.get("square", "")) for e in arbiter.feed(obs)]
    # black's e6 is judged as white's f4 goes down, not only once black moves again:
    # on the frame that confirms the disc (its second reading)
    assert [sq for _, sq in judged] == ["f5", "f6", "e6"]
    readings = [o.t for o in log.obs if o.board is not None and o.board[f4] == "O"]
    assert judged[-1][0] == readings[1]


def test_a_square_covered_all_game_and_never_played_changes_nothing():
    """The rule is only about the board before a new disc: a square hidden for the
    whole game and never played stays as the official position has it."""
    hidden = game(0, covered=("a8", "b8"))
    assert {o.board[56:58] for o in hidden.obs if o.board is not None} == {"??"}
    assert timed(arbitrate(hidden.obs)) == timed(arbitrate(game(0, covered=()).obs))


@pytest.mark.slow
def test_through_the_camera_a_resting_hand_does_not_hold_back_the_move_before(data_dir):
    """Development game 0006 without a clock, filmed with a hand resting over d8 and
    e8 from the start (hard scene, 10 frames/s, seed 1) and read by ``watch``: white
    later plays d8, a square the camera never saw empty. Black's c2 before it must be
    judged as d8 goes down, before black's next disc appears, as in the pure log."""
    from dataclasses import replace

    from controller.observation import read_observations
    from controller.synth.gamevideo import watch_game_video
    from controller.synth.replay import calibrate_synthetic, default_scene
    from controller.synth.resting import resting_squares

    with (data_dir / "arbiter-dev" / "0006.obs.jsonl").open(encoding="utf-8") as f:
        log = list(read_observations(f))
    assert not any(o.press for o in log)
    pure = arbitrate(log)
    moves = [e for e in pure if e.event == "move"]
    c2 = next(k for k, e in enumerate(moves) if e.fields["square"] == "c2")
    assert moves[c2 + 1].fields["square"] == "d8"
    cut = [o for o in log if o.t < moves[c2 + 1].t]  # up to black's next disc
    hard = replace(default_scene(), width=320, height=240, tilt_deg=28.0, rotation_deg=-5.0,
                   view_from_deg=25.0, frame_style="wood", table="cloth", warmth=0.4,
                   clutter=True)
    scene = replace(hard, resting_hand=True)
    d8 = parse_square("d8")
    assert resting_squares(scene, 1)[d8]
    camera = watch_game_video(cut, calibrate_synthetic(hard, seed=7), scene, 10.0, seed=1,
                              moving_hands=True)
    readings = [(o.t, o.board[d8]) for o in camera if o.board is not None]
    appears = next(t for t, r in readings if r in "XOxo")
    # d8 is hidden from before the move ahead of c2 was judged until its disc appears
    assert {r for t, r in readings if moves[c2 - 1].t - 1.0 <= t < appears} == {"?"}

    def content(events: list) -> list[dict]:
        return [{k: v for k, v in e.to_dict().items() if k != "t"} for e in events]

    arbiter = Arbiter()  # fed as it comes, without the end of input that judges what is left
    judged = [e for o in camera for e in arbiter.feed(o)]
    expected = [e for e in pure if e.t <= moves[c2].t]
    assert content(judged[: len(expected)]) == content(expected)


def test_flips_turned_while_the_square_is_still_covered_belong_to_the_next_move():
    """White's disc goes down on f4 under the hand and e4 and f5 are turned and read
    before f4 is: black's e6 is judged on the board before them, not flagged with
    white's flips as its own over-flips."""
    log = Covered((COVERED,))
    position = Position.start()
    for square in MOVES[:3]:
        position = log.play(position, square)
        log.show(3)
    log.cells[parse_square(COVERED)] = "O"  # under the hand
    log.show(2)
    log.set(e4="O").set(f5="O")
    log.covered = ()
    log.show(3)
    position = log.play(position.play(COVERED), MOVES[4])
    log.show(3)
    arbiter = Arbiter()
    judged = [(o.t, e) for o in log.obs for e in arbiter.feed(o)] + [
        (log.t, e) for e in arbiter.finish(log.t)]
    assert brief([e for _, e in judged]) == IN_VIEW
    e3 = parse_square("e3")
    e3_down = next(o.t for o in log.obs if o.board is not None and o.board[e3] == "X")
    assert [t < e3_down for t, _ in judged] == [True, True, True, False, False]


def test_a_covered_square_for_the_movers_own_next_disc_after_a_pass():
    """Black a1 (turning b1) leaves white no move; black's next disc, on a square
    covered all along, is then black's own colour: the moves and the pass are read
    as with the square in view."""
    solo = Position.from_board_string("-OX-----" + "-" * 48 + "------OX", Color.BLACK)
    for covered in ((), ("f8",)):
        log = Covered(covered, solo)
        position = solo
        for square in ("a1", "f8"):
            position = log.play(position, square)
            log.show(3)
            if position.must_pass():
                position = position.pass_turn()
        assert brief(arbitrate(log.obs, ArbiterConfig(start=solo))) == [
            ("move", "black", "a1", ("b1",)),
            ("pass", "white"),
            ("move", "black", "f8", ("g8",)),
            ("game_over", 64, 0, "black"),
        ]
