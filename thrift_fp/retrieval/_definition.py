"""What a retrieval is: its policy callbacks and its read, as one typed value."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Generic, TypeVar

from thrift_fp.retrieval._context import OperationContext
from thrift_fp.retrieval._receipt import Receipt

_Query = TypeVar("_Query")
_Source = TypeVar("_Source")
_Result = TypeVar("_Result")
_App = TypeVar("_App")


def utc_now() -> datetime:
    """The default clock: the wall clock, timezone-aware UTC.

    >>> utc_now().tzinfo is timezone.utc
    True
    """
    return datetime.now(timezone.utc)


@dataclass(frozen=True, slots=True, kw_only=True)
class ErrorMessages(Generic[_Query, _App]):
    """Builders for the messages of ``DuplicateQuery`` and ``BudgetExhausted``.

    A builder that raises or returns a non-string leaves the default message
    (the raise is kept as the error's ``cause``).

    >>> messages = ErrorMessages(duplicate=lambda query, context: f"already searched {query!r}")
    >>> messages.duplicate("Agent", OperationContext(None)), messages.budget
    ("already searched 'Agent'", None)
    """

    duplicate: Callable[[_Query, OperationContext[_App]], str] | None = None
    budget: Callable[[_Query, OperationContext[_App]], str] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class SourceNaming(Generic[_Query, _Source, _Result, _App]):
    """How sources get the ids a request cites them by (the seed's ``sourceId``).

    ``source_id(source, query, sequence, context)`` picks the id, where
    ``sequence`` is the receipt's sequence; ``rename(source, id)`` returns the
    source carrying that id; ``with_sources(result, sources)`` returns the result
    holding the renamed sources, so the receipt's result shows the assigned ids.

    >>> naming = SourceNaming(
    ...     source_id=lambda source, query, sequence, context: f"S{sequence}",
    ...     rename=lambda source, new_id: new_id,
    ...     with_sources=lambda result, sources: sources,
    ... )
    >>> naming.source_id("manual", "Agent", 1, OperationContext(None))
    'S1'
    """

    source_id: Callable[[_Source, _Query, int, OperationContext[_App]], str]
    rename: Callable[[_Source, str], _Source]
    with_sources: Callable[[_Result, tuple[_Source, ...]], _Result]


@dataclass(frozen=True, slots=True, kw_only=True)
class RetrievalEffect(Generic[_Query, _Source, _Result, _App]):
    """A follow-up run after a success: ``handle(receipt, context)`` returns
    extensions that are merged into the receipt (later effects win on a clash).

    >>> effect = RetrievalEffect(
    ...     id="source-count",
    ...     description="attach the number of sources",
    ...     handle=lambda receipt, context: {"source_count": len(receipt.sources)},
    ... )
    >>> effect.id
    'source-count'
    """

    id: str
    description: str
    handle: Callable[[Receipt[_Query, _Source, _Result], OperationContext[_App]], Mapping[str, object]]


def _no_messages() -> ErrorMessages[_Query, _App]:
    return ErrorMessages()


@dataclass(frozen=True, slots=True, kw_only=True)
class RetrievalDefinition(Generic[_Query, _Source, _Result, _App]):
    """One retrieval tool: policy callbacks around a synchronous read.

    Type parameters: the query, one source, the read's result, the app value of
    the ``OperationContext``. Callbacks reject by raising; ``run_retrieval`` turns
    each raise into the matching error value. ``sources(result)`` reads the
    result's sources; ``naming`` (optional) renames them; ``key`` defaults to
    ``canonical_key`` of the prepared query; ``now`` defaults to ``utc_now``.

    >>> def assert_input(query: str, context: OperationContext[None]) -> None:
    ...     if not query.strip():
    ...         raise ValueError("empty query")
    >>> definition: RetrievalDefinition[str, str, tuple[str, ...], None] = RetrievalDefinition(
    ...     id="manual-search",
    ...     description="read the local manual",
    ...     assert_input=assert_input,
    ...     limit=lambda context: 2,
    ...     execute=lambda query, context: ("manual",),
    ...     sources=lambda result: result,
    ... )
    >>> definition.id, definition.tags, definition.effects
    ('manual-search', (), ())
    """

    id: str
    description: str
    assert_input: Callable[[_Query, OperationContext[_App]], None]
    limit: Callable[[OperationContext[_App]], int]
    execute: Callable[[_Query, OperationContext[_App]], _Result]
    sources: Callable[[_Result], Sequence[_Source]]
    tags: tuple[str, ...] = ()
    prepare: Callable[[_Query, OperationContext[_App]], _Query] | None = None
    key: Callable[[_Query], str] | None = None
    errors: ErrorMessages[_Query, _App] = field(default_factory=_no_messages)
    authorize: Callable[[_Query, OperationContext[_App]], None] | None = None
    assert_result: Callable[[_Result, _Query, OperationContext[_App]], None] | None = None
    naming: SourceNaming[_Query, _Source, _Result, _App] | None = None
    effects: tuple[RetrievalEffect[_Query, _Source, _Result, _App], ...] = ()
    now: Callable[[], datetime] = utc_now
