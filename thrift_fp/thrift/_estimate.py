"""A retrievable's own token estimate: probed once, then settled with or without awaiting."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Sequence

from returns.result import Failure, Result, Success

from thrift_fp.thrift._errors import EstimatorRaised, ThriftError
from thrift_fp.records import Retrievable
from thrift_fp.thrift._measure import Batchable
from thrift_fp.thrift._shapes import RetrievableLike
from thrift_fp.tokens import TokenCount


def as_count(value: object) -> int | None:
    """A self-estimate that counts: an int >= 0, a `TokenCount`, or a ``Success`` of either.

    >>> from returns.result import Success
    >>> (as_count(3), as_count(True), as_count(Success(4)), as_count("5"))
    (3, None, 4, None)
    """
    if isinstance(value, Success):
        value = value.unwrap()
    if isinstance(value, TokenCount):
        return value.tokens
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return None
    return value


def probe_estimates(
    retrievables: Sequence[RetrievableLike], keys: Sequence[str], encoding: str
) -> Result[tuple[object, ...], ThriftError]:
    """Call each retrievable's own ``estimate_tokens(encoding)`` once; ``None`` when it has none,
    or when it is a `Retrievable` whose estimate is a plain count of its text (`Batchable`)."""
    raw: list[object] = []
    batchable = Batchable.text
    for item, key in zip(retrievables, keys, strict=True):
        # A record whose estimate is a plain count of its text is counted in the fit's batch.
        estimate = (
            None if type(item) is Retrievable and batchable(item) is not None
            else getattr(item, "estimate_tokens", None)
        )
        if not callable(estimate):
            raw.append(None)
            continue
        try:
            raw.append(estimate(encoding))
        except Exception as exc:  # noqa: BLE001 - user estimator boundary; keep the cause
            _close_all(raw)
            return Failure(EstimatorRaised(key, exc))
    return Success(tuple(raw))


def _close_all(raw: Sequence[object]) -> None:
    # An estimate we will never await must be closed, or Python warns it was never awaited.
    for value in raw:
        if value is not None and inspect.iscoroutine(value):
            value.close()


def settle_sync(raw: Sequence[object]) -> tuple[int | None, ...]:
    """Counts from synchronous estimates; awaitables are never awaited (their text is measured).

    >>> settle_sync((3, None, "x"))
    (3, None, None)
    """
    _close_all(raw)
    return tuple(None if value is None else as_count(value) for value in raw)


# Module level, not nested: beartype's claw re-decorates a nested annotated function on every call.
async def _awaited(value: object, key: str) -> object:
    try:
        return await value if inspect.isawaitable(value) else value
    except Exception as exc:  # noqa: BLE001 - user estimator boundary; keep the cause
        return EstimatorRaised(key, exc)


async def settle_async(raw: Sequence[object], keys: Sequence[str]) -> Result[tuple[int | None, ...], ThriftError]:
    """Counts from estimates, awaiting the awaitable ones concurrently.

    >>> import asyncio
    >>> async def four() -> int:
    ...     return 4
    >>> asyncio.run(settle_async((four(), 2), ("a", "b"))).unwrap()
    (4, 2)
    """
    settled = await asyncio.gather(*(_awaited(value, key) for value, key in zip(raw, keys, strict=True)))
    for value in settled:
        if isinstance(value, EstimatorRaised):
            return Failure(value)
    return Success(tuple(as_count(value) for value in settled))
