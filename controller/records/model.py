"""The game record every format reads into and writes from.

One model for all formats keeps conversions lossless where the formats allow it:
the JSON form keeps everything, GGF keeps clocks and comments, WTHOR keeps the
moves, names and score.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from controller.errors import KaeshiError
from controller.position import IllegalMoveError, Position
from controller.squares import Color, parse_square


class RecordError(KaeshiError):
    """A record that cannot be read or replayed; names the file, game and move."""


def join_comments(*parts: str) -> str:
    """Notes on one move as one line: GGF readers take a comment line by line, and a
    newline inside ``C[]`` breaks them."""
    out = ""
    for part in parts:
        text = " ".join(part.split())
        if text:
            out = text if not out else f"{out}{' ' if out[-1] in '.!?' else '; '}{text}"
    return out



@dataclass
class Move:
    """One turn: a square, or ``None`` for a pass."""

    player: Color
    square: str | None
    time: float | None = None  # seconds of clock time used on this move
    eval: float | None = None  # engine evaluation, as GGF stores it
    comment: str = ""  # e.g. irregularities the arbiter saw on this move
    #: The board as it stood after this move when that is not what the rules give: an
    #: irregular move nobody put right, or a position the arbiter ruled. Play goes on
    #: from it (rule 5①: an unnoticed fault stays on the board).
    stands: Position | None = None

    @property
    def is_pass(self) -> bool:
        return self.square is None


@dataclass
class GameRecord:
    black: str = ""
    white: str = ""
    event: str = ""
    date: str = ""  # ISO date (YYYY-MM-DD) or as much of it as is known
    place: str = ""
    start: Position = field(default_factory=Position.start)
    moves: list[Move] = field(default_factory=list)
    #: Final disc counts (black, white) as the record states them, empties to the winner.
    result: tuple[int, int] | None = None
    #: How the game ended when not on the board: "time", "resignation", "agreement".
    result_note: str = ""
    draw_win_right: Color | None = None
    time_control: str = ""  # e.g. GGF "20:00//00:00"
    comments: list[str] = field(default_factory=list)
    extra: dict[str, str] = field(default_factory=dict)  # tags a format had that we keep

    def positions(self) -> list[Position]:
        """Every position from the start, after each move; raise naming the bad move."""
        pos = self.start
        out = [pos]
        for number, mv in enumerate(self.moves, 1):
            if mv.stands is not None:
                pos = mv.stands
                out.append(pos)
                continue
            if mv.player is not pos.to_move:
                # Records imply passes; make an implied pass explicit if it is forced.
                if pos.legal_moves() or mv.player is not pos.to_move.opponent:
                    raise RecordError(
                        f"move {number} ({mv.square or 'pass'}) is by {mv.player.value}, "
                        f"but {pos.to_move.value} is to move"
                    )
                pos = pos.pass_turn()
            try:
                pos = pos.pass_turn() if mv.square is None else pos.play(mv.square)
            except IllegalMoveError as exc:
                raise RecordError(f"move {number}: {exc}") from None
            out.append(pos)
        return out

    def final_position(self) -> Position:
        return self.positions()[-1]

    def is_finished(self) -> bool:
        return self.final_position().is_game_over()

    def winner(self) -> Color | None:
        """Winner by the stated result, else by the board; draw-win right settles a tie."""
        if self.result is not None:
            b, w = self.result
        else:
            b, w = self.final_position().final_score()
        if b != w:
            return Color.BLACK if b > w else Color.WHITE
        return self.draw_win_right

    def add_comment(self, text: str, move: int | None = None) -> None:
        """Note ``text`` on move number ``move`` (1-based, passes counted) or on the game.

        The arbiter records irregularities this way; a move can collect several notes,
        joined on one line (a GGF comment must not hold a newline), and every format that
        keeps comments (GGF, JSON) keeps them all.
        """
        if move is None:
            self.comments.append(text)
            return
        if not 1 <= move <= len(self.moves):
            raise RecordError(f"no move {move} to comment on (the game has {len(self.moves)})")
        mv = self.moves[move - 1]
        mv.comment = join_comments(mv.comment, text)

    def label(self, index: int) -> str:
        """``game 3 (Ann vs Bob, 2024-05-06)``: how an error names this game to a person."""
        who = " vs ".join(n for n in (self.black, self.white) if n)
        about = ", ".join(x for x in (who, self.date) if x)
        return f"game {index}" + (f" ({about})" if about else "")

    def stood(self) -> list[int]:
        """Numbers (1-based) of the moves after which the board stood as the rules do not
        give it: what a format that only lists moves cannot hold."""
        return [n for n, mv in enumerate(self.moves, 1) if mv.stands is not None]

    def has_standard_start(self) -> bool:
        """Whether the game starts from the standard 8x8 start, the only start that
        transcripts and WTHOR can hold (they record moves, not a start position)."""
        return self.start == Position.start()

    def has_centre_start(self) -> bool:
        """Whether the game starts from the centre-four start of its own board size, the
        start a transcript of any size holds."""
        return self.start == Position.start(self.start.size)

    def transcript_moves(self) -> list[str]:
        """The squares played, passes left out, as a transcript lists them."""
        return [m.square for m in self.moves if m.square is not None]

    @classmethod
    def from_squares(cls, squares: list[str], start: Position | None = None,
                     **info: object) -> GameRecord:
        """Build a record from squares alone, filling in the passes the rules force."""
        pos = start or Position.start()
        rec = cls(start=pos, **info)  # type: ignore[arg-type]
        for number, name in enumerate(squares, 1):
            sq = parse_square(name, pos.size)
            if not pos.legal_moves() and not pos.is_game_over():
                rec.moves.append(Move(pos.to_move, None))
                pos = pos.pass_turn()
            try:
                pos_next = pos.play(sq)
            except IllegalMoveError as exc:
                raise RecordError(f"move {number}: {exc}") from None
            rec.moves.append(Move(pos.to_move, name.lower()))
            pos = pos_next
        return rec
