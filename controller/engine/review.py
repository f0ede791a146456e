"""Reviewing a finished game with an engine: the score after each move, the discs each
move lost against the best one, the biggest mistakes, and the analysis as GGF.

Only the value of each position along the game is asked for (``hint 1``: the best
move and its score), because a move's loss follows from two of them: the best score
before the move, less the score of the position it led to, from the mover's view.
With an exact endgame that is the true disc loss; in the midgame it is the engine's
estimate. Scores on the graph are from black's view (positive: black ahead).
"""

from __future__ import annotations

import copy
import math
from dataclasses import asdict, dataclass, field
from typing import Any

from controller.boardsize import board_size
from controller.engine.client import EngineClient, Game
from controller.errors import KaeshiError
from controller.position import IllegalMoveError, Position
from controller.records.model import GameRecord, join_comments
from controller.squares import Color

#: How many of the worst moves are marked as the game's mistakes.
MISTAKES = 3
#: A move that loses fewer discs than this is never called a mistake.
MISTAKE_DISCS = 2.0


class ReviewError(KaeshiError):
    """A game that cannot be reviewed; the message says why."""


@dataclass
class ReviewedMove:
    number: int  # 1-based, passes counted, as in the record
    player: str
    square: str | None
    best: str | None  # the engine's choice in the position before the move
    best_score: float | None  # its score, mover's view
    score: float | None  # the position after the move, black's view
    loss: float | None  # discs lost against the best move (None for a pass)
    mistake: bool = False
    #: How deep the position before the move was searched, as the engine said (plies;
    #: the empties when solved exactly); None: not said, a book move, or a forced pass.
    depth: int | None = None
    #: The board after it stood as the rules do not give it (a fault nobody put right,
    #: a ruling): the review goes on from the board as it was.
    stood: bool = False


@dataclass
class Review:
    engine: str
    level: int
    moves: list[ReviewedMove] = field(default_factory=list)
    start_score: float | None = None  # the start position, black's view
    #: The engine's time per position (the time per move of play).
    seconds: float | None = None

    def losses(self, color: Color) -> float:
        return round(sum(m.loss or 0.0 for m in self.moves if m.player == color.value), 2)

    def mistakes(self) -> list[ReviewedMove]:
        return [m for m in self.moves if m.mistake]

    def to_json(self) -> dict[str, Any]:
        return {"engine": self.engine, "level": self.level, "start_score": self.start_score,
                "seconds": self.seconds,
                "black_loss": self.losses(Color.BLACK), "white_loss": self.losses(Color.WHITE),
                "moves": [asdict(m) for m in self.moves]}


@dataclass(frozen=True)
class Turn:
    """One turn as it was played: the position before it, the square (None: a pass) and
    the position after it. ``stood``: the board after it is not what the rules give (an
    irregular move nobody put right, or an arbiter's ruling), and play went on from it."""

    before: Position
    square: str | None
    after: Position
    stood: bool = False
    #: The record's move it is (1-based); None for a pass the record leaves implicit.
    move: int | None = None

    @property
    def player(self) -> Color:
        return self.before.to_move


def turns(record: GameRecord) -> list[Turn]:
    """Every turn of the game as it was actually played, passes made explicit.

    The positions are those the record holds: where a fault stood (``Move.stands``),
    play goes on from the board as it stood, not from a replay of the moves through
    the rules, so a game in which a fault stood is reviewed as the players saw it.
    """
    out: list[Turn] = []
    pos = record.start
    for number, mv in enumerate(record.moves, 1):
        if mv.stands is not None:
            before = pos.with_to_move(mv.player)
            out.append(Turn(before, mv.square, mv.stands, stood=True, move=number))
            pos = mv.stands
            continue
        if mv.player is not pos.to_move:  # a pass the record leaves implicit
            if pos.legal_moves() or mv.player is not pos.to_move.opponent:
                raise ReviewError(f"the game cannot be followed at move {number} "
                                  f"({mv.square or 'pass'}): {mv.player.value} plays, but "
                                  f"{pos.to_move.value} is to move and the record does "
                                  "not say the board stood otherwise")
            after = pos.pass_turn()
            out.append(Turn(pos, None, after))
            pos = after
        try:
            after = pos.pass_turn() if mv.square is None else pos.play(mv.square)
        except IllegalMoveError as exc:
            raise ReviewError(f"the game cannot be followed at move {number}: {exc}, and "
                              "the record does not say how the board stood after it") from None
        out.append(Turn(pos, mv.square, after, move=number))
        pos = after
    return out


def _plain(x: float) -> float:
    """``x`` to two places, never -0 (a score a person reads as "-0" is no score)."""
    return round(x, 2) + 0.0


def review_game(record: GameRecord, client: EngineClient) -> Review:
    """Ask ``client`` for the value of every position of the game; raise if it cannot."""
    if not client.scores:
        raise ReviewError(f"a review needs scores, and the {client.spec.protocol} engine "
                          "gives moves only: configure an NBoard engine (Edax -nboard, or "
                          "Kaeshi's own)")
    played = turns(record)
    final = played[-1].after if played else record.start
    # the engine is told the moves since the last board that stood (or the start)
    base, since = record.start, list[str | None]()
    values: list[tuple[str | None, float]] = []  # per position: best move, black-view value
    depths: list[int | None] = []
    for turn in played:
        best, value, depth = _value(client, Game(base, tuple(since)), turn.before)
        values.append((best, value))
        depths.append(depth)
        if turn.stood:
            base, since = turn.after, []
        else:
            since.append(turn.square)
    best, value, depth = _value(client, Game(base, tuple(since)), final)
    values.append((best, value))
    depths.append(depth)
    values = _through_passes([t.before for t in played] + [final], values)
    review = Review(client.name or client.spec.argv[0], client.spec.level,
                    start_score=_plain(values[0][1]), seconds=client.spec.seconds)
    for i, turn in enumerate(played):
        best, before = values[i]
        after = values[i + 1][1]
        sign = 1.0 if turn.player is Color.BLACK else -1.0
        loss = None
        # a pass loses nothing, unless the mover had a move (an illegal pass that stood)
        if turn.square is not None or (turn.stood and turn.before.legal_moves()):
            loss = _plain(max(0.0, sign * before - sign * after))
        review.moves.append(ReviewedMove(
            i + 1, turn.player.value, turn.square, best, _plain(sign * before),
            _plain(after), loss, depth=depths[i], stood=turn.stood))
    worst = sorted((m for m in review.moves if (m.loss or 0) >= MISTAKE_DISCS),
                   key=lambda m: -(m.loss or 0))[:MISTAKES]
    for m in worst:
        m.mistake = True
    return review


def _value(client: EngineClient, game: Game,
           pos: Position) -> tuple[str | None, float, int | None]:
    """(best move, value from black's view, depth searched); the value is nan where the
    engine must be asked later. Each position has the engine's time per move; an
    engine late with it answers with what it searched (:meth:`EngineClient.hints`)."""
    if pos.is_game_over():
        b, w = pos.final_score()
        return None, float(b - w), 0
    if not pos.legal_moves():
        return None, float("nan"), None  # a pass: the value of the position after it
    hints = client.hints(game, 1)
    if hints is None and not client.gone:
        hints = client.hints(game, 1)  # the engine failed once: it is started again
    if not hints:
        raise ReviewError(f"the engine gave no answer ({client.problem or 'no hint'})")
    best, score = max(hints.items(), key=lambda kv: kv[1] if kv[1] is not None else -99)
    if score is None:
        raise ReviewError("the engine gave a move without a score")
    depth = client.depth
    searched = None if depth is None or math.isinf(depth) else int(depth)
    return best, score if pos.to_move is Color.BLACK else -score, searched


def _through_passes(positions: list[Position],
                    values: list[tuple[str | None, float]]) -> list[tuple[str | None, float]]:
    """A position where the mover must pass has the value of the one after the pass."""
    out = list(values)
    for i in range(len(out) - 2, -1, -1):
        if out[i][1] != out[i][1]:  # nan
            out[i] = (None, out[i + 1][1])
    return out


def annotate(record: GameRecord, review: Review) -> GameRecord:
    """A copy of ``record`` with the analysis in GGF's own places: each move's evaluation
    (``B[f5/eval/]``, the mover's view of the move played) and comments on the moves that
    lost discs, the mistakes marked; a game comment sums up."""
    out = copy.deepcopy(record)
    number = 0
    for mv in out.moves:
        number += 1
        while number <= len(review.moves) and review.moves[number - 1].player != mv.player.value:
            number += 1  # a pass the record leaves implicit
        if number > len(review.moves):
            break
        rm = review.moves[number - 1]
        if rm.square is None or rm.score is None:
            continue
        sign = 1.0 if mv.player is Color.BLACK else -1.0
        mv.eval = round(sign * rm.score, 2) + 0.0  # never -0
        if rm.loss:
            text = (f"{'MISTAKE: ' if rm.mistake else ''}{rm.square} loses {rm.loss:g} "
                    f"disc{'s' if rm.loss != 1 else ''}; best {rm.best} ({rm.best_score:+g})")
            mv.comment = join_comments(mv.comment, text + ".")
    mistakes = ", ".join(f"{m.number}. {m.square} (-{m.loss:g})" for m in review.mistakes())
    out.comments.append(
        f"Reviewed by {review.engine} (level {review.level}): black lost "
        f"{review.losses(Color.BLACK):g} discs, white {review.losses(Color.WHITE):g}"
        + (f"; biggest mistakes: {mistakes}" if mistakes else ""))
    return out


def text_graph(review: Review, height: int = 9,
               limit: float = float(board_size().squares)) -> str:
    """The score over the game as a terminal chart: one column per move, black's view
    above the line, white's below; mistakes marked with ``!`` under their column."""
    scores = [m.score or 0.0 for m in review.moves]
    if not scores:
        return "(no moves)"
    top = max(4.0, min(limit, max(abs(s) for s in scores)))
    half = height // 2
    rows = []
    for r in range(half, -half - 1, -1):
        line = []
        for s in scores:
            level = round(s / top * half)
            if r == 0:
                line.append("─" if level == 0 else "█")
            elif (r > 0 and 0 < r <= level) or (r < 0 and level <= r < 0):
                line.append("█")
            else:
                line.append(" ")
        label = f"{r / half * top:+5.0f} " if r in (half, 0, -half) else "      "
        rows.append(label + "".join(line))
    rows.append("      " + "".join("!" if m.mistake else " " for m in review.moves))
    return "\n".join(rows)


def signed(x: float | None) -> str:
    """A score as a person reads it: ``+4``, ``-2.5``, ``0`` (never ``-0`` nor ``+0``)."""
    if x is None:
        return ""
    x = round(x, 2) + 0.0
    return "0" if x == 0 else f"{x:+g}"


def lead(score: float | None) -> str:
    """A black-view score in words: who is ahead, and by how many discs."""
    if score is None:
        return "not known"
    score = round(score, 2) + 0.0
    if score == 0:
        return "even"
    who = "black" if score > 0 else "white"
    return f"{who} ahead by {abs(score):g}"


def graph_x(i: int, n: int, width: int = 600) -> float:
    """Where step ``i`` (0: the start, then after each move) sits across the graph."""
    return round(i * (width - 20) / max(1, n) + 10, 1)


def svg_graph(review: Review, width: int = 600, height: int = 200) -> str:
    """The score over the game as an SVG: black's advantage shaded dark above the middle,
    white's light below; each mistake a red dot with its move number. Each step of the
    game has a band a page may click (``rect.step`` with its ``data-i``), and a cursor
    line (``line.cursor``) a page moves to the step it shows."""
    n = max(1, len(review.moves))
    top = max(4.0, max((abs(m.score or 0.0) for m in review.moves), default=4.0))
    mid = height / 2

    def x(i: int) -> float:
        return graph_x(i, n, width)

    def y(s: float) -> float:
        return round(mid - s / top * (mid - 10), 1)

    points = [(x(0), y(review.start_score or 0.0))]
    points += [(x(i + 1), y(m.score or 0.0)) for i, m in enumerate(review.moves)]
    line = " ".join(f"{a},{b}" for a, b in points)
    area = f"{points[0][0]},{mid} {line} {points[-1][0]},{mid}"
    dots = "".join(
        f'<circle cx="{x(i + 1)}" cy="{y(m.score or 0.0)}" r="4" fill="#d00">'
        f"<title>{m.number}. {m.square or 'pass'}: -{m.loss:g}</title></circle>"
        for i, m in enumerate(review.moves) if m.mistake)
    band = (width - 20) / n
    steps = "".join(
        f'<rect class="step" data-i="{i}" x="{round(x(i) - band / 2, 1)}" y="0" '
        f'width="{round(band, 1)}" height="{height}" fill="transparent"/>'
        for i in range(len(review.moves) + 1))
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
            f'class="score-graph" role="img" aria-label="score over the game">'
            f'<rect width="{width}" height="{height}" fill="#f4f1e8"/>'
            f'<line x1="0" y1="{mid}" x2="{width}" y2="{mid}" stroke="#888"/>'
            f'<polygon points="{area}" fill="#333" fill-opacity="0.35"/>'
            f'<polyline points="{line}" fill="none" stroke="#111" stroke-width="2"/>'
            f'<line class="cursor" x1="{x(0)}" y1="0" x2="{x(0)}" y2="{height}" '
            f'stroke="#0b63c4" stroke-width="2"/>'
            f"{dots}{steps}</svg>")
