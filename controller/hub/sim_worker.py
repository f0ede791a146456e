"""The worker of ``kaeshi hub simulate``: several real table services in one process.

``python -m controller.hub.sim_worker CONFIG...`` runs one ``kaeshi run`` service per
table configuration on one event loop, until SIGTERM; the hall (:mod:`.simulate`)
starts a few of these so a PC can hold a whole hall.
"""

from __future__ import annotations

import asyncio
import signal
import sys

from controller.errors import KaeshiError


async def _run_tables(configs: list[str]) -> int:
    """Run several table services on one loop until SIGTERM (the replays end on their own,
    but a table stays on after its game, as in the hall)."""
    from controller.service.app import Service
    from controller.service.config import load_config

    # dozens of tables share this process: let each one's MQTT threads have the
    # interpreter lock often enough (a real table has a Pi to itself)
    sys.setswitchinterval(0.001)
    services = []
    for path in configs:
        service = Service(load_config(path), exit_when_done=False)
        service.open()
        services.append(service)
    tasks = [asyncio.create_task(s.run()) for s in services]
    await asyncio.sleep(0.5)  # each service sets its own signal handlers; ours win
    loop = asyncio.get_running_loop()

    def stop_all() -> None:
        for s in services:
            s.stop()

    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop_all)
    await asyncio.gather(*tasks, return_exceptions=True)
    return 0


def main(argv: list[str]) -> int:
    import logging

    if not argv:
        print("usage: python -m controller.hub.sim_worker CONFIG...", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.WARNING,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        return asyncio.run(_run_tables(argv))
    except KaeshiError as exc:
        print(f"kaeshi: error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
