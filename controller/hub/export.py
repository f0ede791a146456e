"""The whole event as game records: one GGF file, and a WTHOR database with its name files.

Each game is rebuilt from the events the hub stored for it, in seq order. The record is
the arbiter's, not the spectators': irregularities are kept as comments on the move in
which they happened, as a table's own record keeps them. Formats are written by
``controller.records``; nothing here knows a file layout.
"""

from __future__ import annotations

import datetime as dt
import io
import logging
import tempfile
import zipfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from controller.hub.broadcast import GameInfo, StoredEventLike
from controller.hub.logs import Throttled
from controller.position import Position
from controller.records import games_to_json, write_wthor
from controller.records.ggf import write_ggf
from controller.records.irregular import History, stood_board
from controller.records.model import GameRecord, Move, RecordError
from controller.records.wthor import PLAYERS_FILE, TOURNAMENTS_FILE
from controller.squares import BoardStringError, Color

_skipped = Throttled(logging.getLogger("kaeshi.hub"), every=60.0)


def game_record(events: Sequence[StoredEventLike], info: GameInfo | None = None,
                event_name: str = "", table: int | None = None) -> GameRecord:
    """The record of one game from its stored events (any order; sorted by seq)."""
    info = info or GameInfo()
    rec = GameRecord(black=info.black, white=info.white, event=event_name)
    notes: list[str] = []
    first: float | None = None
    for stored in sorted(events, key=lambda e: e.seq):
        ev = stored.event
        first = stored.received if first is None else first
        kind = ev.get("event")
        if kind in ("move", "pass"):
            try:
                player = Color.parse(str(ev.get("player")))
            except BoardStringError:
                continue
            square = str(ev["square"]) if kind == "move" and ev.get("square") else None
            rec.moves.append(Move(player, square, comment="\n".join(notes)))
            notes = []
        elif kind == "resync":  # a board reached by legal play and adopted: its moves
            for text in ev.get("moves") or []:
                name, _, square = str(text).partition(" ")
                try:
                    player = Color.parse(name)
                except BoardStringError:
                    continue
                rec.moves.append(Move(player, square or None, comment="\n".join(notes)))
                notes = []
        elif kind == "irregularity":
            squares = " ".join(ev.get("squares", []))
            notes.append(f"{ev.get('kind', 'irregularity')} {squares}".strip())
        elif kind == "game_over":
            b, w = ev.get("black"), ev.get("white")
            if isinstance(b, int) and isinstance(w, int):
                rec.result = (b, w)
            if ev.get("reason") in ("time", "both_flags") or ev.get("loser"):
                rec.result_note = "time"
            if ev.get("decided_by") == "draw_win_right" and ev.get("winner") in ("black", "white"):
                rec.draw_win_right = Color(ev["winner"])  # the 伏せ石 the table knew
    if notes:  # flagged after the last move: the note belongs to that move
        if rec.moves:
            last = rec.moves[-1]
            last.comment = "\n".join(([last.comment] if last.comment else []) + notes)
        else:
            rec.comments.extend(notes)
    _in_words(rec, sorted(events, key=lambda e: e.seq))
    if first is not None:
        rec.date = dt.datetime.fromtimestamp(first, dt.UTC).date().isoformat()
    if info.round is not None:
        rec.extra["RND"] = str(info.round)
    if table is not None:
        rec.extra["TBL"] = str(table)
    return rec


def _in_words(rec: GameRecord, events: Sequence[StoredEventLike]) -> None:
    """Each irregular move's comment in words with what became of it, and the board play
    went on from where the rules do not give it (from the official board each stored
    event carries), as the table's own records have them: the event's GGF then reads
    back and verifies, and WTHOR names the game it cannot hold."""
    history = History()
    after: dict[int, Position] = {0: rec.start}
    moves = 0
    for stored in events:
        ev = stored.event
        kind = ev.get("event")
        if kind in ("move", "pass"):
            moves += 1
        elif kind == "resync":
            moves += len(ev.get("moves") or [])
        history.take([ev], moves, float(ev.get("t") or 0.0))
        board, to_move = getattr(stored, "board", None), getattr(stored, "to_move", None)
        if board:
            try:
                after[moves] = Position.from_board_string(
                    board, Color.parse(to_move) if to_move else Color.BLACK)
            except BoardStringError:
                pass
    if moves != len(rec.moves):
        return  # a resync the record could not follow: numbers would not match
    for n, mv in enumerate(rec.moves, 1):
        # an irregularity follows the move it was found in (its event comes after it)
        mv.comment = "\n".join(e.comment() for e in history.on_move(n))
        mv.stands = stood_board(after.get(n - 1), after.get(n), mv)


def event_records(
    games: Sequence[tuple[int, str]],
    events: Callable[[int, str], Sequence[StoredEventLike]],
    infos: Mapping[tuple[int, str], GameInfo] | None = None,
    event_name: str = "",
) -> list[GameRecord]:
    """Every game of the event, by round then table; a game without a move is left out."""
    infos = infos or {}
    keyed = []
    for order, (table, game) in enumerate(games):
        info = infos.get((table, game), GameInfo())
        rec = game_record(events(table, game), info, event_name, table)
        if rec.moves:
            keyed.append(((info.round if info.round is not None else 10**6, table, order), rec))
    keyed.sort(key=lambda kr: kr[0])
    return [rec for _, rec in keyed]


def event_ggf(records: Sequence[GameRecord]) -> str:
    """The whole event as one GGF file, one game per line; a game that cannot be
    written (a value an older hub let into its store) is left out, alone."""
    lines = []
    for rec in records:
        try:
            lines.append(write_ggf(rec) + "\n")
        except RecordError as exc:
            _left_out(rec, exc)
    return "".join(lines)


def event_json(records: Sequence[GameRecord]) -> str:
    """The whole event as the JSON games file; a game that cannot be written is left
    out, alone."""
    return games_to_json(writable(records, lambda r: games_to_json([r])))


def writable(records: Sequence[GameRecord], write: Callable[[GameRecord], object]
             ) -> list[GameRecord]:
    """The records ``write`` takes; the others are logged (once a minute per kind)."""
    ok = []
    for rec in records:
        try:
            write(rec)
        except RecordError as exc:
            _left_out(rec, exc)
            continue
        ok.append(rec)
    return ok


def _left_out(rec: GameRecord, exc: RecordError) -> None:
    _skipped.warning("unwritable", "a game left out of the event's records: table %s: %s",
                     rec.extra.get("TBL", "?"), exc)


@dataclass
class WthorExport:
    """Where the database went, and every game WTHOR could not hold, with why."""

    games: Path
    players: Path
    tournaments: Path
    written: int
    skipped: list[str] = field(default_factory=list)


def storable(records: Sequence[GameRecord]) -> tuple[list[GameRecord], list[str]]:
    """The games WTHOR can hold (rules-replayable, standard start), and why the others not.

    A game whose position the arbiter set by hand cannot be replayed move by move; GGF
    keeps it, WTHOR cannot.
    """
    ok: list[GameRecord] = []
    skipped: list[str] = []
    for rec in records:
        label = f"table {rec.extra.get('TBL', '?')}, {rec.black or '?'} vs {rec.white or '?'}"
        if not rec.has_standard_start():
            skipped.append(f"{label}: not from the standard start")
            continue
        if rec.stood():
            skipped.append(f"{label}: WTHOR cannot hold it: after move "
                           f"{', '.join(map(str, rec.stood()))} play went on from a board "
                           "the rules do not give (GGF keeps it)")
            continue
        try:
            rec.positions()
        except RecordError as exc:
            skipped.append(f"{label}: {exc}")
            continue
        ok.append(rec)
    return ok, skipped


def export_wthor(records: Sequence[GameRecord], directory: Path,
                 name: str = "event.wtb") -> WthorExport:
    """Write ``name`` with ``WTHOR.JOU``/``WTHOR.TRN`` beside it in ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    ok, skipped = storable(records)
    path = directory / name
    write_wthor(ok, path, directory)
    return WthorExport(path, directory / PLAYERS_FILE, directory / TOURNAMENTS_FILE,
                       len(ok), skipped)


def wthor_zip(records: Sequence[GameRecord], name: str = "event.wtb") -> tuple[bytes, list[str]]:
    """The WTHOR database and its two name files as one zip (what a browser downloads)."""
    with tempfile.TemporaryDirectory() as tmp:
        result = export_wthor(records, Path(tmp), name)
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
            for path in (result.games, result.players, result.tournaments):
                zf.write(path, path.name)
    return buf.getvalue(), result.skipped
