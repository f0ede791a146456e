"""``kaeshi hub``: the MQTT hub and the dashboard's web app on one asyncio loop.

The MQTT client runs on paho's thread and writes the store there (see ``ingest``);
the dashboard (``controller.hub.web.app.build_app``) is served by Uvicorn on the
loop and hears of every change through the :class:`~controller.hub.ingest.Hub` bus.
"""

from __future__ import annotations

import asyncio
import contextlib
import faulthandler
import logging
import secrets
import signal
import sys
from collections.abc import Callable
from typing import Any

from controller.errors import KaeshiError
from controller.hub.config import HubConfig
from controller.hub.ingest import Hub
from controller.hub.store import HubStore
from controller.terminal import tell_terminal
from controller.web.embed import EmbeddedServer
from controller.web.gate import Gate

log = logging.getLogger("kaeshi.hub")


def build_web(cfg: HubConfig, store: HubStore, hub: Hub) -> tuple[Any, str] | None:
    """The dashboard app and its arbiter token, or None when this build has no web part."""
    try:
        from controller.hub.web.app import HubWebSettings, build_app
    except ImportError as exc:
        log.warning("no hub web pages in this build (%s)", exc)
        return None
    director = None
    if cfg.tournament is not None:
        from controller.hub.director import TournamentDirector
        from controller.tournament_store.store import load

        director = TournamentDirector(load(cfg.tournament)[1], cfg.tournament)
    token = cfg.token or secrets.token_urlsafe(12)
    settings = HubWebSettings(arbiter_token=token, delay=cfg.delay, event_name=cfg.event_name,
                              session_seconds=cfg.session_hours * 3600.0)
    app = build_app(store, hub, director, settings)
    if director is not None:
        resume(director, app)
    return app, token


def resume(director: Any, app: Any) -> None:
    """A round the event file holds complete but unpaired is paired and sent now: the
    restart completes what a crash (or an older file) left half-done."""
    paired = director.resume()
    if not paired:
        return
    log.info("round %d was due: paired on start", paired[0].round)
    try:
        app.state.views.desk.send_pairings(paired)
    except (KaeshiError, OSError, RuntimeError, ValueError) as exc:
        log.warning("round %d paired on start, not sent (Send pairings sends it): %s",
                    paired[0].round, exc)


async def serve_hub(cfg: HubConfig, stop: asyncio.Event | None = None,
                    on_ready: Callable[[Hub, str | None], None] | None = None) -> int:
    """Run until ``stop`` is set or SIGTERM/SIGINT; return the exit status. ``on_ready``
    gets the running hub and the pages' address (None without pages)."""
    stop = stop or asyncio.Event()
    # the MQTT thread waits for the interpreter lock while a page is being built; hand
    # it over more often than every 5 ms so a busy dashboard does not delay the moves
    sys.setswitchinterval(0.0005)
    with contextlib.suppress(AttributeError, ValueError, RuntimeError):
        faulthandler.register(signal.SIGUSR1, all_threads=True)  # kill -USR1: stacks to the log
    loop = asyncio.get_running_loop()
    writer = None
    if cfg.tournament is not None and cfg.web:
        from controller.tournament_store.writer import HUB, acquire

        # while the hub runs it is the event's only writer; the command line goes
        # through its pages (POST /api/tournament/...) or is refused, naming the hub
        writer = acquire(cfg.tournament, HUB, wait=5.0)
    store = HubStore(cfg.store, max_games=cfg.games)
    hub = Hub(cfg.broker, cfg.event, store, tables=cfg.tables)
    hub.start(loop)
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
    server: EmbeddedServer | None = None
    url: str | None = None
    web = build_web(cfg, store, hub) if cfg.web else None
    if web is not None:
        app, token = web
        gate = Gate(cfg.max_connections, per_client=cfg.max_per_client)
        app.state.use_gate(gate)
        server = EmbeddedServer(app, cfg.web_host, cfg.web_port, gate=gate,
                                before_stop=app.state.close_streams)
        try:
            await server.start()
        except OSError as exc:
            print(f"hub: {exc}", file=sys.stderr)
            await asyncio.to_thread(hub.stop)
            store.close()
            if writer is not None:
                writer.release()
            return 1
        app.state.listen()  # the desk takes signed results whether or not a page is open
        url = f"http://{cfg.web_host}:{server.port}"
        print(f"hub web: {url}/  arbiter: {url}/arbiter", flush=True)
        if writer is not None:
            writer.announce(url)
        # the token goes to the person at the terminal only, never to a log file
        if not tell_terminal(f"arbiter: {url}/arbiter?token={token}") and not cfg.token:
            log.warning("web.token is empty and the output is not a terminal: the random "
                        "arbiter token cannot be shown; set [web] token")
    if on_ready is not None:
        on_ready(hub, url)
    print(f"hub: event {cfg.event} on {cfg.broker.host}:{cfg.broker.port}, "
          f"store {cfg.store}", flush=True)
    try:
        await stop.wait()
    finally:
        if server is not None:
            with contextlib.suppress(Exception):
                await server.stop()
        await asyncio.to_thread(hub.stop)
        store.close()
        if writer is not None:
            writer.release()
    return 0
