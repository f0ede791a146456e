"""The connection gate under any sequence of clients (hypothesis stateful): the caps
always hold, the arbiter always gets in while anything can make room, and a newcomer
is refused only when every connection is busy."""

from __future__ import annotations

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from controller.web.gate import STREAMS_PER_CLIENT, Gate

ADDRESSES = [f"10.0.0.{n}" for n in range(1, 7)]
ARBITER = "10.0.0.99"


class Conn:
    def __init__(self, address: str, busy: bool) -> None:
        self.address = address
        self.busy = busy
        self.dropped = False

    def waiting(self) -> bool:
        return not self.busy

    def drop(self) -> None:
        self.dropped = True


class GateMachine(RuleBasedStateMachine):
    @initialize(total=st.integers(8, 40), per_client=st.integers(1, 12))
    def start(self, total: int, per_client: int) -> None:
        self.now = 0.0
        self.gate = Gate(total, per_client=per_client, reserve=4, clock=lambda: self.now)
        self.gate.trust(ARBITER)
        self.open: list[Conn] = []

    def _alive(self) -> list[Conn]:
        self.open = [c for c in self.open if not c.dropped]
        return self.open

    @rule(address=st.sampled_from(ADDRESSES + [ARBITER]), busy=st.booleans())
    def connect(self, address: str, busy: bool) -> None:
        alive = self._alive()
        mine = sum(1 for c in alive if c.address == address)
        evictable = sum(1 for c in alive if c.waiting() and c.address != ARBITER)
        limit = self.gate.total if address == ARBITER else self.gate.total - self.gate.reserve
        before = {id(c) for c in alive}
        conn = Conn(address, busy)
        admitted = self.gate.admit(conn, address)
        needed = len(alive) - limit + 1
        if mine >= self.gate.per_client:
            assert not admitted
        elif needed <= 0 or evictable >= needed:
            assert admitted, (address, len(alive), limit)  # room, or room made
        else:
            assert not admitted  # every connection busy: refused
        dropped = [c for c in alive if c.dropped]
        if admitted:
            # only waiting connections were put out, never the arbiter's, and no more
            # than the newcomer needed
            assert all(c.waiting() and c.address != ARBITER for c in dropped)
            assert len(dropped) == max(0, needed)
            self.open.append(conn)
        else:
            assert not dropped  # nobody put out for nothing
        assert before >= {id(c) for c in self._alive()} - {id(conn)}

    @rule(data=st.data())
    def close(self, data: st.DataObject) -> None:
        alive = self._alive()
        if alive:
            conn = data.draw(st.sampled_from(alive))
            self.gate.release(conn)
            self.open.remove(conn)

    @rule(data=st.data())
    def finish_request(self, data: st.DataObject) -> None:
        alive = self._alive()
        if alive:
            data.draw(st.sampled_from(alive)).busy = False

    @rule(address=st.sampled_from(ADDRESSES))
    def stream(self, address: str) -> None:
        if self.gate.stream_room(address):
            self.gate.open_stream(address)

    @invariant()
    def caps_hold(self) -> None:
        alive = self._alive()
        assert self.gate.open_count() == len(alive) <= self.gate.total
        for address in ADDRESSES + [ARBITER]:
            mine = sum(1 for c in alive if c.address == address)
            assert self.gate.open_count(address) == mine <= self.gate.per_client
        assert all(self.gate._streams.get(a, 0) <= STREAMS_PER_CLIENT for a in ADDRESSES)
        assert self.gate._stream_count <= self.gate.max_streams


TestGate = GateMachine.TestCase
TestGate.settings = settings(max_examples=60, stateful_step_count=40, deadline=None)
