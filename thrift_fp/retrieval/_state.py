"""Request-owned retrieval state, as a value."""

from __future__ import annotations

from typing import Generic, TypeVar

from thrift_fp._value import value

_Source = TypeVar("_Source")


@value
class RetrievalState(Generic[_Source]):
    """What one request has retrieved so far.

    ``query_count`` counts successes (compared against the limit); ``seen`` holds
    every reserved key (reserved just before execute, kept whatever happens
    after), so retries are duplicates; ``sources`` are the
    accepted sources in acceptance order. ``run_retrieval`` returns the next state.
    Annotate rather than subscript: on Python 3.11, ``RetrievalState[Doc]()``
    raises ``TypeError`` for every frozen slotted generic dataclass (typing sets
    ``__orig_class__`` through the frozen ``__setattr__``).

    >>> state: RetrievalState[str] = RetrievalState()
    >>> state.query_count, state.seen, state.sources
    (0, frozenset(), ())
    """

    query_count: int = 0
    seen: frozenset[str] = frozenset()
    sources: tuple[_Source, ...] = ()
