"""The hall's MQTT payloads: every message of the topic tree, defined once for both sides.

Tables publish under ``kaeshi/EVENT/table/N/...``; the hub subscribes to the whole
tree and writes back only ``ack`` and ``down``. Payloads are small JSON objects with
a version ``v``. Whatever arrives from the network is untrusted: :func:`decode`
checks every field a reader relies on and raises :class:`ProtocolError` naming the
topic and the field, so a receiver can log the message and drop it instead of
falling over on a typo or a hostile client.

The topic strings are in :mod:`controller.hall_protocol.topics`.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from controller import strictjson
from controller.boardsize import STANDARD, board_size
from controller.hall_protocol.cardwire import (
    decode_late,
    decode_signoff,
    encode_late,
    encode_signoff,
)
from controller.hall_protocol.checks import (
    CLOCK_HIGH,
    CLOCK_LOW,
    GAME_RE,
    IRREGULARITY_KINDS,
    MAX_DEPTH,
    WALL_HIGH,
    WALL_LOW,
    Reader,
    check_command_args,
    check_event,
    check_position,
    load_payload,
    patterns,
)
from controller.hall_protocol.checks import COLORS as COLORS  # re-exported: one import for callers
from controller.hall_protocol.checks import COMMANDS as COMMANDS
from controller.hall_protocol.checks import EVENT_KINDS as EVENT_KINDS
from controller.hall_protocol.checks import MAX_PAYLOAD as MAX_PAYLOAD
from controller.hall_protocol.checks import MAX_TABLE as MAX_TABLE
from controller.hall_protocol.checks import MODES as MODES
from controller.hall_protocol.checks import VERSION as VERSION
from controller.hall_protocol.checks import ProtocolError as ProtocolError
from controller.scorecard import LateArrival, SignOff

ChangeKind = Literal["state", "event", "online"]


# ------------------------------------------------------------------------- payloads
@dataclass(frozen=True, slots=True)
class ClockState:
    black_ms: int
    white_ms: int
    running: str | None  # "black" | "white" | None
    at: float  # the table's wall time of this reading
    paused: bool = False
    flag: str | None = None  # whose flag has fallen, if any


@dataclass(frozen=True, slots=True)
class GameResult:
    black: int
    white: int
    winner: str  # "black" | "white" | "draw"
    reason: str | None = None  # e.g. "time" when the clock decided it


@dataclass(frozen=True, slots=True)
class TableState:
    """Everything a late-joining dashboard needs about one table, in one retained message."""

    table: int
    game: str
    round: int | None
    black: str
    white: str
    mode: str
    service: str
    board: str
    to_move: str | None
    clock: ClockState | None
    irregularities: list[dict[str, Any]] = field(default_factory=list)
    result: GameResult | None = None
    seq: int = 0  # the last event seq of this game the table has journaled
    moves: int = 0  # moves played so far
    wall: float = 0.0  # the table's wall time when this state was taken
    #: Rule 15 at the table: the players' signatures of ``result`` (None: the table
    #: does not ask them, so the arbiter confirms); see controller.hall_protocol.cardwire.
    signoff: SignOff | None = None
    late: LateArrival | None = None  # rules 11–12: a player absent at the round's start
    size: int = STANDARD  # of the board; on the wire only when not 8 (as before sizes)
    #: Why the table refuses the hub's pairing (its board is not the event's), in words
    #: for the arbiter; None while it refuses nothing (then not on the wire).
    refusal: str | None = None


@dataclass(frozen=True, slots=True)
class EventMessage:
    """One journaled event of a game, numbered 1, 2, ... within the game."""

    table: int
    game: str
    seq: int
    event: dict[str, Any]
    wall: float | None = None  # the table's wall time when the event was journaled
    #: The official board (64 of ``-XO``) after the step that made the event, and who
    #: moves next (None once the game is over); None from a table that does not say.
    #: After a fault nobody pointed out it is the board as it stands on the table, so
    #: a broadcast follows the game where replaying the moves under the rules cannot.
    board: str | None = None
    to_move: str | None = None
    size: int = STANDARD  # of the board; on the wire only when not 8 (as before sizes)


@dataclass(frozen=True, slots=True)
class Ack:
    """The hub's last stored seq of a game; ``resend`` asks for everything after it now."""

    game: str
    seq: int
    resend: bool = False


@dataclass(frozen=True, slots=True)
class DownlinkCommand:
    """An order from the hub to one table.

    ``args`` by command: ``adjust_time``: ``color``, ``seconds``; ``correct_board``:
    ``board``; ``next_game``: ``round``, ``black``, ``white``, ``draw_win_right``
    (``none|black|white``), ``minutes``, ``draws_allowed``, ``size`` (the event's board;
    absent: 8x8, as every pairing was before other sizes; see :func:`next_game`);
    ``toss``: ``round``, ``black``, ``white``, ``draw_win_right`` (see :func:`toss`).
    """

    command: str
    args: dict[str, Any] = field(default_factory=dict)
    id: str = field(default_factory=lambda: uuid.uuid4().hex)


@dataclass(frozen=True, slots=True)
class TableStatus:
    table: int
    online: bool
    state: TableState | None
    last_seen: float  # hub wall time of the last message from the table


@dataclass(frozen=True, slots=True)
class StoredEvent:
    table: int
    game: str
    seq: int
    received: float  # hub wall time
    event: dict[str, Any]
    wall: float | None = None  # table wall time when journaled, if it said
    board: str | None = None  # the official position after it (EventMessage.board)
    to_move: str | None = None


class GameKey(NamedTuple):
    table: int
    game: str


@dataclass(frozen=True, slots=True)
class HubChange:
    table: int
    kind: ChangeKind
    seq: int | None = None
    game: str | None = None


def next_game(
    round: int, black: str, white: str, *, minutes: float = 20.0,
    draw_win_right: str = "none", draws_allowed: bool = True, size: int = STANDARD,
) -> DownlinkCommand:
    """The ``next_game`` order built from a tournament director's pairing, on the event's
    board of ``size`` (on the wire only when not 8, so a table from before sizes reads an
    8x8 pairing as it always did)."""
    args = {"round": round, "black": black, "white": white, "minutes": minutes,
            "draw_win_right": draw_win_right, "draws_allowed": draws_allowed, "size": size}
    check_command_args("next_game", "next_game", args)  # 8.0 or True is no size either
    if size == STANDARD:
        del args["size"]
    return DownlinkCommand("next_game", args)


def pairing_size(cmd: DownlinkCommand) -> int:
    """The board a ``next_game`` order pairs the game on (checked by its reader): the
    event's size, or 8x8 from a hub that names none."""
    return int(cmd.args.get("size", STANDARD))


def toss(round: int, black: str, white: str, draw_win_right: str) -> DownlinkCommand:
    """The 伏せ石 of round ``round``'s game at the table, as the director recorded it:
    the colours (which may differ from the pairing's until the first move) and who
    wins a 32–32 board."""
    cmd = DownlinkCommand("toss", {"round": round, "black": black, "white": white,
                                   "draw_win_right": draw_win_right})
    check_command_args("toss", cmd.command, cmd.args)
    return cmd


# ------------------------------------------------------------------------- encoding
def _dumps(obj: dict[str, Any]) -> bytes:
    """Clean JSON only (:mod:`controller.strictjson`): no NaN, no lone surrogate."""
    try:
        return strictjson.dumps(obj, MAX_DEPTH).encode()
    except strictjson.StrictJSONError as exc:
        raise ProtocolError(f"cannot encode: {exc}") from None


def encode_state(s: TableState) -> bytes:
    """The retained state; refused (:class:`ProtocolError`) where :func:`decode_state`
    would refuse it, so a table never publishes what the hub drops."""
    payload = _encode_state(s)
    decode_state(payload, s.table, "encoding a state")
    return payload


def _encode_state(s: TableState) -> bytes:
    return _dumps({
        "v": VERSION, "table": s.table, "game": s.game, "round": s.round,
        "black": s.black, "white": s.white, "mode": s.mode, "service": s.service,
        "board": s.board, "to_move": s.to_move,
        "clock": None if s.clock is None else {
            "black_ms": s.clock.black_ms, "white_ms": s.clock.white_ms,
            "running": s.clock.running, "at": s.clock.at, "paused": s.clock.paused,
            "flag": s.clock.flag,
        },
        "irregularities": s.irregularities,
        "result": None if s.result is None else {
            "black": s.result.black, "white": s.result.white, "winner": s.result.winner,
            **({"reason": s.result.reason} if s.result.reason else {}),
        },
        "seq": s.seq, "moves": s.moves, "wall": s.wall,
        **({"signoff": encode_signoff(s.signoff)} if s.signoff is not None else {}),
        **({"late": encode_late(s.late)} if s.late is not None else {}),
        **({"size": s.size} if s.size != STANDARD else {}),
        **({"refusal": s.refusal} if s.refusal is not None else {}),
    })


def encode_event(m: EventMessage) -> bytes:
    """One event message; refused where :func:`decode_event` would refuse it."""
    payload = _encode_event(m)
    decode_event(payload, m.table, "encoding an event")
    return payload


def _encode_event(m: EventMessage) -> bytes:
    d: dict[str, Any] = {"v": VERSION, "table": m.table, "game": m.game, "seq": m.seq,
                         "event": m.event}
    if m.wall is not None:
        d["wall"] = m.wall
    if m.board is not None:
        d["board"] = m.board
        d["to_move"] = m.to_move
    if m.size != STANDARD:
        d["size"] = m.size
    return _dumps(d)


def encode_ack(a: Ack) -> bytes:
    d: dict[str, Any] = {"v": VERSION, "game": a.game, "seq": a.seq}
    if a.resend:
        d["resend"] = True
    payload = _dumps(d)
    decode_ack(payload, "encoding an ack")
    return payload


def encode_command(c: DownlinkCommand) -> bytes:
    """An order to a table; refused where :func:`decode_command` would refuse it."""
    check_command_args("down", c.command, c.args)
    payload = _dumps({"v": VERSION, "id": c.id, "command": c.command, **c.args})
    decode_command(payload, "down")
    return payload


ONLINE = b"1"
OFFLINE = b"0"


# ------------------------------------------------------------------------- decoding
def decode_event(payload: bytes, table: int, where: str = "events") -> EventMessage:
    r = load_payload(where, payload)
    if r.int("table", 1, MAX_TABLE) != table:
        raise r.fail("table", f"{table} (the table of the topic)")
    size = r.board_size()
    board, to_move = check_position(r)
    return EventMessage(
        table=table,
        game=r.str("game", GAME_RE),
        seq=r.int("seq", 1),
        event=check_event(r.obj("event")),
        wall=r.num("wall", null=True, low=WALL_LOW, high=WALL_HIGH),
        board=board,
        to_move=to_move,
        size=size,
    )


def decode_state(payload: bytes, table: int, where: str = "state") -> TableState:
    r = load_payload(where, payload)
    if r.int("table", 1, MAX_TABLE) != table:
        raise r.fail("table", f"{table} (the table of the topic)")
    size = r.board_size()
    squares = board_size(size).squares
    c = r.obj("clock", null=True)
    low, high = int(CLOCK_LOW * 1000), int(CLOCK_HIGH * 1000)
    clock = None if c is None else ClockState(
        black_ms=c.int("black_ms", low, high), white_ms=c.int("white_ms", low, high),
        running=c.choice("running", COLORS, null=True),
        at=c.num("at", low=WALL_LOW, high=WALL_HIGH),
        paused=c.bool("paused"), flag=c.choice("flag", COLORS, null=True),
    )
    res = r.obj("result", null=True)
    result = None if res is None else GameResult(
        black=res.int("black", 0, squares), white=res.int("white", 0, squares),
        winner=res.choice("winner", (*COLORS, "draw")),
        reason=res.str("reason", re.compile(r"^[a-z_]{1,40}$"), null=True),
    )
    if result is not None and result.black + result.white > squares:
        raise res.fail("white", f"a count that leaves black's {result.black} within "
                                f"the {squares} squares")
    flags = r.d.get("irregularities", [])
    if not isinstance(flags, list) or len(flags) > squares:
        raise r.fail("irregularities", "a list")
    for i, f in enumerate(flags):
        fr = Reader(f"{where} irregularities[{i}]", f, size)
        fr.choice("kind", IRREGULARITY_KINDS)
        fr.squares("squares")
        fr.choice("player", COLORS, null=True)
        fr.int("n", 0, 200, null=True)
        fr.num("at", null=True, low=WALL_LOW, high=WALL_HIGH)
        if "fix" in f:
            fr.squares("fix")
        fr.bool("pointed_out")
    return TableState(
        table=table,
        game=r.str("game", GAME_RE),
        round=r.int("round", 0, 10_000, null=True),
        black=r.name("black"),
        white=r.name("white"),
        mode=r.choice("mode", MODES),
        service=r.str("service", re.compile(r"^[a-z_]{1,40}$")),
        board=r.str("board", patterns(size)[2]),
        to_move=r.choice("to_move", COLORS, null=True),
        clock=clock,
        irregularities=[dict(f) for f in flags],
        result=result,
        seq=r.int("seq", 0),
        moves=r.int("moves", 0, 200) if "moves" in r.d else 0,
        wall=r.num("wall", low=WALL_LOW, high=WALL_HIGH) if "wall" in r.d else 0.0,
        signoff=decode_signoff(r.obj("signoff", null=True)),
        late=decode_late(r.obj("late", null=True)),
        size=size,
        refusal=r.name("refusal", max_len=300) if r.d.get("refusal") is not None else None,
    )


def decode_ack(payload: bytes, where: str = "ack") -> Ack:
    r = load_payload(where, payload)
    return Ack(game=r.str("game", GAME_RE), seq=r.int("seq", 0), resend=r.bool("resend"))


def decode_command(payload: bytes, where: str = "down") -> DownlinkCommand:
    r = load_payload(where, payload)
    cid = r.str("id", re.compile(r"^[A-Za-z0-9_-]{1,64}$"))
    command = r.choice("command", COMMANDS)
    args = {k: v for k, v in r.d.items() if k not in ("v", "id", "command")}
    check_command_args(where, command, args)
    return DownlinkCommand(command=command, args=args, id=cid)


def decode_online(payload: bytes, where: str = "online") -> bool:
    if payload in (ONLINE, OFFLINE):
        return payload == ONLINE
    raise ProtocolError(f"{where}: an online flag is '1' or '0', not {payload[:20]!r}")
