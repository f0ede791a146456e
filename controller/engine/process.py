"""An engine child process: lines in and out through pipes, with a deadline on every read.

A reader thread moves the engine's output into a bounded queue, so a read can wait
with a timeout however the engine behaves: slow, silent, dead or flooding garbage.
Any of those ends in :class:`EngineGone` naming what happened; the caller decides
whether to start it again. This is the edge where the subprocess lives.
"""

from __future__ import annotations

import collections
import contextlib
import os
import queue
import shlex
import subprocess
import sys
import threading
import time
from pathlib import Path

from controller.errors import KaeshiError

#: Lines waiting to be read; an engine that floods more blocks on its pipe instead.
QUEUE_LINES = 10_000
#: Longest line kept; a longer one is cut (a garbage flood has no line ends).
LINE_CHARS = 4_096


class EngineGone(KaeshiError):
    """The engine cannot be used: it would not start, died, hung or spoke nonsense."""


class EngineLate(EngineGone):
    """No line came before the deadline; the engine may still be thinking."""


def own_engine_argv(protocol: str, level: int, seconds: float = 5.0) -> list[str]:
    """The command that starts the project's own engine with this Python."""
    return [sys.executable, "-m", "controller.engine.own", "--protocol", protocol,
            "--level", str(level), "--seconds", f"{seconds:g}"]


def split_command(command: str) -> list[str]:
    """A configured command line as argv; the program must exist (a clear error if not)."""
    argv = shlex.split(command)
    if not argv:
        raise EngineGone("no engine command configured")
    return argv


class EngineProcess:
    """A started engine: ``send`` a line, ``read`` one before a deadline, ``close``."""

    def __init__(self, argv: list[str], cwd: str | None = None) -> None:
        self.argv = argv
        program = Path(argv[0])
        # an engine reads its evaluation weights beside itself (Edax's data/, Egaroucid's
        # resources/): start it in its own folder unless told otherwise
        if cwd is None and program.parent != Path(".") and program.is_file():
            cwd = str(program.parent)
        try:
            self.proc = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, text=True, encoding="utf-8", errors="replace",
                bufsize=1, cwd=cwd, env={**os.environ, "PYTHONUNBUFFERED": "1"},
            )
        except OSError as exc:
            raise EngineGone(f"cannot start {argv[0]}: {exc.strerror or exc}") from None
        self._lines: queue.Queue[str | None] = queue.Queue(QUEUE_LINES)
        #: The engine's last words on stderr, for the message when it dies.
        self.stderr_tail: collections.deque[str] = collections.deque(maxlen=5)
        threading.Thread(target=self._pump, daemon=True, name="engine-out").start()
        threading.Thread(target=self._drain_err, daemon=True, name="engine-err").start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        with contextlib.suppress(ValueError, OSError):
            while True:
                line = self.proc.stdout.readline(LINE_CHARS)
                if not line:
                    break
                self._lines.put(line.rstrip("\r\n"))
        self._lines.put(None)

    def _drain_err(self) -> None:
        assert self.proc.stderr is not None
        with contextlib.suppress(ValueError, OSError):
            for line in self.proc.stderr:
                if line.strip():
                    self.stderr_tail.append(line.strip()[:200])

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def _exited(self) -> EngineGone:
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(0.5)
        code = self.proc.poll()
        said = f": {self.stderr_tail[-1]}" if self.stderr_tail else ""
        how = "closed its output" if code is None else f"exited with code {code}"
        return EngineGone(f"the engine {how}{said}")

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        except (OSError, ValueError):
            raise self._exited() from None

    def read(self, deadline: float) -> str:
        """The next line, or :class:`EngineGone` if none comes before ``deadline``
        (``time.monotonic()`` seconds)."""
        wait = deadline - time.monotonic()
        try:
            line = self._lines.get(timeout=max(0.0, wait)) if wait > 0 else \
                self._lines.get_nowait()
        except queue.Empty:
            raise EngineLate("the engine did not answer in time") from None
        if line is None:
            self._lines.put(None)  # every later read sees the end too
            raise self._exited()
        return line

    def close(self) -> None:
        """Ask it to quit, then make sure it is gone (it may be hung)."""
        if self.alive:
            with contextlib.suppress(OSError, ValueError):
                assert self.proc.stdin is not None
                self.proc.stdin.write("quit\n")
                self.proc.stdin.flush()
            try:
                self.proc.wait(0.5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self.proc.wait(2)
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            with contextlib.suppress(OSError, ValueError):
                if stream is not None:
                    stream.close()
