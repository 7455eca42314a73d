"""Nonce modes: where the suffix of an envelope's tag name comes from.

A nonce is 32 lowercase hex characters (128 bits). Retrieved text cannot close an envelope whose
nonce it cannot predict, so the nonce is drawn by the library, never taken from the caller.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass, field
from typing import Final

NONCE_HEX_CHARS: Final = 32
"""Nonce length in hex characters: 128 bits."""

MIN_KEY_BYTES: Final = 16
"""A keyed nonce is only as unpredictable as its key: at least 128 bits."""

# Domain-separates our HMAC messages from any other use of the caller's key; the attempt number
# (digits) and the id are NUL-separated, so distinct (attempt, id) pairs never share a message.
_KEYED_PREFIX: Final = b"thrift_fp.render.nonce\x00"


@dataclass(frozen=True, slots=True)
class RandomNonce:
    """A fresh nonce per record per render: 128 bits from `secrets`.

    >>> nonce = RandomNonce().draw("doc-1", 0)
    >>> len(nonce), nonce != RandomNonce().draw("doc-1", 0)
    (32, True)
    """

    def draw(self, record_id: str, attempt: int) -> str:
        """A new unpredictable nonce; ``record_id`` and ``attempt`` do not influence it.

        >>> int(RandomNonce().draw("x", 3), 16) >= 0
        True
        """
        return secrets.token_hex(NONCE_HEX_CHARS // 2)


@dataclass(frozen=True, slots=True)
class KeyedNonce:
    """``HMAC-SHA256(key, record id)`` cut to 128 bits: stable across turns, unpredictable without the key.

    The same record then renders byte-identically on every turn (prompt caching). ``key`` needs at
    least `MIN_KEY_BYTES` bytes (e.g. ``secrets.token_bytes(32)``); rendering with a shorter key is
    an error value. The key never appears in ``repr``.

    >>> mode = KeyedNonce(b"k" * 32)
    >>> mode.draw("doc-1", 0) == mode.draw("doc-1", 0)
    True
    >>> mode.draw("doc-1", 0) != mode.draw("doc-1", 1)
    True
    >>> mode
    KeyedNonce()
    """

    key: bytes = field(repr=False)

    def draw(self, record_id: str, attempt: int) -> str:
        """The nonce for ``record_id``; ``attempt`` > 0 re-derives deterministically after a collision.

        >>> KeyedNonce(bytes(16)).draw("doc-1", 0)
        'd78c505f4de326130a9f3a9a1ddbee11'
        """
        message = (
            _KEYED_PREFIX
            + str(attempt).encode("ascii")
            + b"\x00"
            + record_id.encode("utf-8", "surrogatepass")
        )
        return hmac.new(self.key, message, hashlib.sha256).hexdigest()[:NONCE_HEX_CHARS]


NonceMode = RandomNonce | KeyedNonce
