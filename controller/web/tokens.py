"""How strong a configured secret must be; pure, so configuration checks can use it too."""

from __future__ import annotations

import math
import string

from controller.errors import KaeshiError


class WeakTokenError(KaeshiError):
    """A configured secret that a guesser could find; the message says what is needed."""


MIN_TOKEN_LENGTH = 12
MIN_TOKEN_BITS = 64.0
MIN_DISTINCT = 8
_CLASSES = (string.ascii_lowercase, string.ascii_uppercase, string.digits)


def token_bits(token: str) -> float:
    """A generous estimate of a token's strength: length x log2(size of the alphabets it
    draws on). Generous on purpose — it only has to refuse the plainly weak."""
    pool = sum(len(c) for c in _CLASSES if any(ch in c for ch in token))
    if any(not any(ch in c for c in _CLASSES) for ch in token):
        pool += 33  # punctuation, space and anything else
    return len(token) * math.log2(pool) if pool > 1 else 0.0


def check_token_strength(token: str, name: str = "web.token") -> None:
    """Refuse a token that is short, repetitive or drawn from too small an alphabet."""
    advice = ("use at least 16 random characters, e.g. the output of "
              "`python3 -c 'import secrets; print(secrets.token_urlsafe(16))'`, "
              "or leave it empty for a random one printed at start-up")
    if len(token) < MIN_TOKEN_LENGTH:
        raise WeakTokenError(
            f"{name} is too short ({len(token)} characters, at least {MIN_TOKEN_LENGTH}): "
            f"{advice}"
        )
    if len(set(token)) < MIN_DISTINCT:
        raise WeakTokenError(
            f"{name} repeats too few characters ({len(set(token))} different, at least "
            f"{MIN_DISTINCT}): {advice}"
        )
    if token_bits(token) < MIN_TOKEN_BITS:
        raise WeakTokenError(
            f"{name} is too easy to guess (about {token_bits(token):.0f} bits, at least "
            f"{MIN_TOKEN_BITS:.0f}): {advice}"
        )
