"""Finding the step again: forgotten presses, a lost turn, an illegal pass replaced by a
move, several faults put right at once — and the legal-play search behind them."""

from __future__ import annotations

from arbiter_logs import Log, brief, wthor_2001

from controller.arbiter import ArbiterConfig, arbitrate
from controller.arbiter.explain import in_rules_order, legal_play
from controller.position import Position
from controller.squares import Color, parse_square, squares_of

MOVE_F5 = ("move", "black", "f5", ("e5",))
START_LEGAL = ("d3", "c4", "f5", "e6")


def after(pos: Position, *squares: str) -> Position:
    for sq in squares:
        pos = pos.play(sq)
    return pos


def test_a_forgotten_press_is_read_from_the_next_press():
    log = Log()
    log.press("white")
    log.move("f5", "black", ("e5",))  # black forgets to press
    log.move("f4", "white", ("e4",))
    t = log.press("white")
    log.move("e3", "black", ("e4",))
    log.press("black")
    events = arbitrate(log.obs)
    assert brief(events) == [
        MOVE_F5, ("move", "white", "f4", ("e4",)), ("move", "black", "e3", ("e4",))]
    assert events[0].t == events[1].t == t


def test_a_lost_turn_is_adopted_with_one_resync_and_no_flag():
    """White plays while black's time runs, black answers, white plays again and presses:
    both players saw the turn otherwise and played on, so the board is adopted. (White's
    move alone, pressed, is a move out of turn: ``test_arbiter_judge_kinds.py``.)"""
    log = Log()
    log.press("white")  # black's time runs ...
    white = Position.start().with_to_move(Color.WHITE)
    log.move("e3", "white", ("e4",))  # ... but white plays, black answers, white again
    black = white.play("e3")
    log.move("f3", "black", tuple(squares_of(black.flips("f3"))))
    again = black.play("f3")
    log.move("g3", "white", tuple(squares_of(again.flips("g3"))))
    t = log.press("white")
    log.move("f5", "black", tuple(squares_of(again.play("g3").flips("f5"))))
    log.press("black")
    events = arbitrate(log.obs)
    changed = (Position.start().black ^ again.play("g3").black) | (
        Position.start().white ^ again.play("g3").white)
    assert brief(events)[0] == ("resync", tuple(squares_of(changed)))
    assert [e.event for e in events] == ["resync", "move"]
    resync = events[0]
    assert resync.event == "resync" and resync.t == t
    assert resync.fields == {"squares": squares_of(changed), "to_move": "black",
                             "moves": ["white e3", "black f3", "white g3"]}


def test_illegal_pass_then_the_offender_simply_plays_and_presses_again():
    log = Log()
    log.press("white")
    log.show(3)
    log.press("black")  # black presses without moving: an illegal pass
    log.show(3)  # white says so without pressing; black plays and presses again
    log.move("f5", "black", ("e5",))
    again = log.press("black")
    log.move("f4", "white", ("e4",))
    log.press("white")
    events = arbitrate(log.obs)
    assert brief(events) == [
        ("pass", "black"),
        ("illegal_pass", "black", START_LEGAL),
        ("corrected", "illegal_pass", START_LEGAL),
        MOVE_F5,
        ("move", "white", "f4", ("e4",)),
    ]
    assert events[2].t == events[3].t == again


def test_illegal_pass_left_then_the_opponent_forgets_to_press():
    """The pass stands (nobody said anything); white moves without pressing, black
    moves and presses: two moves, the pass is not withdrawn."""
    log = Log()
    log.press("white")
    log.show(3)
    log.press("black")
    log.move("f4", "white", ("e4",))  # white plays and forgets the clock
    log.move("f3", "black", ("e4",))
    log.press("black")
    assert brief(arbitrate(log.obs)) == [
        ("pass", "black"),
        ("illegal_pass", "black", START_LEGAL),
        ("move", "white", "f4", ("e4",)),
        ("move", "black", "f3", ("e4",)),
    ]


def _illegal_square_and_over_flip(log: Log) -> None:
    log.press("white")
    log.set(a1="X").set(d4="X")  # a disc where no move is, and a disc turned with it
    log.press("black")


FLAGGED = [
    ("move", "black", "a1", ()),
    ("over_flip", "black", ("d4",)),
    ("illegal_square", "black", ("a1",)),
]


def test_several_faults_put_right_at_once_are_each_corrected():
    log = Log()
    _illegal_square_and_over_flip(log)
    log.set(a1="-", d4="O")  # one hand puts both right in the same frame
    log.move("f5", "black", ("e5",))
    log.press("black")
    events = brief(arbitrate(log.obs))
    assert sorted(events[:3]) == sorted(FLAGGED)
    assert events[3:] == [
        ("corrected", "over_flip", ("d4",)),
        ("corrected", "illegal_square", ("a1",)),
        MOVE_F5,
    ]


def test_several_faults_put_right_one_after_the_other():
    log = Log()
    _illegal_square_and_over_flip(log)
    log.set(a1="-").set(d4="O")  # the illegal disc first: the move is void only now
    log.move("f5", "black", ("e5",))
    log.press("black")
    events = brief(arbitrate(log.obs))
    assert events[3:] == [
        ("corrected", "illegal_square", ("a1",)),
        ("corrected", "over_flip", ("d4",)),
        MOVE_F5,
    ]


def test_illegal_disc_taken_back_the_rest_left_and_the_real_move_played():
    log = Log()
    _illegal_square_and_over_flip(log)
    log.set(a1="-")  # the over-flip stays on the board
    log.move("f5", "black", ("e5",))
    log.press("black")
    events = brief(arbitrate(log.obs))
    # With d4 still black, f5 turns white's last disc: the game ends there.
    assert events[3:] == [
        ("corrected", "illegal_square", ("a1",)), MOVE_F5, ("game_over", 64, 0, "black")]


def test_a_fault_left_in_a_game_without_clock_costs_one_flag():
    """An uncorrected forgotten flip becomes the position; the game goes on clean."""
    log = Log()
    log.set(f5="X").show(2)  # e5 not turned
    log.move("f6", "white", ())  # f6 turns nothing on the real board ...
    log.cells[parse_square("f6")] = "-"
    log.show(2)
    log.move("d6", "white", ("d5",)).show(2)  # ... taken back; white plays d6
    log.move("c6", "black", ("d5",)).show(3)
    events = brief(arbitrate(log.obs))
    flags = [e for e in events if e[0] not in ("move", "pass")]
    assert flags == [("forgotten_flip", "black", ("e5",))]


# ------------------------------------------------------------------ legal_play
def board(pos: Position) -> tuple[int, int]:
    return pos.black, pos.white


def test_legal_play_finds_moves_in_the_rules_order():
    start = Position.start()
    end = after(start, "f5", "f4")
    assert legal_play(start, *board(end)) == (
        (Color.BLACK, parse_square("f5")), (Color.WHITE, parse_square("f4")))


def test_legal_play_finds_a_disc_turned_by_a_later_move():
    """Three moves where the third turns the second's disc: colours on the final board
    do not say who put each disc down."""
    start = Position.start()
    for first in squares_of(start.legal_moves()):
        one = start.play(first)
        for second in squares_of(one.legal_moves()):
            two = one.play(second)
            for third in squares_of(two.legal_moves()):
                if two.flips(third) >> parse_square(second) & 1:
                    end = two.play(third)
                    plies = legal_play(start, *board(end))
                    assert plies is not None and in_rules_order(start, plies)
                    assert [c for c, _ in plies] == [Color.BLACK, Color.WHITE, Color.BLACK]
                    return
    raise AssertionError("no third move turns the second's disc")


def test_legal_play_refuses_a_player_moving_twice():
    start = Position.start()
    one = start.play("f5")
    twice = one.with_to_move(Color.BLACK)
    square = squares_of(twice.legal_moves())[0]
    end = twice.play(square)
    assert legal_play(start, *board(end)) is None
    assert legal_play(start, *board(end), lost_turn=True) is None


def test_legal_play_reads_a_lost_turn_only_when_asked():
    start = Position.start()
    end = start.with_to_move(Color.WHITE).play("e3")
    assert legal_play(start, *board(end)) is None
    assert legal_play(start, *board(end), lost_turn=True) == ((Color.WHITE, parse_square("e3")),)


def test_legal_play_never_explains_a_missing_disc():
    start = Position.start()
    end = start.play("f5")
    assert legal_play(start, end.black & ~(1 << parse_square("d5")), end.white) is None


def test_explained_board_in_a_game_without_clock_gives_the_moves():
    """A missed boundary (two moves seen only together at the end) is still two moves."""
    log = Log()
    log.cells[parse_square("f5")] = "X"
    log.cells[parse_square("e5")] = "X"
    log.cells[parse_square("f4")] = "O"
    log.cells[parse_square("e4")] = "O"
    log.show(3)  # both moves appear at once (a camera that was covered)
    assert brief(arbitrate(log.obs, ArbiterConfig(clock=False))) == [
        MOVE_F5, ("move", "white", "f4", ("e4",))]


def _same_board_two_orders(games) -> tuple[Position, tuple[int, int], tuple[int, int]]:
    """A real position where two different first moves, each answered, give one board."""
    for game in games:
        pos = game.start
        for name in game.transcript_moves():
            seen: dict[tuple[int, int], tuple[int, int]] = {}
            for a in squares_of(pos.legal_moves()):
                one = pos.play(a)
                for b in squares_of(one.legal_moves()):
                    two = one.play(b)
                    key = (two.black, two.white)
                    other = seen.setdefault(key, (parse_square(a), parse_square(b)))
                    if other[0] != parse_square(a):
                        return pos, other, (parse_square(a), parse_square(b))
            pos = pos.play(name)
            if not pos.legal_moves():
                pos = pos.pass_turn()
    raise AssertionError("no such position in the games")


def test_legal_play_takes_the_order_the_discs_went_down(data_dir):
    pos, one, two = _same_board_two_orders(wthor_2001(data_dir)[1212:1213])
    end = pos.play(one[0]).play(one[1])
    for first, second in (one, two):
        plies = legal_play(pos, end.black, end.white, first=first)
        assert plies is not None and [sq for _, sq in plies] == [first, second]
