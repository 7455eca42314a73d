"""Candidate implementations of library functions, swapped in for one call at a time.

Used by ``--what-if`` to measure the fixes proposed in BENCHMARKS.md before the library has them.
The swap lasts only while the wrapped call runs, inside the benchmark's own process.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from returns.result import Failure, Result, Success

from benchmarks._sets import raw_tiktoken
from thrift_fp.tokens import EstimatorFailed, TokenCount, TokenEncoding, TokenError, get_encoding

_Value = TypeVar("_Value")
CountMany = Callable[[TokenEncoding, Sequence[str]], Result[tuple[int, ...], EstimatorFailed]]


def serial_count_many(self: TokenEncoding, texts: Sequence[str]) -> Result[tuple[int, ...], EstimatorFailed]:
    """Fix 1: every text on the calling thread."""
    encode = raw_tiktoken().encode_ordinary
    return Success(tuple(len(encode(text)) for text in texts))


def buffer_count_many(self: TokenEncoding, texts: Sequence[str]) -> Result[tuple[int, ...], EstimatorFailed]:
    """Fix 4: on the calling thread, into tiktoken's uint32 buffer instead of a list of ints."""
    # With no special token allowed, CoreBPE encodes special-token text as ordinary text.
    encode = getattr(raw_tiktoken()._core_bpe, "encode_to_tiktoken_buffer")
    none: frozenset[str] = frozenset()
    return Success(tuple(memoryview(encode(text, none)).nbytes // 4 for text in texts))


def flat_count_tokens(text: str, encoding: str | TokenEncoding = "cl100k_base") -> Result[TokenCount, TokenError]:
    """Fix 2: ``count_tokens`` without a nested annotated closure (the claw re-decorates those)."""
    resolved: Result[TokenEncoding, TokenError] = (
        Success(encoding) if isinstance(encoding, TokenEncoding) else get_encoding(encoding)
    )
    if isinstance(resolved, Failure):
        return Failure(resolved.failure())
    enc = resolved.unwrap()
    counted: Result[TokenCount, TokenError] = enc.count(text).map(
        lambda tokens: TokenCount(tokens, enc.name, enc.precision)
    )
    return counted


def with_attribute(owner: object, name: str, candidate: object, run: Callable[[], _Value]) -> Callable[[], _Value]:
    """``run`` with ``owner.name`` replaced by ``candidate`` while it runs."""
    current = getattr(owner, name)

    def patched() -> _Value:
        setattr(owner, name, candidate)
        try:
            return run()
        finally:
            setattr(owner, name, current)

    return patched


def with_count_many(candidate: CountMany, run: Callable[[], _Value]) -> Callable[[], _Value]:
    """``run`` with ``TokenEncoding.count_many`` replaced by ``candidate`` while it runs."""
    return with_attribute(TokenEncoding, "count_many", candidate, run)
