"""``run_retrieval``: the lifecycle stages (DESIGN §5), each a pure function returning a ``Result``.

Values in flight are frozen; each carries ``state``, the state to hand back if
the run stops at that point (the input state until the key is reserved, the
reserved state after, the counted state once accepted). A stop is a ``_Halt``:
the error plus that state. ``run_retrieval`` composes the stages with
``flow`` and ``bind``.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Mapping, Sequence

from datetime import datetime
from functools import partial, reduce
from types import MappingProxyType
from typing import Generic, TypeVar

from returns.pipeline import flow
from returns.pointfree import bind
from returns.result import Failure, Result, Success

from thrift_fp._shown import shown
from thrift_fp._value import value
from thrift_fp.retrieval._canonical import canonical_key
from thrift_fp.retrieval._context import OperationContext
from thrift_fp.retrieval._definition import RetrievalDefinition, RetrievalEffect
from thrift_fp.retrieval._errors import (
    Aborted,
    AbortPoint,
    BudgetExhausted,
    ClockFailed,
    DuplicateQuery,
    EffectFailed,
    ExecutionFailed,
    InvalidQuery,
    InvalidResult,
    KeyFailed,
    LimitFailed,
    PrepareFailed,
    RetrievalError,
    SourceIdFailed,
    Unauthorized,
    describe_exception,
)
from thrift_fp.retrieval._outcome import RetrievalOutcome
from thrift_fp.retrieval._receipt import Receipt
from thrift_fp.retrieval._state import RetrievalState

_Query = TypeVar("_Query")
_Source = TypeVar("_Source")
_Result = TypeVar("_Result")
_App = TypeVar("_App")
_Value = TypeVar("_Value")


def attempt(callback: Callable[[], _Value]) -> Result[_Value, Exception]:
    """Call a user callback (as a thunk); a raise becomes ``Failure(exception)``.

    >>> attempt(lambda: int("12"))
    <Success: 12>
    >>> attempt(lambda: int("twelve")).failure().__class__.__name__
    'ValueError'
    """
    try:
        return Success(callback())
    except Exception as exc:  # noqa: BLE001 - the one boundary where user callbacks may raise; keep the cause
        return Failure(exc)


@value
class _Halt(Generic[_Source]):
    """Why a run stopped, and the state it hands back."""

    error: RetrievalError
    state: RetrievalState[_Source]


@value
class _Asked(Generic[_Query, _Source]):
    """A query before it has a key."""

    query: _Query
    state: RetrievalState[_Source]
    started_at: datetime


@value
class _Keyed(Generic[_Query, _Source]):
    """A query with its key; ``state`` is the reserved state once reserved."""

    query: _Query
    key: str
    state: RetrievalState[_Source]
    started_at: datetime


@value
class _Executed(Generic[_Query, _Source, _Result]):
    """What execute returned, not yet validated."""

    keyed: _Keyed[_Query, _Source]
    result: _Result


@value
class _Read(Generic[_Query, _Source, _Result]):
    """A validated result and its sources."""

    keyed: _Keyed[_Query, _Source]
    result: _Result
    sources: tuple[_Source, ...]


@value
class _Accepted(Generic[_Query, _Source, _Result]):
    """A counted success: its receipt, the counted state, and the reserved state an abort hands back."""

    receipt: Receipt[_Query, _Source, _Result]
    state: RetrievalState[_Source]
    reserved: RetrievalState[_Source]


def _aware(value: object) -> Result[datetime, str]:
    if not isinstance(value, datetime):
        return Failure(f"returned {type(value).__name__}, not datetime")
    if value.tzinfo is None or value.utcoffset() is None:
        return Failure("returned a naive datetime; give it a timezone")
    return Success(value)


@value
class _Lifecycle(Generic[_Query, _Source, _Result, _App]):
    """The stages of one run of ``definition`` in ``context``, in order.

    >>> from thrift_fp.retrieval._state import RetrievalState
    >>> definition: RetrievalDefinition[str, str, tuple[str, ...], None] = RetrievalDefinition(
    ...     id="docs", description="", assert_input=lambda q, c: None, limit=lambda c: 1,
    ...     execute=lambda q, c: (q,), sources=lambda r: r)
    >>> life = _Lifecycle(definition, OperationContext(None))
    >>> asked = life.start("Agent", RetrievalState()).bind(life.derive_key)
    >>> asked.unwrap().key
    '"Agent"'
    """

    definition: RetrievalDefinition[_Query, _Source, _Result, _App]
    context: OperationContext[_App]

    def start(self, query: _Query, state: RetrievalState[_Source]) -> Result[_Asked[_Query, _Source], _Halt[_Source]]:
        """_Read the clock for ``started_at``; nothing is reserved if it fails."""
        now = attempt(self.definition.now)
        if isinstance(now, Failure):
            exc = now.failure()
            return Failure(_Halt(ClockFailed(self.definition.id, None, describe_exception(exc), exc), state))
        return (
            _aware(now.unwrap())
            .map(lambda started: _Asked(query, state, started))
            .alt(lambda reason: _Halt(ClockFailed(self.definition.id, None, reason), state))
        )

    def _hook(
        self, call: Callable[[], _Value], failed: Callable[[str, Exception], RetrievalError], state: RetrievalState[_Source]
    ) -> Result[_Value, _Halt[_Source]]:
        """``call()``, a user's hook; a raise halts the run with ``failed``'s error (what was
        raised, described, and the exception), the state as it is."""
        return attempt(call).alt(lambda exc: _Halt(failed(describe_exception(exc), exc), state))

    def prepare(self, asked: _Asked[_Query, _Source]) -> Result[_Asked[_Query, _Source], _Halt[_Source]]:
        """Step 1: normalise the query with ``prepare``."""
        prepare = self.definition.prepare
        if prepare is None:
            return Success(asked)
        return self._hook(lambda: prepare(asked.query, self.context), partial(PrepareFailed, self.definition.id), asked.state).map(
            lambda query: dataclasses.replace(asked, query=query)
        )

    def check_input(self, asked: _Asked[_Query, _Source]) -> Result[_Asked[_Query, _Source], _Halt[_Source]]:
        """Step 2: ``assert_input`` rejects a malformed query."""
        return self._hook(
            lambda: self.definition.assert_input(asked.query, self.context), partial(InvalidQuery, self.definition.id), asked.state
        ).map(lambda _: asked)

    def derive_key(self, asked: _Asked[_Query, _Source]) -> Result[_Keyed[_Query, _Source], _Halt[_Source]]:
        """Step 3a: the key, from ``key`` or ``canonical_key`` of the prepared query."""
        custom = self.definition.key
        if custom is None:
            # The query may hold user objects (a Mapping, a dataclass) whose methods raise.
            encoded = attempt(lambda: canonical_key(asked.query))
            if isinstance(encoded, Failure):
                exc = encoded.failure()
                reason = f"no canonical key: serialising it raised {describe_exception(exc)}"
                return Failure(_Halt(InvalidQuery(self.definition.id, reason, exc), asked.state))
            return (
                encoded.unwrap()
                .map(lambda key: _Keyed(asked.query, key, asked.state, asked.started_at))
                .alt(
                    lambda problem: _Halt(
                        InvalidQuery(self.definition.id, f"no canonical key: {problem.message}"), asked.state
                    )
                )
            )
        derived = attempt(lambda: custom(asked.query))
        if isinstance(derived, Failure):
            exc = derived.failure()
            return Failure(_Halt(KeyFailed(self.definition.id, describe_exception(exc), exc), asked.state))
        key: object = derived.unwrap()
        if not isinstance(key, str):
            reason = f"returned {type(key).__name__}, not str"
            return Failure(_Halt(KeyFailed(self.definition.id, reason), asked.state))
        return Success(_Keyed(asked.query, key, asked.state, asked.started_at))

    def _custom_message(
        self, builder: Callable[[_Query, OperationContext[_App]], str] | None, query: _Query
    ) -> tuple[str | None, BaseException | None]:
        # A failing builder must not hide the refusal: fall back to the default message.
        if builder is None:
            return None, None
        built = attempt(lambda: builder(query, self.context))
        if isinstance(built, Failure):
            return None, built.failure()
        text: object = built.unwrap()
        return (text if isinstance(text, str) else None), None

    def refuse_duplicate(self, keyed: _Keyed[_Query, _Source]) -> Result[_Keyed[_Query, _Source], _Halt[_Source]]:
        """Step 3b: a key already in ``seen`` is a ``DuplicateQuery``."""
        if keyed.key not in keyed.state.seen:
            return Success(keyed)
        text, cause = self._custom_message(self.definition.errors.duplicate, keyed.query)
        return Failure(_Halt(DuplicateQuery(self.definition.id, keyed.key, text, cause), keyed.state))

    def check_budget(self, keyed: _Keyed[_Query, _Source]) -> Result[_Keyed[_Query, _Source], _Halt[_Source]]:
        """Step 4: ``query_count >= limit(context)`` is ``BudgetExhausted``."""
        limited = attempt(lambda: self.definition.limit(self.context))
        if isinstance(limited, Failure):
            exc = limited.failure()
            error: RetrievalError = LimitFailed(self.definition.id, keyed.key, describe_exception(exc), exc)
            return Failure(_Halt(error, keyed.state))
        limit: object = limited.unwrap()
        if not isinstance(limit, int) or isinstance(limit, bool) or limit < 0:
            reason = f"returned {shown(limit)}, not a non-negative int"
            return Failure(_Halt(LimitFailed(self.definition.id, keyed.key, reason), keyed.state))
        count = keyed.state.query_count
        if count < limit:
            return Success(keyed)
        text, cause = self._custom_message(self.definition.errors.budget, keyed.query)
        return Failure(
            _Halt(BudgetExhausted(self.definition.id, keyed.key, count, limit, text, cause), keyed.state)
        )

    def authorize(self, keyed: _Keyed[_Query, _Source]) -> Result[_Keyed[_Query, _Source], _Halt[_Source]]:
        """Step 5: ``authorize`` refuses before the key is reserved."""
        authorize = self.definition.authorize
        if authorize is None:
            return Success(keyed)
        return self._hook(
            lambda: authorize(keyed.query, self.context), partial(Unauthorized, self.definition.id, keyed.key), keyed.state
        ).map(lambda _: keyed)

    def _unless_aborted(
        self, key: str, point: AbortPoint, state: RetrievalState[_Source], effect_id: str | None = None
    ) -> Result[None, _Halt[_Source]]:
        signal = self.context.signal
        if signal.aborted:
            return Failure(_Halt(Aborted(self.definition.id, key, point, signal.reason, effect_id), state))
        return Success(None)

    def check_not_aborted(self, keyed: _Keyed[_Query, _Source]) -> Result[_Keyed[_Query, _Source], _Halt[_Source]]:
        """Before execute: an aborted signal stops the run, nothing reserved."""
        return self._unless_aborted(keyed.key, "before-execute", keyed.state).map(lambda _: keyed)

    def reserve(self, keyed: _Keyed[_Query, _Source]) -> Result[_Keyed[_Query, _Source], _Halt[_Source]]:
        """Step 6: the key joins ``seen``; from here on a failure keeps it."""
        reserved = dataclasses.replace(keyed.state, seen=keyed.state.seen | {keyed.key})
        return Success(dataclasses.replace(keyed, state=reserved))

    def execute(self, keyed: _Keyed[_Query, _Source]) -> Result[_Executed[_Query, _Source, _Result], _Halt[_Source]]:
        """Step 7: the read; a raise is ``ExecutionFailed`` (no refund, not counted)."""
        return self._hook(
            lambda: self.definition.execute(keyed.query, self.context), partial(ExecutionFailed, self.definition.id, keyed.key),
            keyed.state,
        ).map(lambda result: _Executed(keyed, result))

    def still_wanted(
        self, point: AbortPoint, executed: _Executed[_Query, _Source, _Result]
    ) -> Result[_Executed[_Query, _Source, _Result], _Halt[_Source]]:
        """After execute and after ``assert_result`` (``point``): an aborted signal discards the
        result; the key stays reserved."""
        keyed = executed.keyed
        return self._unless_aborted(keyed.key, point, keyed.state).map(lambda _: executed)

    # Error builders are methods, not nested defs: the beartype claw would
    # re-decorate a nested def on every run.
    def _rejected(
        self,
        kind: type[InvalidResult] | type[SourceIdFailed],
        keyed: _Keyed[_Query, _Source],
        reason: str,
        cause: BaseException | None,
    ) -> _Halt[_Source]:
        return _Halt(kind(self.definition.id, keyed.key, reason, cause), keyed.state)

    def _effect_failed(
        self,
        effect_id: str,
        accepted: _Accepted[_Query, _Source, _Result],
        reason: str,
        cause: BaseException | None,
    ) -> _Halt[_Source]:
        receipt = accepted.receipt
        error = EffectFailed(self.definition.id, receipt.key, effect_id, reason, receipt, cause)
        return _Halt(error, accepted.state)

    def check_result(
        self, executed: _Executed[_Query, _Source, _Result]
    ) -> Result[_Executed[_Query, _Source, _Result], _Halt[_Source]]:
        """Step 8a: ``assert_result``; a raise is ``InvalidResult``."""
        keyed = executed.keyed
        assert_result = self.definition.assert_result
        if assert_result is None:
            return Success(executed)
        asserted = attempt(lambda: assert_result(executed.result, keyed.query, self.context))
        if isinstance(asserted, Failure):
            exc = asserted.failure()
            return Failure(self._rejected(InvalidResult, keyed, describe_exception(exc), exc))
        return Success(executed)

    def read_sources(
        self, executed: _Executed[_Query, _Source, _Result]
    ) -> Result[_Read[_Query, _Source, _Result], _Halt[_Source]]:
        """Step 8b: read the result's sources; a raise or a non-sequence is ``InvalidResult``."""
        keyed = executed.keyed
        invalid = partial(self._rejected, InvalidResult, keyed)
        listed = attempt(lambda: self.definition.sources(executed.result))
        if isinstance(listed, Failure):
            exc = listed.failure()
            return Failure(invalid(f"reading its sources raised {describe_exception(exc)}", exc))
        sources: object = listed.unwrap()
        if not isinstance(sources, Sequence) or isinstance(sources, str | bytes):
            return Failure(invalid(f"its sources are a {type(sources).__name__}, not a sequence", None))
        # Reading the items runs the user's sequence code, which may raise too.
        copied = attempt(lambda: tuple(listed.unwrap()))
        if isinstance(copied, Failure):
            exc = copied.failure()
            return Failure(invalid(f"reading its sources raised {describe_exception(exc)}", exc))
        return Success(_Read(keyed, executed.result, copied.unwrap()))

    def name_sources(self, read: _Read[_Query, _Source, _Result]) -> Result[_Read[_Query, _Source, _Result], _Halt[_Source]]:
        """Step 9a: ``naming`` assigns ids; they replace the sources' own ids in the result."""
        naming = self.definition.naming
        if naming is None:
            return Success(read)
        keyed = read.keyed
        sequence = keyed.state.query_count + 1
        failed = partial(self._rejected, SourceIdFailed, keyed)
        renamed: list[_Source] = []
        for source in read.sources:
            assigned = attempt(lambda: naming.source_id(source, keyed.query, sequence, self.context))
            if isinstance(assigned, Failure):
                exc = assigned.failure()
                return Failure(failed(f"source_id raised {describe_exception(exc)}", exc))
            new_id: object = assigned.unwrap()
            if not isinstance(new_id, str):
                return Failure(failed(f"source_id returned {type(new_id).__name__}, not str", None))
            one = attempt(lambda: naming.rename(source, new_id))
            if isinstance(one, Failure):
                exc = one.failure()
                return Failure(failed(f"rename raised {describe_exception(exc)}", exc))
            renamed.append(one.unwrap())
        sources = tuple(renamed)
        rebuilt = attempt(lambda: naming.with_sources(read.result, sources))
        if isinstance(rebuilt, Failure):
            exc = rebuilt.failure()
            return Failure(failed(f"with_sources raised {describe_exception(exc)}", exc))
        return Success(_Read(keyed, rebuilt.unwrap(), sources))

    def check_wanted_after_naming(
        self, read: _Read[_Query, _Source, _Result]
    ) -> Result[_Read[_Query, _Source, _Result], _Halt[_Source]]:
        """After naming the sources: an aborted signal discards the result; the key stays reserved."""
        keyed = read.keyed
        return self._unless_aborted(keyed.key, "after-source-naming", keyed.state).map(lambda _: read)

    def accept(self, read: _Read[_Query, _Source, _Result]) -> Result[_Accepted[_Query, _Source, _Result], _Halt[_Source]]:
        """Step 9b: read ``finished_at``, count the success, append the sources."""
        keyed = read.keyed
        now = attempt(self.definition.now)
        if isinstance(now, Failure):
            exc = now.failure()
            error = ClockFailed(self.definition.id, keyed.key, describe_exception(exc), exc)
            return Failure(_Halt(error, keyed.state))
        finished = _aware(now.unwrap())
        if isinstance(finished, Failure):
            reason = finished.failure()
            return Failure(_Halt(ClockFailed(self.definition.id, keyed.key, reason), keyed.state))
        state = keyed.state
        counted = RetrievalState(state.query_count + 1, state.seen, state.sources + read.sources)
        receipt = Receipt(
            definition_id=self.definition.id,
            sequence=counted.query_count,
            key=keyed.key,
            query=keyed.query,
            result=read.result,
            sources=read.sources,
            started_at=keyed.started_at,
            finished_at=finished.unwrap(),
        )
        return Success(_Accepted(receipt, counted, state))

    def _apply_effect(
        self,
        effect: RetrievalEffect[_Query, _Source, _Result, _App],
        accepted: _Accepted[_Query, _Source, _Result],
    ) -> Result[_Accepted[_Query, _Source, _Result], _Halt[_Source]]:
        receipt = accepted.receipt
        failed = partial(self._effect_failed, effect.id, accepted)
        handled = attempt(lambda: effect.handle(receipt, self.context))
        if isinstance(handled, Failure):
            exc = handled.failure()
            return Failure(failed(describe_exception(exc), exc))
        extensions: object = handled.unwrap()
        if not isinstance(extensions, Mapping):
            return Failure(failed(f"returned {type(extensions).__name__}, not a mapping", None))
        # Reading the returned mapping runs the user's mapping code, which may raise too.
        merged = attempt(lambda: MappingProxyType({**receipt.extensions, **handled.unwrap()}))
        if isinstance(merged, Failure):
            exc = merged.failure()
            return Failure(failed(f"reading its extensions raised {describe_exception(exc)}", exc))
        # An abort during the effect discards the result: the reserved state, not the counted one.
        return self._unless_aborted(receipt.key, "after-effect", accepted.reserved, effect.id).map(
            lambda _: dataclasses.replace(accepted, receipt=dataclasses.replace(receipt, extensions=merged.unwrap()))
        )

    def run_effects(
        self, accepted: _Accepted[_Query, _Source, _Result]
    ) -> Result[_Accepted[_Query, _Source, _Result], _Halt[_Source]]:
        """Step 10: effects in order, each merging its extensions; the first failure stops."""
        start: Result[_Accepted[_Query, _Source, _Result], _Halt[_Source]] = Success(accepted)
        return reduce(
            lambda so_far, effect: so_far.bind(lambda done: self._apply_effect(effect, done)),
            self.definition.effects,
            start,
        )


def run_retrieval(
    definition: RetrievalDefinition[_Query, _Source, _Result, _App],
    query: _Query,
    context: OperationContext[_App],
    state: RetrievalState[_Source],
) -> RetrievalOutcome[_Query, _Source, _Result]:
    """Run one retrieval under its policy; return the receipt or error, and the next state.

    Order (DESIGN §5): prepare, assert_input, key, duplicate, budget, authorize,
    abort check, reserve the key, execute, abort check, assert_result, abort
    check, the sources, naming, abort check, count, effects (an abort check after
    each). The signal is read just before the key is reserved (so a malformed,
    duplicate, over-quota or unauthorized query reports that, even when aborted)
    and after every later step that runs user code: an abort there keeps the key
    reserved and discards the result (nothing counted). ``state`` is never changed;
    a user callback that raises becomes the matching error value, with ``cause``.

    >>> def assert_input(query: str, context: OperationContext[None]) -> None:
    ...     if not query.strip():
    ...         raise ValueError("empty query")
    >>> manual: RetrievalDefinition[str, str, tuple[str, ...], None] = RetrievalDefinition(
    ...     id="manual-search", description="read the local manual",
    ...     assert_input=assert_input, limit=lambda context: 2,
    ...     execute=lambda query, context: tuple(d for d in ("Agent Core guide",) if query in d),
    ...     sources=lambda result: result)
    >>> first = run_retrieval(manual, "Agent", OperationContext(None), RetrievalState())
    >>> first.result.unwrap().result, first.state.query_count, sorted(first.state.seen)
    (('Agent Core guide',), 1, ['"Agent"'])
    >>> again = run_retrieval(manual, "Agent", OperationContext(None), first.state)
    >>> again.result.failure().message
    'retrieval \\'manual-search\\': duplicate query "Agent": each query runs once per request'
    >>> run_retrieval(manual, " ", OperationContext(None), first.state).result.failure().message
    "retrieval 'manual-search': invalid query: ValueError: empty query"
    """
    life = _Lifecycle(definition, context)
    ran: Result[_Accepted[_Query, _Source, _Result], _Halt[_Source]] = flow(
        life.start(query, state),
        bind(life.prepare),
        bind(life.check_input),
        bind(life.derive_key),
        bind(life.refuse_duplicate),
        bind(life.check_budget),
        bind(life.authorize),
        bind(life.check_not_aborted),
        bind(life.reserve),
        bind(life.execute),
        bind(partial(life.still_wanted, "after-execute")),
        bind(life.check_result),
        bind(partial(life.still_wanted, "after-assert-result")),
        bind(life.read_sources),
        bind(life.name_sources),
        bind(life.check_wanted_after_naming),
        bind(life.accept),
        bind(life.run_effects),
    )
    if isinstance(ran, Success):
        accepted = ran.unwrap()
        outcome: RetrievalOutcome[_Query, _Source, _Result] = RetrievalOutcome(Success(accepted.receipt), accepted.state)
    else:
        halt = ran.failure()
        outcome = RetrievalOutcome(Failure(halt.error), halt.state)
    if context.logger is not None:
        _log(context.logger, definition.id, outcome)
    return outcome


def _log(logger: logging.Logger, definition_id: str, outcome: RetrievalOutcome[_Query, _Source, _Result]) -> None:
    result = outcome.result
    if isinstance(result, Success):
        logger.debug("retrieval %r accepted query #%d", definition_id, result.unwrap().sequence)
    else:
        logger.debug("%s", result.failure().message)
