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
from controller.position import Position
from controller.records.model import GameRecord, RecordError, join_comments
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


def _explicit(record: GameRecord) -> list[tuple[Position, str | None]]:
    """(position before, square or None) for every turn, passes made explicit."""
    try:
        positions = record.positions()
    except RecordError as exc:
        raise ReviewError(f"the game cannot be replayed under the rules: {exc}") from None
    out: list[tuple[Position, str | None]] = []
    pos = record.start
    for mv in record.moves:
        if mv.player is not pos.to_move:  # a pass the record leaves implicit
            out.append((pos, None))
            pos = pos.pass_turn()
        out.append((pos, mv.square))
        pos = pos.pass_turn() if mv.square is None else pos.play(mv.square)
    assert pos == positions[-1]
    return out


def review_game(record: GameRecord, client: EngineClient) -> Review:
    """Ask ``client`` for the value of every position of the game; raise if it cannot."""
    if not client.scores:
        raise ReviewError(f"a review needs scores, and the {client.spec.protocol} engine "
                          "gives moves only: configure an NBoard engine (Edax -nboard, or "
                          "Kaeshi's own)")
    turns = _explicit(record)
    start = record.start
    played: list[str | None] = []
    values: list[tuple[str | None, float]] = []  # per position: best move, black-view value
    depths: list[int | None] = []
    positions = [p for p, _ in turns]
    final = record.final_position()
    for pos, sq in [*turns, (final, None)]:
        best, value, depth = _value(client, Game(start, tuple(played)), pos)
        values.append((best, value))
        depths.append(depth)
        played.append(sq)
    values = _through_passes(positions + [final], values)
    review = Review(client.name or client.spec.argv[0], client.spec.level,
                    start_score=values[0][1], seconds=client.spec.seconds)
    for i, (pos, sq) in enumerate(turns):
        best, before = values[i]
        after = values[i + 1][1]
        sign = 1.0 if pos.to_move is Color.BLACK else -1.0
        loss = None
        if sq is not None:
            loss = round(max(0.0, sign * before - sign * after), 2)
        review.moves.append(ReviewedMove(
            i + 1, pos.to_move.value, sq, best, round(sign * before, 2),
            round(after, 2), loss, depth=depths[i]))
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


def svg_graph(review: Review, width: int = 600, height: int = 200) -> str:
    """The score over the game as an SVG: black's advantage shaded dark above the middle,
    white's light below; each mistake a red dot with its move number."""
    n = max(1, len(review.moves))
    top = max(4.0, max((abs(m.score or 0.0) for m in review.moves), default=4.0))
    mid = height / 2

    def x(i: int) -> float:
        return round(i * (width - 20) / n + 10, 1)

    def y(s: float) -> float:
        return round(mid - s / top * (mid - 10), 1)

    points = [(x(0), y(review.start_score or 0.0))]
    points += [(x(i + 1), y(m.score or 0.0)) for i, m in enumerate(review.moves)]
    line = " ".join(f"{a},{b}" for a, b in points)
    area = f"{points[0][0]},{mid} {line} {points[-1][0]},{mid}"
    dots = "".join(
        f'<circle cx="{x(i + 1)}" cy="{y(m.score or 0.0)}" r="4" fill="#d00">'
        f"<title>{m.number}. {m.square}: -{m.loss:g}</title></circle>"
        for i, m in enumerate(review.moves) if m.mistake)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
            f'class="score-graph" role="img" aria-label="score over the game">'
            f'<rect width="{width}" height="{height}" fill="#f4f1e8"/>'
            f'<line x1="0" y1="{mid}" x2="{width}" y2="{mid}" stroke="#888"/>'
            f'<polygon points="{area}" fill="#333" fill-opacity="0.35"/>'
            f'<polyline points="{line}" fill="none" stroke="#111" stroke-width="2"/>'
            f"{dots}</svg>")
