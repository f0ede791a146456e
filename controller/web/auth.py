"""The arbiter's token: strong enough, checked in constant time, guesses slowed down.

The browser keeps a derived cookie: it holds an HMAC of the token, not the token
itself, so a cookie read off a screen or a proxy log does not reveal what to type into
another device. Every presented token (address bar, login form, ``Authorization``
header) counts against the client's :class:`~controller.web.guard.FailureLimiter`;
while a client is locked out even the right token is refused, or the lock would
only slow guessing down by the time of one request.
"""

from __future__ import annotations

import hashlib
import hmac

from controller.web.guard import FailureLimiter, check_token_strength

COOKIE = "kaeshi_arbiter"


class ArbiterAuth:
    def __init__(
        self, token: str | None, limiter: FailureLimiter | None = None, cookie: str = COOKIE
    ) -> None:
        """``token`` empty or None turns the arbiter view off; a weak one raises
        :class:`~controller.web.guard.WeakTokenError`, naming what is needed.

        ``cookie`` names the cookie: browsers share cookies between ports of one host,
        so two apps on one machine (a table and the hall hub) need different names.
        """
        self.cookie = cookie
        self.enabled = bool(token)
        if token:
            check_token_strength(token)
        self._token = (token or "").encode("utf-8")
        self._cookie = hmac.new(self._token, b"kaeshi arbiter view", hashlib.sha256).hexdigest()
        self.limiter = limiter if limiter is not None else FailureLimiter()

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

    def check_cookie(self, candidate: str | None) -> bool:
        if not self.enabled or candidate is None:
            return False
        return hmac.compare_digest(candidate.encode("utf-8"), self._cookie.encode("ascii"))

    def cookie_header(self) -> str:
        return f"{self.cookie}={self._cookie}; Path=/; HttpOnly; SameSite=Strict"

    @staticmethod
    def clear_cookie_header(cookie: str = COOKIE) -> str:
        return f"{cookie}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0"
