"""Resolving an encoding name to a counter, built once per process."""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import field
from typing import Final, Literal

import tiktoken
import tiktoken.registry
from returns.result import Failure, Result, Success

from thrift_fp._args import Each, as_tuple
from thrift_fp._shown import shown, shown_exception
from thrift_fp._value import value
from thrift_fp.tokens._errors import (
    EncodingUnavailable,
    EstimatorFailed,
    EstimatorNameTaken,
    InvalidEstimatorName,
    NotText,
    TokenError,
    UnknownEncoding,
)
from thrift_fp.tokens._offline import without_network
from thrift_fp.tokens._vocabulary import BUNDLED, build_bundled_encoding

Precision = Literal["exact", "estimated"]
"""Whether a count is ``exact`` (the encoding's own tokenizer) or ``estimated`` (a fallback)."""
Estimator = Callable[[str], int]
"""A custom token estimator: text in, a token count out (`register_token_estimator`)."""

# Below this many texts a thread pool costs more than it saves.
_BATCH_THREAD_MIN: Final = 64
_BATCH_THREADS: Final = 4


@value
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

    def count_many(
        self, texts: Each[str], *, threads: int | None = None
    ) -> Result[tuple[int, ...], EstimatorFailed | NotText]:
        """Counts for many texts in one call; large tiktoken batches use up to ``threads`` threads
        (default: ``min(4, cpu count)``; 1 counts on the calling thread).

        >>> get_encoding("o200k_base").unwrap().count_many(["hello world", ""]).unwrap()
        (2, 0)
        >>> get_encoding("cl100k_base").unwrap().count_many(["a b"] * 100, threads=1).unwrap()[:2]
        (2, 2)
        >>> get_encoding("cl100k_base").unwrap().count_many(["a", 3]).failure().message
        'texts[1] is a int, not a str'
        """
        texts = as_tuple(texts)
        stray = not_text(texts)
        if stray is not None:
            return Failure(stray)
        if self._tiktoken is not None:
            return Success(_count_on_threads(self._tiktoken, texts, _pool_size() if threads is None else threads))
        counts: list[int] = []
        for text in texts:
            counted = _run_estimator(self.name, self._estimator, text)
            if isinstance(counted, Failure):
                return counted
            counts.append(counted.unwrap())
        return Success(tuple(counts))


def not_text(texts: Sequence[object]) -> NotText | None:
    """The first element of ``texts`` that is not a ``str``, as an error value, or None.

    >>> not_text(["a", "b"]) is None, not_text(["a", b"b"])
    (True, NotText(index=1, type_name='bytes'))
    """
    # One C-level pass over the types in the common case; the index is searched only on failure.
    if set(map(type, texts)) <= {str}:
        return None
    for index, text in enumerate(texts):
        if not isinstance(text, str):
            return NotText(index, type(text).__name__)
    return None


def _count_serial(encoding: tiktoken.Encoding, texts: Sequence[str]) -> list[int]:
    encode = encoding.encode_ordinary
    return [len(encode(text)) for text in texts]


def _count_on_threads(encoding: tiktoken.Encoding, texts: Sequence[str], workers: int) -> tuple[int, ...]:
    # tiktoken's BPE releases the GIL, so contiguous slices on a persistent pool
    # run in parallel. tiktoken's own encode_ordinary_batch builds a new pool and a
    # future per text, which measured slower than one thread on 2 cores.
    workers = min(workers, _BATCH_THREADS)
    if workers < 2 or len(texts) < _BATCH_THREAD_MIN:
        return tuple(_count_serial(encoding, texts))
    step = -(-len(texts) // workers)
    slices = [texts[start : start + step] for start in range(0, len(texts), step)]
    pool = _pool()
    futures = [pool.submit(_count_serial, encoding, part) for part in slices]
    return tuple(count for future in futures for count in future.result())


def _pool_size() -> int:
    return min(_BATCH_THREADS, _CPUS)


# Read once: ``os.cpu_count`` is a system call (~10 us here), and every batch count asked it.
_CPUS: Final = os.cpu_count() or 1


class _PoolHolder:
    """The one counting pool of this process, and the lock that guards its creation."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.pool: ThreadPoolExecutor | None = None


_pools: Final = _PoolHolder()


def _pool() -> ThreadPoolExecutor:
    with _pools.lock:
        if _pools.pool is None:
            _pools.pool = ThreadPoolExecutor(_BATCH_THREADS, thread_name_prefix="thrift_fp-count")
        return _pools.pool


def _forget_pool_in_child() -> None:
    # A forked child inherits the pool object but none of its threads: work submitted to it would
    # wait forever (gunicorn --preload, multiprocessing's "fork"). The child builds its own. The
    # locks are replaced too: another thread may have held one at the moment of the fork.
    _pools.lock = threading.Lock()
    _pools.pool = None
    _registry.lock = threading.Lock()


os.register_at_fork(after_in_child=_forget_pool_in_child)


def _run_estimator(name: str, estimator: Estimator | None, text: str) -> Result[int, EstimatorFailed]:
    if estimator is None:
        return Failure(EstimatorFailed(name, "estimator is missing"))
    try:
        value: object = estimator(text)
    except Exception as exc:  # noqa: BLE001 - user callback boundary; keep the cause
        return Failure(EstimatorFailed(name, f"raised {shown_exception(exc)}", exc))
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return Failure(EstimatorFailed(name, f"returned {shown(value)}; expected a non-negative int"))
    return Success(value)


def estimate_by_length(text: str) -> int:
    """The explicit fallback estimate: ``ceil(len(text) / 3.5)``.

    >>> estimate_by_length("abcdefg")
    2
    """
    return math.ceil(len(text) / 3.5)


class _RegistryLock:
    """The lock of the encoder registry below (an attribute, so a forked child can replace it)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()


_registry: Final = _RegistryLock()
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
    with _registry.lock:
        custom = sorted(_custom)
    return (*builtin_encoding_names(), *custom)


def get_encoding(name: str) -> Result[TokenEncoding, TokenError]:
    """Resolve ``name``; never downloads anything.

    >>> get_encoding("cl100k_base").unwrap().name
    'cl100k_base'
    >>> get_encoding("nope").failure().message
    "unknown encoding 'nope'; known encodings: cl100k_base, o200k_base, ..."
    """
    with _registry.lock:
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
    with _registry.lock:
        _custom[name] = encoding
    return Success(encoding)


def unregister_token_estimator(name: str) -> bool:
    """Remove a custom estimator; ``False`` when none had that name."""
    with _registry.lock:
        return _custom.pop(name, None) is not None
