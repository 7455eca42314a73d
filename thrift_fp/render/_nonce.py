"""Nonce modes: where the digits in a block's tags come from.

A nonce is `NONCE_DIGITS` (20) ASCII decimal digits, 66 bits. Digits are the cheapest alphabet we
measured: tiktoken's cl100k_base and o200k_base split a digit run into groups of three, so every
nonce costs exactly 7 tokens (base32 costs 8 to 13 depending on the draw, hex 19 to 26), and a
record's price does not depend on the draw. Retrieved text cannot end a block whose nonce it cannot
predict, so the nonce is drawn by the library, after the content is fixed, never taken from the
caller; `_choose` re-draws any nonce that some rendered text already shows.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import field
from typing import Final

from thrift_fp._value import value

NONCE_DIGITS: Final = 20
"""Nonce length in decimal digits: 10**20 > 2**66 values."""

MIN_KEY_BYTES: Final = 16
"""A keyed nonce is only as unpredictable as its key: at least 128 bits."""

_SPACE: Final = 10**NONCE_DIGITS
# Domain-separates our HMAC messages from any other use of the caller's key; the attempt number
# (digits) and the block name are NUL-separated, so distinct pairs never share a message.
_KEYED_PREFIX: Final = b"thrift_fp.render.nonce.v2\x00"


@value
class RandomNonce:
    """A fresh nonce per block per render, from `secrets`.

    >>> nonce = RandomNonce().draw("corpus", 0)
    >>> len(nonce), nonce.isdigit(), nonce != RandomNonce().draw("corpus", 0)
    (20, True, True)
    """

    def draw(self, block: str, attempt: int) -> str:
        """A new unpredictable nonce; ``block`` and ``attempt`` do not influence it.

        >>> len(RandomNonce().draw("third-party-public", 3))
        20
        """
        return f"{secrets.randbelow(_SPACE):0{NONCE_DIGITS}d}"


@value
class KeyedNonce:
    """``HMAC-SHA256(key, block name)`` as 20 digits: stable across turns, unpredictable without the key.

    Every block then renders byte-identically on every turn (prompt caching), as long as no
    rendered text shows its nonce. ``key`` needs at least `MIN_KEY_BYTES` bytes; make it with
    ``secrets.token_bytes(32)`` and keep it where your other secrets live (an environment variable
    or secret store), never in code. Rendering with a shorter key is an error value. The key never
    appears in ``repr``.

    >>> mode = KeyedNonce(b"k" * 32)
    >>> mode.draw("corpus", 0) == mode.draw("corpus", 0)
    True
    >>> mode.draw("corpus", 0) != mode.draw("corpus", 1)
    True
    >>> mode
    KeyedNonce()
    """

    key: bytes = field(repr=False)

    def draw(self, block: str, attempt: int) -> str:
        """The nonce for ``block``; ``attempt`` > 0 re-derives deterministically after a collision.

        >>> KeyedNonce(bytes(16)).draw("corpus", 0)
        '36969005704194258815'
        """
        message = _KEYED_PREFIX + str(attempt).encode("ascii") + b"\x00" + block.encode("utf-8", "surrogatepass")
        digest = hmac.new(self.key, message, hashlib.sha256).digest()
        # 128 bits reduced mod 10**20: the bias is below 2**-61.
        return f"{int.from_bytes(digest[:16], 'big') % _SPACE:0{NONCE_DIGITS}d}"


NonceMode = RandomNonce | KeyedNonce
"""How nonces are drawn: fresh per render (`RandomNonce`) or from a key (`KeyedNonce`)."""
