"""The first board after a lost link or a board restart, and what happened meanwhile.

Players do not stop while a cable is reseated. When the link comes back, boards with
unknown squares are held while the sensors settle; the settled board is then compared
with the one last reported (or the arbiter's position, when the driver was given it)
and either the legal moves that explain the difference are replayed as observations,
or the change is flagged for an arbiter to look at. Nothing that happened on the table
is silently lost.

The settling is timed on the board's own clock (the uptime in its frames), because a
busy host can read the first frames after a reconnection a second late, all at once:
timed on the host, boards taken while the sensors were still unsure would pass for
settled ones.
"""

from __future__ import annotations

from collections.abc import Callable

from controller.hall.link import LinkState
from controller.hall.reconcile import reconcile
from controller.hall.reports import Reports
from controller.position import Position

#: How long after a (re)connection boards with unknown squares are held back while the
#: sensors settle, before the board is compared with the last one reported. Counted in
#: the board's uptime (the ``t_ms`` of its frames), not in host time.
SETTLE_TIME = 0.3
_SETTLE_MS = round(SETTLE_TIME * 1000)
_T_MS_WRAP = 0xFFFFFFFF  # the board's uptime is a u32 of milliseconds


class Reconnection:
    """Boards arriving from the link, held and explained around each gap in it."""

    def __init__(self, reports: Reports,
                 official_position: Callable[[], Position | None] | None) -> None:
        self._reports = reports
        self._official = official_position
        self._pending = False  # a (re)connection awaits its settled board
        self._settle_from: int | None = None  # board uptime (ms) of its first frame since
        self._pending_board: str | None = None
        self._down_since: float | None = None
        self._gap = False  # the next settled board follows a lost link or a restart

    def lost(self, now: float) -> None:
        """The link went away at ``now``."""
        self._down_since = now
        self._pending = False
        self._gap = True

    def restarted(self) -> None:
        """The board restarted: what it shows next may not follow from its last board."""
        self._gap = True

    def connected(self) -> None:
        """The handshake is done: hold boards with unknown squares while sensors settle."""
        self._pending = True
        self._settle_from = None
        self._pending_board = None

    def on_board(self, board: str, t_ms: int, now: float) -> None:
        """A board the board sent at its uptime ``t_ms`` and the host read at ``now``."""
        if self._pending:
            if "?" in board and not self._settled(t_ms):
                self._pending_board = board
                return
            self._pending = False
            self._after_gap(board, now)
            return
        if board != self._reports.board:
            self._reports.board_seen(board, now)

    def check_pending(self, t_ms: int, now: float) -> None:
        """Settle on the board held back once a frame shows the sensors had their time."""
        if self._pending and self._pending_board is not None and self._settled(t_ms):
            self._pending = False
            self._after_gap(self._pending_board, now)

    def _settled(self, t_ms: int) -> bool:
        if self._settle_from is None:
            self._settle_from = t_ms
        return ((t_ms - self._settle_from) & _T_MS_WRAP) >= _SETTLE_MS

    def _after_gap(self, board: str, now: float) -> None:
        """The first settled board after a lost link or a restart."""
        reports = self._reports
        if not self._gap:  # first connection: nothing to compare with
            if board != reports.board:
                reports.board_seen(board, now)
            return
        self._gap = False
        away = "" if self._down_since is None else f" after {now - self._down_since:.1f} s"
        self._down_since = None
        official = self._official() if self._official is not None else None
        before = official.board_string() if official is not None else reports.board
        to_move = official.to_move if official is not None else None
        if before is None:
            reports.status(LinkState.RECONNECTED, f"sensor board back{away}")
            reports.board_seen(board, now)
            return
        if board == before:
            reports.status(LinkState.RECONNECTED,
                           f"sensor board back{away}; board unchanged", before, board)
            if board != reports.board:
                reports.board_seen(board, now)
            return
        result = reconcile(before, board, to_move)
        if result.explained:
            moves = tuple((c.value, sq) for c, sq in result.moves)
            text = ", ".join(f"{p} {sq or 'pass'}" for p, sq in moves)
            reports.status(LinkState.MOVES_INFERRED,
                           f"sensor board back{away}; moves made meanwhile: {text}",
                           before, board, moves)
            for b in result.boards:
                reports.board_seen(b, now)
            return
        reports.status(
            LinkState.POSITION_UNCERTAIN,
            f"sensor board back{away}; the board changed meanwhile and {result.reason}: "
            "check the position",
            before, board,
        )
        reports.board_seen(board, now)
