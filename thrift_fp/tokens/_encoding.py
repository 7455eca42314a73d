"""Resolving an encoding name to a counter, built once per process."""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Final, Literal

import tiktoken
import tiktoken.registry
from returns.result import Failure, Result, Success

from thrift_fp.tokens._errors import (
    EncodingUnavailable,
    EstimatorFailed,
    EstimatorNameTaken,
    InvalidEstimatorName,
    TokenError,
    UnknownEncoding,
)
from thrift_fp.tokens._offline import without_network
from thrift_fp.tokens._vocabulary import BUNDLED, build_bundled_encoding

Precision = Literal["exact", "estimated"]
Estimator = Callable[[str], int]

# Below this many texts a thread pool costs more than it saves.
_BATCH_THREAD_MIN: Final = 64
_BATCH_THREADS: Final = 4


@dataclass(frozen=True, slots=True)
class TokenEncoding:
    """A resolved encoding: a real tiktoken vocabulary or a registered estimator.

    >>> enc = get_encoding("cl100k_base").unwrap()
    >>> (enc.name, enc.precision, enc.count("hello world").unwrap())
    ('cl100k_base', 'exact', 2)
    """

    name: str
    precision: Precision
    _tiktoken: tiktoken.Encoding | None = field(default=None, repr=False, compare=False)
    _estimator: Estimator | None = field(default=None, repr=False, compare=False)

    def count(self, text: str) -> Result[int, EstimatorFailed]:
        """Tokens in ``text``; special-token text counts as ordinary text."""
        if self._tiktoken is not None:
            return Success(len(self._tiktoken.encode_ordinary(text)))
        return _run_estimator(self.name, self._estimator, text)

    def count_many(self, texts: Sequence[str]) -> Result[tuple[int, ...], EstimatorFailed]:
        """Counts for many texts in one call; large tiktoken batches use threads.

        >>> get_encoding("o200k_base").unwrap().count_many(["hello world", ""]).unwrap()
        (2, 0)
        """
        if self._tiktoken is not None:
            return Success(_count_on_threads(self._tiktoken, texts))
        counts: list[int] = []
        for text in texts:
            counted = _run_estimator(self.name, self._estimator, text)
            if isinstance(counted, Failure):
                return counted
            counts.append(counted.unwrap())
        return Success(tuple(counts))


def _count_serial(encoding: tiktoken.Encoding, texts: Sequence[str]) -> list[int]:
    encode = encoding.encode_ordinary
    return [len(encode(text)) for text in texts]


def _count_on_threads(encoding: tiktoken.Encoding, texts: Sequence[str]) -> tuple[int, ...]:
    # tiktoken's BPE releases the GIL, so contiguous slices on a persistent pool
    # run in parallel. tiktoken's own encode_ordinary_batch builds a new pool and a
    # future per text, which measured slower than one thread on 2 cores.
    workers = _pool_size()
    if workers < 2 or len(texts) < _BATCH_THREAD_MIN:
        return tuple(_count_serial(encoding, texts))
    step = -(-len(texts) // workers)
    slices = [texts[start : start + step] for start in range(0, len(texts), step)]
    futures = [_pool().submit(_count_serial, encoding, part) for part in slices]
    return tuple(count for future in futures for count in future.result())


def _pool_size() -> int:
    return min(_BATCH_THREADS, os.cpu_count() or 1)


_pools: list[ThreadPoolExecutor] = []


def _pool() -> ThreadPoolExecutor:
    with _lock:
        if not _pools:
            _pools.append(ThreadPoolExecutor(_pool_size(), thread_name_prefix="thrift_fp-count"))
        return _pools[0]


def _run_estimator(name: str, estimator: Estimator | None, text: str) -> Result[int, EstimatorFailed]:
    if estimator is None:
        return Failure(EstimatorFailed(name, "estimator is missing"))
    try:
        value: object = estimator(text)
    except Exception as exc:  # noqa: BLE001 - user callback boundary; keep the cause
        return Failure(EstimatorFailed(name, f"raised {type(exc).__name__}: {exc}", exc))
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return Failure(EstimatorFailed(name, f"returned {value!r}; expected a non-negative int"))
    return Success(value)


def estimate_by_length(text: str) -> int:
    """The explicit fallback estimate: ``ceil(len(text) / 3.5)``.

    >>> estimate_by_length("abcdefg")
    2
    """
    return math.ceil(len(text) / 3.5)


_lock: Final = threading.Lock()
_built: dict[str, TokenEncoding] = {}
_custom: dict[str, TokenEncoding] = {}


def builtin_encoding_names() -> tuple[str, ...]:
    """Names tiktoken knows, with the offline-bundled ones first.

    >>> builtin_encoding_names()[:2]
    ('cl100k_base', 'o200k_base')
    """
    others = sorted(set(tiktoken.registry.list_encoding_names()) - set(BUNDLED))
    return (*BUNDLED, *others)


def known_encoding_names() -> tuple[str, ...]:
    """Built-in names followed by registered custom estimators."""
    with _lock:
        custom = sorted(_custom)
    return (*builtin_encoding_names(), *custom)


def get_encoding(name: str) -> Result[TokenEncoding, TokenError]:
    """Resolve ``name``; never downloads anything.

    >>> get_encoding("cl100k_base").unwrap().name
    'cl100k_base'
    >>> get_encoding("nope").failure().message
    "unknown encoding 'nope'; known encodings: cl100k_base, o200k_base, ..."
    """
    with _lock:
        if name in _custom:
            return Success(_custom[name])
        if name in _built:
            return Success(_built[name])
        built = _build(name)
        if isinstance(built, Success):
            _built[name] = built.unwrap()
        return built


def _build(name: str) -> Result[TokenEncoding, TokenError]:
    if name in BUNDLED:
        return build_bundled_encoding(name).map(
            lambda encoding: TokenEncoding(name, "exact", _tiktoken=encoding)
        )
    if name not in tiktoken.registry.list_encoding_names():
        return Failure(UnknownEncoding(name, (*builtin_encoding_names(), *sorted(_custom))))
    not_cached = (
        "its vocabulary is not in tiktoken's cache and thrift_fp never downloads"
        f" (bundled offline: {', '.join(BUNDLED)})"
    )
    # A vocabulary missing from tiktoken's cache (or failing its hash check) would be
    # downloaded: the guard refuses the first resolver call, which becomes this error value.
    encoding, error, network = without_network(lambda: tiktoken.get_encoding(name))
    if encoding is not None:
        return Success(TokenEncoding(name, "exact", _tiktoken=encoding))
    reason = not_cached if network else f"tiktoken could not load it: {error!r}"
    return Failure(EncodingUnavailable(name, reason))


def register_token_estimator(
    name: str, estimator: Estimator, *, precision: Precision = "estimated"
) -> Result[TokenEncoding, TokenError]:
    """Add (or replace) a custom synchronous estimator under ``name``.

    >>> register_token_estimator("words", lambda text: len(text.split())).unwrap().name
    'words'
    >>> register_token_estimator("cl100k_base", len).failure().message
    "'cl100k_base' is a built-in encoding; a custom estimator cannot shadow it"
    >>> unregister_token_estimator("words")
    True
    """
    if not name or name != name.strip():
        return Failure(InvalidEstimatorName(name))
    if name in builtin_encoding_names():
        return Failure(EstimatorNameTaken(name))
    encoding = TokenEncoding(name, precision, _estimator=estimator)
    with _lock:
        _custom[name] = encoding
    return Success(encoding)


def unregister_token_estimator(name: str) -> bool:
    """Remove a custom estimator; ``False`` when none had that name."""
    with _lock:
        return _custom.pop(name, None) is not None
