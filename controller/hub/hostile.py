"""A hostile table for tests and the benchmark: one table's credentials, flooding the hub.

It publishes, as fast as asked, a mix of what a broken or malicious table could send on
its own topics: events of ever new game ids (each a well-formed first event), events
after a gap in a game, and junk bytes. It runs in its own process
(``python -m controller.hub.hostile``) so its own work does not slow the process that
measures the others.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from controller.hall_protocol.mqtt import BrokerSettings, make_client
from controller.hall_protocol.protocol import EventMessage, encode_event
from controller.hall_protocol.topics import Topics

#: The game ids it invents start with this, so a test can look for them anywhere.
BOGUS = "bogus-game-"


def messages(table: int, n: int) -> tuple[str, bytes]:
    """The ``n``-th message: (kind of topic, payload)."""
    move = {"t": float(n), "event": "move", "player": "black", "square": "f5", "flips": ["e5"]}
    which = n % 4
    if which in (0, 1):  # a new game, every time
        return "events", encode_event(EventMessage(table, f"{BOGUS}{n}", 1, move))
    if which == 2:  # a gap in one game
        return "events", encode_event(EventMessage(table, f"{BOGUS}gap", 5 + n, move))
    return "events", b"\xff\x00junk" + str(n).encode()  # not even JSON


def flood(settings: BrokerSettings, event: str, table: int, rate: float, seconds: float,
          broker_only: bool = False) -> int:
    """Publish at ``rate`` messages a second for ``seconds``; the number sent.
    ``broker_only``: on the table's ``ack`` topic, which the ACL lets no table write, so
    the broker drops it all and the hub never sees it (the flood's cost to the machine
    alone, for comparison)."""
    topics = Topics(event)
    # made before the clock starts, so the flood's own work is the publishing alone
    payloads = [messages(table, n) for n in range(min(int(rate * seconds) + 1, 200_000))]
    names = {kind: topics.table(table, "ack" if broker_only else kind)  # type: ignore[arg-type]
             for kind in {k for k, _ in payloads}}
    client = make_client(settings, f"hostile-{table}-{time.monotonic_ns()}",
                         clean_session=True)
    client.max_queued_messages_set(0)
    client.connect(settings.host, settings.port, keepalive=30)
    client.loop_start()
    sent = 0
    start = time.monotonic()
    try:
        while (now := time.monotonic()) - start < seconds:
            due = int((now - start) * rate)
            while sent < due and sent < len(payloads):
                kind, payload = payloads[sent]
                client.publish(names[kind], payload, qos=0)
                sent += 1
            time.sleep(0.002)
    finally:
        client.disconnect()
        client.loop_stop()
    return sent


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="python -m controller.hub.hostile")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--table", type=int, required=True)
    p.add_argument("--password", required=True)
    p.add_argument("--event", required=True)
    p.add_argument("--rate", type=float, default=10_000.0)
    p.add_argument("--seconds", type=float, default=10.0)
    p.add_argument("--broker-only", action="store_true",
                   help="flood a topic the ACL refuses: the broker drops it, the hub never "
                   "sees it (the machine's share of the cost, for comparison)")
    args = p.parse_args(argv)
    settings = BrokerSettings("127.0.0.1", args.port, str(args.table), args.password)
    start = time.monotonic()
    sent = flood(settings, args.event, args.table, args.rate, args.seconds,
                 args.broker_only)
    print(json.dumps({"sent": sent, "seconds": round(time.monotonic() - start, 3)}),
          flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
