"""Other ``TokenEncoding.count_many`` implementations, swapped in for one call at a time.

``--what-if`` times the fit with each, so the choice made in thrift_fp/tokens/_encoding.py can be
re-checked on any machine: counting on one thread, and the implementation it replaced in commit
f6d1b90 (tiktoken's ``encode_ordinary_batch``: a new pool and one future per text). The swap lasts
only while the wrapped call runs, inside the benchmark's own process.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from returns.result import Result, Success

from benchmarks._sets import raw_tiktoken
from thrift_fp.tokens import EstimatorFailed, NotText, TokenEncoding

_Value = TypeVar("_Value")
CountMany = Callable[..., Result[tuple[int, ...], EstimatorFailed | NotText]]


def serial_count_many(
    self: TokenEncoding, texts: Sequence[str], *, threads: int | None = None
) -> Result[tuple[int, ...], EstimatorFailed | NotText]:
    """Every text on the calling thread."""
    encode = raw_tiktoken().encode_ordinary
    return Success(tuple(len(encode(text)) for text in texts))


def per_text_futures_count_many(
    self: TokenEncoding, texts: Sequence[str], *, threads: int | None = None
) -> Result[tuple[int, ...], EstimatorFailed | NotText]:
    """The implementation before f6d1b90: 32 texts or more go to ``encode_ordinary_batch``."""
    tokenizer = raw_tiktoken()
    if len(texts) < 32:
        return serial_count_many(self, texts)
    return Success(tuple(len(tokens) for tokens in tokenizer.encode_ordinary_batch(list(texts), num_threads=4)))


def with_count_many(candidate: CountMany, run: Callable[[], _Value]) -> Callable[[], _Value]:
    """``run`` with ``TokenEncoding.count_many`` replaced by ``candidate`` while it runs."""
    current: CountMany = TokenEncoding.count_many

    def patched() -> _Value:
        setattr(TokenEncoding, "count_many", candidate)
        try:
            return run()
        finally:
            setattr(TokenEncoding, "count_many", current)

    return patched
