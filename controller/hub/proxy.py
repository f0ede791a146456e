"""A TCP relay that can cut a table's network: the simulated hall's pulled cable.

While cut, live connections are closed and new ones are accepted and dropped at
once, as a switch port gone dead would look to the client after its reconnect
attempts. Used by ``kaeshi hub simulate``, the fault tests and the benchmark, in
a process of its own (:class:`ProxyProcess`).
"""

from __future__ import annotations

import contextlib
import signal
import socket
import subprocess
import sys
import threading


class CutProxy:
    """Relays ``127.0.0.1:port`` to ``127.0.0.1:target``; :meth:`cut` / :meth:`restore`."""

    def __init__(self, target: int) -> None:
        self.target = target
        self._server = socket.socket()
        self._server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._server.bind(("127.0.0.1", 0))
        self._server.listen(512)
        self.port = int(self._server.getsockname()[1])
        self._cut = threading.Event()
        self._closed = threading.Event()
        self._lock = threading.Lock()
        self._live: set[socket.socket] = set()
        threading.Thread(target=self._accept, name="proxy", daemon=True).start()

    def cut(self) -> None:
        self._cut.set()
        with self._lock:
            live, self._live = self._live, set()
        for s in live:
            _close(s)

    def restore(self) -> None:
        self._cut.clear()

    def close(self) -> None:
        self._closed.set()
        self.cut()
        _close(self._server)

    def _accept(self) -> None:
        while not self._closed.is_set():
            try:
                client, _ = self._server.accept()
            except OSError:
                return
            if self._cut.is_set():
                _close(client)
                continue
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target), timeout=5)
                upstream.settimeout(None)
            except OSError:
                _close(client)
                continue
            with self._lock:
                self._live.update((client, upstream))
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket) -> None:
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                dst.sendall(data)
        except OSError:
            pass
        for s in (src, dst):
            _close(s)
        with self._lock:
            self._live.discard(src)
            self._live.discard(dst)


def _close(s: socket.socket) -> None:
    with contextlib.suppress(OSError):
        s.shutdown(socket.SHUT_RDWR)
    with contextlib.suppress(OSError):
        s.close()


class ProxyProcess:
    """A :class:`CutProxy` in its own process, so relaying never waits for the caller's
    Python work (the benchmark reads 200 journals while 200 tables talk through it).
    SIGUSR1 cuts, SIGUSR2 restores."""

    def __init__(self, target: int) -> None:
        from controller.hub.broker import die_with_parent

        self.proc = subprocess.Popen(
            [sys.executable, "-m", "controller.hub.proxy", str(target)],
            stdout=subprocess.PIPE, start_new_session=True, preexec_fn=die_with_parent,
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline().decode().strip()
        if not line.isdigit():
            self.proc.kill()
            raise OSError(f"the relay did not start (said {line!r})")
        self.port = int(line)

    def cut(self) -> None:
        self.proc.send_signal(signal.SIGUSR1)

    def restore(self) -> None:
        self.proc.send_signal(signal.SIGUSR2)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)


def main(argv: list[str]) -> int:
    proxy = CutProxy(int(argv[0]))
    signal.signal(signal.SIGUSR1, lambda *a: proxy.cut())
    signal.signal(signal.SIGUSR2, lambda *a: proxy.restore())
    print(proxy.port, flush=True)
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *a: done.set())
    while not done.wait(1.0):
        pass
    proxy.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
