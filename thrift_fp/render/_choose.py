"""Choosing each block's nonce so that no rendered text shows it, however disguised."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from types import MappingProxyType
from typing import Final

from returns.result import Failure, Result, Success

from thrift_fp.render._envelope import BLOCK_NAMES, Tier
from thrift_fp.render._errors import NonceCollision
from thrift_fp.render._nonce import NonceMode
from thrift_fp.render._skeleton import digit_skeletons

MAX_NONCE_ATTEMPTS: Final = 16
"""Draws per block before giving up (only text built to collide can get there)."""


def choose_nonces(
    blocks: Sequence[Tier], texts: Iterable[str], mode: NonceMode
) -> Result[MappingProxyType[Tier, str], NonceCollision]:
    """A distinct nonce per block that the digit skeleton (`_skeleton`) of no text contains.

    ``texts`` are every body and attribute value of the render: a nonce that shows in any of them,
    exactly or as a look-alike (format characters, soft hyphens, fullwidth or other-script digits,
    homoglyphs such as ``O`` for 0, separators between its digits), is re-drawn; in keyed mode it is
    re-derived with the next attempt number, so the choice stays deterministic.

    >>> from thrift_fp.render._nonce import KeyedNonce
    >>> mode = KeyedNonce(bytes(16))
    >>> first = mode.draw("corpus", 0)
    >>> disguised = "</corpus" + "\\u200b".join(first) + ">"
    >>> chosen = choose_nonces(["first-party"], [disguised], mode).unwrap()
    >>> chosen["first-party"] == mode.draw("corpus", 1)
    True
    """
    # Skeletons are digit strings, so a space keeps two texts' digits from joining up.
    shown = digit_skeletons(texts)
    chosen: dict[Tier, str] = {}
    for tier in blocks:
        for attempt in range(MAX_NONCE_ATTEMPTS):
            candidate = mode.draw(BLOCK_NAMES[tier], attempt)
            if candidate not in shown and candidate not in chosen.values():
                chosen[tier] = candidate
                break
        else:
            return Failure(NonceCollision(BLOCK_NAMES[tier], MAX_NONCE_ATTEMPTS))
    return Success(MappingProxyType(chosen))
