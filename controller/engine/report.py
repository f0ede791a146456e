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
    annotate,
    review_game,
    svg_graph,
)
from controller.records import write_ggf
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
    for m in review.mistakes():
        lines.append(f"  mistake: {m.number}. {m.player} {m.square} loses {m.loss:g} "
                     f"(best {m.best}, {m.best_score:+g})")
    return lines


def review_html(review: Review, record: GameRecord, game_id: str) -> str:
    """The review page: the score graph, the biggest mistakes, then every move."""
    e = html.escape
    rows = []
    for m in review.moves:
        cls = ' class="mistake"' if m.mistake else ""
        loss = "" if m.loss is None else f"{m.loss:g}"
        score = "" if m.score is None else f"{m.score:+g}"
        depth = "" if m.depth is None else str(m.depth)
        rows.append(f"<tr{cls}><td>{m.number}</td><td>{m.player}</td>"
                    f"<td>{e(m.square or 'pass')}</td><td>{score}</td><td>{loss}</td>"
                    f"<td>{e(m.best or '')}</td><td>{depth}</td></tr>")
    mistakes = "".join(
        f"<li>{m.number}. {m.player} {e(m.square or '')}: loses {m.loss:g} "
        f"(best {e(m.best or '')})</li>" for m in review.mistakes()) or "<li>none</li>"
    title = f"{e(record.black or 'Black')} vs {e(record.white or 'White')}"
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Review {e(game_id)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/static/style.css">
<link rel="stylesheet" href="/static/engine.css"></head>
<body><main class="review-page">
<h1>Review: {title}</h1>
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
</main></body></html>
"""


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

    record = find_game(folder, game_id).record
    assert record is not None  # a review exists only for a game the rules replay
    return "html", review_html(review, record, game_id)
