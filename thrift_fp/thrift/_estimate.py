"""A retrievable's own token estimate: probed once, then settled with or without awaiting."""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from itertools import repeat
from operator import attrgetter, methodcaller
from types import FunctionType
from typing import Final, cast, no_type_check

from returns.result import Failure, Result, Success

from thrift_fp._args import EachSequence
from thrift_fp.thrift._errors import EstimatorRaised, ThriftError
from thrift_fp.thrift._text_priced import priced_text, text_priced
from thrift_fp.thrift._shapes import RetrievableLike
from thrift_fp.tokens import TokenCount

_content: Final = attrgetter("content")


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
    retrievables: EachSequence[RetrievableLike], keys: Sequence[str], encoding: str
) -> Result[tuple[object, ...], ThriftError]:
    """Call each retrievable's own ``estimate_tokens(encoding)`` once; ``None`` when it has none,
    or when its estimate is the plain count of its text (`priced_text`: counted in the fit's batch)."""
    if _Bulk.none_to_call(retrievables):
        return Success((None,) * len(retrievables))
    raw: list[object] = []
    if _Bulk.one_method(retrievables):
        # Every estimator called in input order in one C-level pass; ``list.extend`` keeps what
        # it took before a raise, so ``len(raw)`` is the position of the estimator that raised.
        try:
            raw.extend(map(methodcaller("estimate_tokens", encoding), retrievables))
        except Exception as exc:  # noqa: BLE001 - user estimator boundary; keep the cause
            _close_all(raw)
            return Failure(EstimatorRaised(keys[len(raw)], exc))
        return Success(tuple(raw))
    for item, key in zip(retrievables, keys, strict=True):
        # An item whose estimate is a plain count of its text is counted in the fit's batch.
        estimate = None if priced_text(item) is not None else getattr(item, "estimate_tokens", None)
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
    if _Bulk.plain_counts(raw):
        return cast(tuple[int | None, ...], tuple(raw))  # each is None or an int >= 0 (checked)
    _close_all(raw)
    return tuple(None if value is None else as_count(value) for value in raw)


# Classes whose ``__getattribute__`` is the default one (no user lookup of its own).
_GENERIC_LOOKUP: Final = (object, tuple)


@no_type_check
class _Bulk:
    """The common cases of a fit, decided for the whole bucket in C-level passes (``map``, ``set``)
    instead of a Python-level step per retrievable; unchecked at run time, like the per-item code
    of `_measure` (its docstring says why). Each answers only yes or no: no means the per-item loop
    runs, exactly as before."""

    @staticmethod
    def none_to_call(items: EachSequence[RetrievableLike]) -> bool:
        """No item's estimator would be called: every item's class declares that its estimate is
        the count of its text (`text_priced`) and every content is a ``str`` (counted in the fit's
        batch), or none has an ``estimate_tokens``.

        >>> from thrift_fp.thrift._shapes import WorkingRetrievable
        >>> class Priced:
        ...     content = "x"
        ...     def estimate_tokens(self, encoding: str) -> int:
        ...         return 1
        >>> _Bulk.none_to_call([WorkingRetrievable("x")]), _Bulk.none_to_call([WorkingRetrievable("x"), Priced()])
        (True, False)
        """
        count = len(items)
        kinds = set(map(type, items))
        priced = set(filter(text_priced, kinds))
        if priced and priced == kinds:
            return set(map(type, map(_content, items))) == {str}
        if priced:
            return False
        try:
            found = set(map(type, map(getattr, items, repeat("estimate_tokens", count), repeat(None, count))))
        except Exception:  # noqa: BLE001 - an attribute that raises: the loop meets it in input order
            return False
        return found <= {type(None)}

    @staticmethod
    def one_method(items: EachSequence[RetrievableLike]) -> bool:
        """Every item is of one type, not one that prices its text (`text_priced`: the per-item
        loop counts that text in the batch), whose instances have no ``__dict__`` and
        whose class defines ``estimate_tokens`` as a plain function, with the default attribute
        lookup: then ``item.estimate_tokens`` is that method for every item, as the loop would find.

        >>> from typing import NamedTuple
        >>> class Priced(NamedTuple):
        ...     content: str
        ...     def estimate_tokens(self, encoding: str) -> int:
        ...         return 1
        >>> class Loose:
        ...     def estimate_tokens(self, encoding: str) -> int:
        ...         return 1
        >>> _Bulk.one_method([Priced("a"), Priced("b")]), _Bulk.one_method([Loose()]), _Bulk.one_method([])
        (True, False, False)
        """
        kinds = set(map(type, items))
        if len(kinds) != 1:
            return False
        kind = kinds.pop()
        lookup = next(owner for owner in kind.__mro__ if "__getattribute__" in vars(owner))
        return (
            not text_priced(kind)
            and kind.__dictoffset__ == 0
            and lookup in _GENERIC_LOOKUP
            and isinstance(inspect.getattr_static(kind, "estimate_tokens", None), FunctionType)
        )

    @staticmethod
    def plain_counts(raw: Sequence[object]) -> bool:
        """Every estimate is ``None``, or every one is an ``int >= 0``: each is then its own count
        (`as_count`) and none needs closing.

        >>> _Bulk.plain_counts((None, None)), _Bulk.plain_counts((3, 0)), _Bulk.plain_counts((3, -1))
        (True, True, False)
        >>> _Bulk.plain_counts((True,)), _Bulk.plain_counts((None, 3))  # the per-item loop decides these
        (False, False)
        """
        kinds = set(map(type, raw))
        if kinds == {int}:
            return min(cast(Sequence[int], raw)) >= 0  # every value is an int (kinds)
        return kinds <= {type(None)}


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
    import asyncio  # noqa: PLC0415 - only an async fit needs it: a sync process skips its ~30 modules

    settled = await asyncio.gather(*(_awaited(value, key) for value, key in zip(raw, keys, strict=True)))
    for value in settled:
        if isinstance(value, EstimatorRaised):
            return Failure(value)
    return Success(tuple(as_count(value) for value in settled))
