"""The closed union of errors the retrieval lifecycle returns as values.

Every error names the definition it came from, the query key when one was
derived, and the exception a user callback raised as ``cause``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from thrift_fp._errors import ThriftFpError
from thrift_fp.retrieval._receipt import Receipt


def describe_exception(exc: BaseException) -> str:
    """A one-line description of a raised exception, for error messages.

    >>> describe_exception(ValueError("empty query"))
    'ValueError: empty query'
    >>> describe_exception(KeyError())
    'KeyError'
    """
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


@dataclass(frozen=True, slots=True)
class NotCanonical(ThriftFpError):
    """A value has no canonical key: an unsupported type, a cycle, or too deep.

    ``path`` locates the offending part, written as Python subscripts from ``query``.

    >>> NotCanonical("query['when']", "object", "unsupported type").message
    "query['when'] (object): unsupported type"
    """

    path: str
    type_name: str
    reason: str

    @property
    def message(self) -> str:
        return f"{self.path} ({self.type_name}): {self.reason}"


@dataclass(frozen=True, slots=True)
class PrepareFailed(ThriftFpError):
    """``prepare`` raised while normalising the query; nothing was reserved.

    >>> PrepareFailed("docs", "AttributeError: no strip").message
    "retrieval 'docs': prepare failed: AttributeError: no strip"
    """

    definition_id: str
    reason: str
    cause: BaseException | None = None

    @property
    def message(self) -> str:
        return f"retrieval {self.definition_id!r}: prepare failed: {self.reason}"


@dataclass(frozen=True, slots=True)
class InvalidQuery(ThriftFpError):
    """``assert_input`` rejected the query, or it has no canonical key.

    >>> InvalidQuery("docs", "ValueError: empty query").message
    "retrieval 'docs': invalid query: ValueError: empty query"
    """

    definition_id: str
    reason: str
    cause: BaseException | None = None

    @property
    def message(self) -> str:
        return f"retrieval {self.definition_id!r}: invalid query: {self.reason}"


@dataclass(frozen=True, slots=True)
class KeyFailed(ThriftFpError):
    """A custom ``key`` function raised or did not return a string.

    >>> KeyFailed("docs", "returned int, not str").message
    "retrieval 'docs': key function failed: returned int, not str"
    """

    definition_id: str
    reason: str
    cause: BaseException | None = None

    @property
    def message(self) -> str:
        return f"retrieval {self.definition_id!r}: key function failed: {self.reason}"


@dataclass(frozen=True, slots=True)
class DuplicateQuery(ThriftFpError):
    """The query's key was already attempted in this request.

    ``custom_message`` comes from ``errors.duplicate``; ``cause`` is set when that
    builder raised (the default message is used then).

    >>> DuplicateQuery("docs", '"Agent"').message
    'retrieval \\'docs\\': duplicate query "Agent": each query runs once per request'
    >>> DuplicateQuery("docs", '"Agent"', "asked already").message
    'asked already'
    """

    definition_id: str
    key: str
    custom_message: str | None = None
    cause: BaseException | None = None

    @property
    def message(self) -> str:
        if self.custom_message is not None:
            return self.custom_message
        return (
            f"retrieval {self.definition_id!r}: duplicate query {self.key}: "
            "each query runs once per request"
        )


@dataclass(frozen=True, slots=True)
class LimitFailed(ThriftFpError):
    """``limit`` raised or returned something other than a non-negative int.

    >>> LimitFailed("docs", '"Agent"', "returned -1").message
    'retrieval \\'docs\\': limit failed for query "Agent": returned -1'
    """

    definition_id: str
    key: str
    reason: str
    cause: BaseException | None = None

    @property
    def message(self) -> str:
        return f"retrieval {self.definition_id!r}: limit failed for query {self.key}: {self.reason}"


@dataclass(frozen=True, slots=True)
class BudgetExhausted(ThriftFpError):
    """The request already accepted ``limit`` queries.

    >>> BudgetExhausted("docs", '"Agent"', 2, 2).message
    'retrieval \\'docs\\': query budget exhausted (2 of 2 used); refused query "Agent"'
    """

    definition_id: str
    key: str
    query_count: int
    limit: int
    custom_message: str | None = None
    cause: BaseException | None = None

    @property
    def message(self) -> str:
        if self.custom_message is not None:
            return self.custom_message
        return (
            f"retrieval {self.definition_id!r}: query budget exhausted "
            f"({self.query_count} of {self.limit} used); refused query {self.key}"
        )


@dataclass(frozen=True, slots=True)
class Unauthorized(ThriftFpError):
    """``authorize`` refused the query; its key stays free.

    >>> Unauthorized("docs", '"Agent"', "PermissionError: no read access").message
    'retrieval \\'docs\\': query "Agent" not authorized: PermissionError: no read access'
    """

    definition_id: str
    key: str
    reason: str
    cause: BaseException | None = None

    @property
    def message(self) -> str:
        return f"retrieval {self.definition_id!r}: query {self.key} not authorized: {self.reason}"


AbortPoint = Literal["before-execute", "after-execute"]


@dataclass(frozen=True, slots=True)
class Aborted(ThriftFpError):
    """The operation's signal was aborted.

    ``before-execute``: nothing was reserved. ``after-execute``: the key stays
    reserved and the result was discarded.

    >>> Aborted("docs", '"Agent"', "before-execute", "user left").message
    'retrieval \\'docs\\': aborted before-execute for query "Agent": user left'
    """

    definition_id: str
    key: str
    point: AbortPoint
    reason: str | None

    @property
    def message(self) -> str:
        why = self.reason if self.reason is not None else "no reason given"
        return f"retrieval {self.definition_id!r}: aborted {self.point} for query {self.key}: {why}"


@dataclass(frozen=True, slots=True)
class ExecutionFailed(ThriftFpError):
    """``execute`` raised; the key stays reserved (no refund), nothing counted.

    >>> ExecutionFailed("docs", '"Agent"', "OSError: disk gone").message
    'retrieval \\'docs\\': execute failed for query "Agent": OSError: disk gone'
    """

    definition_id: str
    key: str
    reason: str
    cause: BaseException | None = None

    @property
    def message(self) -> str:
        return f"retrieval {self.definition_id!r}: execute failed for query {self.key}: {self.reason}"


@dataclass(frozen=True, slots=True)
class InvalidResult(ThriftFpError):
    """``assert_result`` (or reading the result's sources) rejected the result.

    The key stays seen; no success is counted.

    >>> InvalidResult("docs", '"Agent"', "ValueError: no sources").message
    'retrieval \\'docs\\': result for query "Agent" rejected: ValueError: no sources'
    """

    definition_id: str
    key: str
    reason: str
    cause: BaseException | None = None

    @property
    def message(self) -> str:
        return f"retrieval {self.definition_id!r}: result for query {self.key} rejected: {self.reason}"


@dataclass(frozen=True, slots=True)
class SourceIdFailed(ThriftFpError):
    """Naming the result's sources failed; the key stays seen, nothing counted.

    >>> SourceIdFailed("docs", '"Agent"', "returned None, not str").message
    'retrieval \\'docs\\': naming sources for query "Agent" failed: returned None, not str'
    """

    definition_id: str
    key: str
    reason: str
    cause: BaseException | None = None

    @property
    def message(self) -> str:
        return f"retrieval {self.definition_id!r}: naming sources for query {self.key} failed: {self.reason}"


@dataclass(frozen=True, slots=True)
class ClockFailed(ThriftFpError):
    """``now`` raised or returned a naive datetime.

    At the start nothing is reserved (``key`` is None); at the finish the key
    stays seen and nothing is counted.

    >>> ClockFailed("docs", None, "returned a naive datetime").message
    "retrieval 'docs': clock failed: returned a naive datetime"
    """

    definition_id: str
    key: str | None
    reason: str
    cause: BaseException | None = None

    @property
    def message(self) -> str:
        return f"retrieval {self.definition_id!r}: clock failed: {self.reason}"


@dataclass(frozen=True, slots=True)
class EffectFailed(ThriftFpError):
    """An effect raised or returned a non-mapping; the query is still counted.

    ``receipt`` is the receipt with the extensions of the effects that ran before.

    >>> from datetime import datetime, timezone
    >>> t = datetime(2026, 1, 1, tzinfo=timezone.utc)
    >>> receipt = Receipt("docs", 1, '"Agent"', "Agent", (), (), t, t)
    >>> EffectFailed("docs", '"Agent"', "source-count", "KeyError: 'x'", receipt).message
    'retrieval \\'docs\\': effect \\'source-count\\' failed for query "Agent": KeyError: \\'x\\''
    """

    definition_id: str
    key: str
    effect_id: str
    reason: str
    receipt: Receipt[Any, Any, Any]
    cause: BaseException | None = None

    @property
    def message(self) -> str:
        return (
            f"retrieval {self.definition_id!r}: effect {self.effect_id!r} failed "
            f"for query {self.key}: {self.reason}"
        )


RetrievalError = (
    PrepareFailed
    | InvalidQuery
    | KeyFailed
    | DuplicateQuery
    | LimitFailed
    | BudgetExhausted
    | Unauthorized
    | Aborted
    | ExecutionFailed
    | InvalidResult
    | SourceIdFailed
    | ClockFailed
    | EffectFailed
)
