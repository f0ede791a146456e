"""The arbiter's token: checked in constant time; the browser keeps a derived cookie.

The cookie holds an HMAC of the token, not the token itself, so a cookie read off a
screen or a proxy log does not reveal what to type into another device.
"""

from __future__ import annotations

import hashlib
import hmac

COOKIE = "kaeshi_arbiter"


class ArbiterAuth:
    def __init__(self, token: str | None) -> None:
        self.enabled = bool(token)
        self._token = (token or "").encode("utf-8")
        self._cookie = hmac.new(self._token, b"kaeshi arbiter view", hashlib.sha256).hexdigest()

    def check_token(self, candidate: str | None) -> bool:
        if not self.enabled or candidate is None:
            return False
        return hmac.compare_digest(candidate.encode("utf-8"), self._token)

    def check_cookie(self, candidate: str | None) -> bool:
        if not self.enabled or candidate is None:
            return False
        return hmac.compare_digest(candidate.encode("utf-8"), self._cookie.encode("ascii"))

    def cookie_header(self) -> str:
        return f"{COOKIE}={self._cookie}; Path=/; HttpOnly; SameSite=Strict"

    @staticmethod
    def clear_cookie_header() -> str:
        return f"{COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0"
