"""How strong a configured secret must be: what the service makes passes, guessable ones do not."""

from __future__ import annotations

import secrets

import pytest

from controller.web.tokens import WeakTokenError, check_token_strength


def test_web_token_strength() -> None:
    for _ in range(50):  # what the service makes when none is configured
        check_token_strength(secrets.token_urlsafe(12))
    check_token_strength("s3cret-arbiter-token")
    check_token_strength("correct horse battery staple")
    for weak in ("", "x", "abcdefghijk", "aaaaaaaaaaaaaaaaaaaa", "12341234123412341234",
                 "123456789012345", "password1234"):
        with pytest.raises(WeakTokenError, match="web.token"):
            check_token_strength(weak)
