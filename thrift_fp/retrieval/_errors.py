"""The closed union of errors the retrieval lifecycle returns as values.

Every error names the definition it came from, the query key when one was
derived, and the exception a user callback raised as ``cause``.
"""

from __future__ import annotations

from typing import Any, Literal, cast

from thrift_fp._errors import ErrorValue
from thrift_fp._shown import shown, shown_exception, shown_text
from thrift_fp.retrieval._receipt import Receipt


# A message builder is the definition author's code, but it may quote the (hostile) query.
CUSTOM_MESSAGE_CHARS = 1000


def describe_exception(exc: BaseException) -> str:
    """A one-line description of a raised exception, for error messages (see ``shown_exception``).

    >>> describe_exception(ValueError("empty query"))
    'ValueError: empty query'
    >>> describe_exception(KeyError())
    'KeyError'
    """
    return shown_exception(exc)


class NotCanonical(ErrorValue):
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
        return f"{shown_text(self.path, 200)} ({shown_text(self.type_name)}): {self.reason}"


class _StepFailed(ErrorValue):
    """A step of the definition ``definition_id`` failed before the query had a key; ``reason`` says
    how and ``cause`` is what the caller's function raised, if it raised."""

    definition_id: str
    reason: str
    cause: BaseException | None = None


class PrepareFailed(_StepFailed, template="retrieval {definition_id!r}: prepare failed: {reason}"):
    """``prepare`` raised while normalising the query; nothing was reserved.

    >>> PrepareFailed("docs", "AttributeError: no strip").message
    "retrieval 'docs': prepare failed: AttributeError: no strip"
    """


class InvalidQuery(_StepFailed, template="retrieval {definition_id!r}: invalid query: {reason}"):
    """``assert_input`` rejected the query, or it has no canonical key.

    >>> InvalidQuery("docs", "ValueError: empty query").message
    "retrieval 'docs': invalid query: ValueError: empty query"
    """


class KeyFailed(_StepFailed, template="retrieval {definition_id!r}: key function failed: {reason}"):
    """A custom ``key`` function raised or did not return a string.

    >>> KeyFailed("docs", "returned int, not str").message
    "retrieval 'docs': key function failed: returned int, not str"
    """


class _Worded(ErrorValue):
    """An error the definition's ``errors`` builders may word: its ``custom_message``, when given,
    is the message (bounded), else the class's template. Each subclass declares ``custom_message``
    and ``cause`` after its own fields, so its positional fields stay in place."""

    @property
    def message(self) -> str:
        custom: str | None = getattr(self, "custom_message")  # noqa: B009 - declared by each subclass, last
        if custom is not None:
            return shown_text(custom, CUSTOM_MESSAGE_CHARS)
        # The template's message; not through super(): the metaclass rebuilds the class, and the
        # ``__class__`` cell super() needs would name the first build.
        return cast(str, ErrorValue.message.__get__(self))


class DuplicateQuery(_Worded, template="retrieval {definition_id!r}: duplicate query {key!t}: each query runs once per request"):
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


class _QueryFailed(ErrorValue):
    """A step failed for the query whose key is ``key``; ``reason`` says how and ``cause`` is what the
    caller's function raised, if it raised."""

    definition_id: str
    key: str
    reason: str
    cause: BaseException | None = None


class LimitFailed(_QueryFailed, template="retrieval {definition_id!r}: limit failed for query {key!t}: {reason}"):
    """``limit`` raised or returned something other than a non-negative int.

    >>> LimitFailed("docs", '"Agent"', "returned -1").message
    'retrieval \\'docs\\': limit failed for query "Agent": returned -1'
    """


class BudgetExhausted(
    _Worded,
    template="retrieval {definition_id!r}: query budget exhausted ({query_count!r} of {limit!r} used); refused query {key!t}",
):
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


class Unauthorized(_QueryFailed, template="retrieval {definition_id!r}: query {key!t} not authorized: {reason}"):
    """``authorize`` refused the query; its key stays free.

    >>> Unauthorized("docs", '"Agent"', "PermissionError: no read access").message
    'retrieval \\'docs\\': query "Agent" not authorized: PermissionError: no read access'
    """


AbortPoint = Literal["before-execute", "after-execute", "after-assert-result", "after-source-naming", "after-effect"]
"""Where an abort was noticed (`Aborted.point`): before the query ran, or after one of its stages."""


class Aborted(ErrorValue):
    """The operation's signal was aborted.

    ``before-execute``: nothing was reserved. At every later point (``after-execute``,
    ``after-assert-result``, ``after-source-naming``, ``after-effect`` with ``effect_id``) the key
    stays reserved and the result is discarded: nothing is counted, no source is added.

    >>> Aborted("docs", '"Agent"', "before-execute", "user left").message
    'retrieval \\'docs\\': aborted before-execute for query "Agent": user left'
    >>> Aborted("docs", '"Agent"', "after-effect", None, "audit").message
    'retrieval \\'docs\\': aborted after-effect \\'audit\\' for query "Agent": no reason given'
    """

    definition_id: str
    key: str
    point: AbortPoint
    reason: str | None
    effect_id: str | None = None

    @property
    def message(self) -> str:
        why = shown_text(self.reason, CUSTOM_MESSAGE_CHARS) if self.reason is not None else "no reason given"
        where = self.point if self.effect_id is None else f"{self.point} {shown(self.effect_id)}"
        return f"retrieval {shown(self.definition_id)}: aborted {where} for query {shown_text(self.key)}: {why}"


class ExecutionFailed(_QueryFailed, template="retrieval {definition_id!r}: execute failed for query {key!t}: {reason}"):
    """``execute`` raised; the key stays reserved (no refund), nothing counted.

    >>> ExecutionFailed("docs", '"Agent"', "OSError: disk gone").message
    'retrieval \\'docs\\': execute failed for query "Agent": OSError: disk gone'
    """


class InvalidResult(_QueryFailed, template="retrieval {definition_id!r}: result for query {key!t} rejected: {reason}"):
    """``assert_result`` (or reading the result's sources) rejected the result.

    The key stays seen; no success is counted.

    >>> InvalidResult("docs", '"Agent"', "ValueError: no sources").message
    'retrieval \\'docs\\': result for query "Agent" rejected: ValueError: no sources'
    """


class SourceIdFailed(
    _QueryFailed,
    template="retrieval {definition_id!r}: naming sources for query {key!t} failed: {reason}",
):
    """Naming the result's sources failed; the key stays seen, nothing counted.

    >>> SourceIdFailed("docs", '"Agent"', "returned None, not str").message
    'retrieval \\'docs\\': naming sources for query "Agent" failed: returned None, not str'
    """


class ClockFailed(ErrorValue, template="retrieval {definition_id!r}: clock failed: {reason}"):
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


class EffectFailed(
    ErrorValue,
    template="retrieval {definition_id!r}: effect {effect_id!r} failed "
    "for query {key!t}: {reason}",
):
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
