"""A review as files and as a page: ``reviews/<id>.ggf`` in the games folder (the
record with the analysis as GGF evaluations and comments), ``reviews/<id>.json`` (for
the page) and the HTML the table's page shows, score graph first.

The game's own files are left as the arbiter wrote them: the review is an opinion
about the game, the record is what happened.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

from controller.engine.client import EngineClient, EngineSpec
from controller.engine.review import (
    Review,
    ReviewedMove,
    ReviewError,
    Turn,
    annotate,
    graph_x,
    lead,
    review_game,
    signed,
    svg_graph,
    turns,
)
from controller.records import write_ggf
from controller.records.irregular import split_stood
from controller.records.model import GameRecord
from controller.squares import Color

#: What a game id looks like (the service's are start times such as 20260101-120000).
GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
#: Reviews live in their own folder, so a listing of the games never takes one for a game.
REVIEWS = "reviews"


def review_paths(folder: Path, game_id: str) -> tuple[Path, Path]:
    where = folder / REVIEWS
    return where / f"{game_id}.ggf", where / f"{game_id}.json"


def review_saved_game(folder: Path, game_id: str, spec: EngineSpec) -> tuple[Review, list[Path]]:
    """Review a finished game of the games folder and write the review beside it."""
    from controller.service.games import find_game

    entry = find_game(folder, game_id)
    if entry.record is None:
        raise ReviewError(f"game {game_id} cannot be reviewed: {entry.problem}")
    client = EngineClient(spec, restarts=1)
    try:
        review = review_game(entry.record, client)
    finally:
        client.close()
    ggf, js = review_paths(folder, game_id)
    ggf.parent.mkdir(exist_ok=True)
    ggf.write_text(write_ggf(annotate(entry.record, review)) + "\n", encoding="utf-8")
    js.write_text(json.dumps(review.to_json(), indent=1) + "\n", encoding="utf-8")
    return review, [ggf, js]


def load_review(path: Path) -> Review:
    """A review saved as JSON; raise naming the file if it is not one."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        review = Review(str(doc["engine"]), int(doc["level"]),
                        start_score=doc.get("start_score"), seconds=doc.get("seconds"))
        review.moves = [ReviewedMove(**m) for m in doc["moves"]]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ReviewError(f"{path}: not a saved review ({exc})") from None
    return review


def summary_lines(review: Review, record: GameRecord | None = None) -> list[str]:
    """What ``kaeshi games review`` prints under the graph."""
    lines = [f"engine: {review.engine} (level {review.level}"
             + (f", {review.seconds:g} s a position)" if review.seconds else ")"),
             f"discs lost: black {review.losses(Color.BLACK):g}, "
             f"white {review.losses(Color.WHITE):g}"]
    depths = [m.depth for m in review.moves if m.depth]
    if depths:
        lines.append(f"searched {min(depths)} to {max(depths)} plies deep "
                     "(the empties where solved; every move's depth is in the review)")
    stood = [m.number for m in review.moves if m.stood]
    if stood:
        lines.append("reviewed from the board as it stood after move "
                     f"{', '.join(map(str, stood))} (a fault nobody put right, or a ruling)")
    for m in review.mistakes():
        lines.append(f"  mistake: {mistake_text(m)}")
    return lines


def mistake_text(m: ReviewedMove) -> str:
    """One mistake in words, the engine's better move with it where it named one."""
    better = f"; better: {m.best} ({signed(m.best_score)})" if m.best else ""
    return (f"{m.number}. {m.player} {m.square or 'pass'} loses {m.loss:g} "
            f"disc{'s' if m.loss != 1 else ''}{better}")


def step_text(m: ReviewedMove | None, review: Review, note: str = "") -> str:
    """What the review page says under its board at one step (None: the start);
    ``note``: the record's words on the move (its irregularity, for a board that stood)."""
    if m is None:
        return f"Start of the game: {lead(review.start_score)}."
    played = (f"{m.player} played {m.square}" if m.square else f"{m.player} passed")
    text = f"Move {m.number}: {played}"
    if m.stood:
        text += " irregularly; the board stood as it was"
    text += f". Now {lead(m.score)}."
    if m.stood and note:
        text += f" {note}"
    if m.loss:
        text += f" It lost {m.loss:g} disc{'s' if m.loss != 1 else ''}"
        text += f"; the engine's move was {m.best} ({signed(m.best_score)})." if m.best else "."
    elif m.best and m.square is not None and m.best == m.square and not m.stood:
        text += " The engine's choice too."
    return text


def review_html(review: Review, record: GameRecord, game_id: str) -> str:
    """The review page: a board that follows the game step by step beside the score
    graph (click it, a move, or use the arrow keys), the biggest mistakes with the
    engine's better move, then every move. The boards are the game as it was played,
    boards that stood included (:func:`controller.engine.review.turns`)."""
    e = html.escape
    played = turns(record)
    rows = []
    for m in review.moves:
        cls = ' class="mistake"' if m.mistake else ""
        loss = "" if m.loss is None else f"{m.loss:g}"
        depth = "" if m.depth is None else str(m.depth)
        move = e(m.square or "pass") + (" (stood)" if m.stood else "")
        rows.append(f'<tr{cls} data-i="{m.number}"><td>{m.number}</td><td>{m.player}</td>'
                    f"<td>{move}</td><td>{signed(m.score)}</td><td>{loss}</td>"
                    f"<td>{e(m.best or '')}</td><td>{depth}</td></tr>")
    mistakes = "".join(
        f'<li><a href="#step-{m.number}" data-i="{m.number}">{e(mistake_text(m))}</a></li>'
        for m in review.mistakes()) or "<li>none: no move lost two discs or more</li>"
    black, white = record.black or "Black", record.white or "White"
    title = f"{e(black)} vs {e(white)}"
    about = " · ".join(e(x) for x in (record.event, record.date) if x)
    n = len(review.moves)
    if len(played) != n:  # a review saved for another record of this id
        raise ReviewError(f"the saved review of {game_id} does not fit its game: review "
                          "it again with `kaeshi games review`")
    data: dict[str, Any] = {
        "size": record.start.size,
        "boards": [record.start.board_string()] + [t.after.board_string() for t in played],
        "last": [None] + [t.square for t in played],
        "best": [None] + [m.best if m.loss else None for m in review.moves],
        "text": [step_text(None, review)] + [
            step_text(m, review, _note(record, t))
            for m, t in zip(review.moves, played, strict=True)],
        "x": [graph_x(i, max(1, n)) for i in range(n + 1)],
    }
    blob = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Review · {title} — Kaeshi</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/static/style.css">
<link rel="stylesheet" href="/static/engine.css">
<script src="/static/kaeshi-board.js" defer></script>
<script src="/static/review.js" defer></script></head>
<body data-page="review">
<header><h1 id="heading">Review: {title}</h1><span class="badge">{about}</span>
<nav><a href="/">Back to the table</a></nav></header>
<main class="review-page">
<section class="board-area">
<div id="board" class="board" aria-label="board"></div>
<p id="review-step" class="review-step" role="status">{e(data["text"][-1])}</p>
<div class="row review-nav">
<button type="button" id="step-first" aria-label="start of the game">|&#9664;</button>
<button type="button" id="step-prev">&#9664; Back</button>
<button type="button" id="step-next">Forward &#9654;</button>
<button type="button" id="step-last" aria-label="end of the game">&#9654;|</button>
</div>
<p class="hint">Click the graph or a move, or use the &larr; &rarr; keys (Home, End).</p>
</section>
<section class="side review-side">
<p>Engine: {e(review.engine)} (level {review.level}). Above the line black is ahead,
below it white; red dots are the biggest mistakes.</p>
{svg_graph(review)}
<p>Discs lost against the best move: black {review.losses(Color.BLACK):g},
white {review.losses(Color.WHITE):g}.</p>
<h2>Biggest mistakes</h2><ul id="mistakes">{mistakes}</ul>
<h2>Every move</h2>
<table class="review"><thead><tr><th>#</th><th>side</th><th>move</th><th>score</th>
<th>discs lost</th><th>best</th><th>depth</th></tr></thead><tbody>{"".join(rows)}</tbody></table>
<p><a href="/review/{e(game_id)}.ggf" download>Download the reviewed record (GGF)</a></p>
</section>
</main>
<script type="application/json" id="review-data">{blob}</script>
</body></html>
"""


def _note(record: GameRecord, turn: Turn) -> str:
    """The record's comment on the turn's move, without the board it names."""
    if turn.move is None:
        return ""
    return split_stood(record.moves[turn.move - 1].comment)[0]


def review_json(review: Review) -> dict[str, Any]:
    return review.to_json()


def review_document(folder: Path, name: str, spec: EngineSpec) -> tuple[str, str]:
    """For the page: ``("html", page)`` for ``<id>``, ``("ggf", text)`` for ``<id>.ggf``;
    a game not yet reviewed is reviewed first (blocking: call it from a worker thread)."""
    game_id = name[:-4] if name.endswith(".ggf") else name
    if not GAME_ID.fullmatch(game_id):
        raise ReviewError(f"not a game id: {game_id[:40]!r}")
    ggf, js = review_paths(folder, game_id)
    if js.is_file() and ggf.is_file():
        review = load_review(js)
    else:
        review, _ = review_saved_game(folder, game_id, spec)
    if name.endswith(".ggf"):
        return "ggf", ggf.read_text(encoding="utf-8")
    from controller.service.games import find_game

    entry = find_game(folder, game_id)
    if entry.record is None:
        raise ReviewError(f"game {game_id} cannot be shown: {entry.problem}")
    return "html", review_html(review, entry.record, game_id)
