"""The arbiter's token: strong enough, checked in constant time, guesses slowed down.

A login opens a session: the browser keeps a random cookie, never the token, so a
cookie read off a screen or a proxy log does not reveal what to type into another
device. Sessions live in the server only, so they end: after ``session_seconds``
(a day by default), at logout (on the server: the cookie is worthless afterwards
even if a copy was kept), when the token is changed, and when the server restarts.
Every presented token (address bar, login form, ``Authorization``
header) counts against the client's :class:`~controller.web.guard.FailureLimiter`;
while a client is locked out even the right token is refused, or the lock would
only slow guessing down by the time of one request.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable

from controller.web.guard import FailureLimiter, check_token_strength

COOKIE = "kaeshi_arbiter"
#: How long an arbiter's login lasts unless configured.
SESSION_SECONDS = 24 * 3600.0
#: Sessions kept at most; the oldest ends first (logins are throttled anyway).
MAX_SESSIONS = 512


class ArbiterAuth:
    def __init__(
        self, token: str | None, limiter: FailureLimiter | None = None, cookie: str = COOKIE,
        session_seconds: float = SESSION_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """``token`` empty or None turns the arbiter view off; a weak one raises
        :class:`~controller.web.guard.WeakTokenError`, naming what is needed.

        ``cookie`` names the cookie: browsers share cookies between ports of one host,
        so two apps on one machine (a table and the hall hub) need different names.
        """
        self.cookie = cookie
        self.session_seconds = session_seconds
        self._clock = clock
        self._lock = threading.Lock()
        #: Open sessions: the digest of each cookie (never the cookie) -> when it ends.
        self._sessions: OrderedDict[bytes, float] = OrderedDict()
        self.limiter = limiter if limiter is not None else FailureLimiter()
        self.enabled = False
        self._token = b""
        self.set_token(token)

    def set_token(self, token: str | None) -> None:
        """A new token (None or empty: the arbiter view off) ends every session."""
        if token:
            check_token_strength(token)
        with self._lock:
            self.enabled = bool(token)
            self._token = (token or "").encode("utf-8")
            self._sessions.clear()

    def check_token(self, candidate: str | None) -> bool:
        if not self.enabled or candidate is None:
            return False
        return hmac.compare_digest(candidate.encode("utf-8"), self._token)

    def attempt(self, candidate: str, client: str) -> bool:
        """Check a presented token for ``client``; raise
        :class:`~controller.web.guard.TooManyFailures` while it is locked out."""
        if not self.enabled:
            return False
        self.limiter.check(client)
        if self.check_token(candidate):
            self.limiter.succeeded(client)
            return True
        self.limiter.failed(client)
        return False

    @staticmethod
    def _digest(value: str) -> bytes:
        return hashlib.sha256(value.encode("utf-8", "replace")).digest()

    def check_cookie(self, candidate: str | None) -> bool:
        """Whether ``candidate`` is the cookie of a session still open."""
        if not self.enabled or not candidate or len(candidate) > 100:
            return False
        key = self._digest(candidate)
        with self._lock:
            ends = self._sessions.get(key)
            if ends is None:
                return False
            if self._clock() >= ends:
                del self._sessions[key]
                return False
            return True

    def open_session(self) -> str:
        """A new session's cookie value (after a right token)."""
        value = secrets.token_urlsafe(32)
        now = self._clock()
        with self._lock:
            for key in [k for k, ends in self._sessions.items() if ends <= now]:
                del self._sessions[key]
            while len(self._sessions) >= MAX_SESSIONS:
                self._sessions.popitem(last=False)
            self._sessions[self._digest(value)] = now + self.session_seconds
        return value

    def end_session(self, candidate: str | None) -> None:
        """Logout: the session ends on the server, whatever the browser keeps."""
        if candidate:
            with self._lock:
                self._sessions.pop(self._digest(candidate), None)

    def sessions(self) -> int:
        with self._lock:
            return len(self._sessions)

    def cookie_header(self) -> str:
        """A new session's ``Set-Cookie`` value; the browser forgets it when it ends."""
        return (f"{self.cookie}={self.open_session()}; Path=/; HttpOnly; SameSite=Strict; "
                f"Max-Age={max(1, int(self.session_seconds))}")

    @staticmethod
    def clear_cookie_header(cookie: str = COOKIE) -> str:
        return f"{cookie}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0"
