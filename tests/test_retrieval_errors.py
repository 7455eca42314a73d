"""One example per error branch: the error value, and the state handed back."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any, overload

import pytest
from returns.result import Failure

from tests._retrieval_fixtures import App, BASE, Boom, Doc, Found, T0, context
from thrift_fp.retrieval import (
    Aborted,
    BudgetExhausted,
    CancellationController,
    CancellationSignal,
    ClockFailed,
    DuplicateQuery,
    EffectFailed,
    ErrorMessages,
    ExecutionFailed,
    InvalidQuery,
    InvalidResult,
    KeyFailed,
    LimitFailed,
    OperationContext,
    PrepareFailed,
    RetrievalDefinition,
    RetrievalEffect,
    RetrievalError,
    RetrievalOutcome,
    RetrievalState,
    SourceIdFailed,
    SourceNaming,
    Unauthorized,
    run_retrieval,
)

EMPTY: RetrievalState[Doc] = RetrievalState()
AGENT = '"Agent"'


def _raise(exc: Exception) -> Any:
    raise exc


def _error(outcome: RetrievalOutcome[Any, Doc, Any]) -> RetrievalError:
    assert isinstance(outcome.result, Failure)
    error: RetrievalError = outcome.result.failure()
    return error


def _run(
    definition: RetrievalDefinition[str, Doc, Found, App],
    query: str = "Agent",
    state: RetrievalState[Doc] = EMPTY,
    app: App = App(),
) -> RetrievalOutcome[str, Doc, Found]:
    snapshot = replace(state)
    outcome = run_retrieval(definition, query, context(app), state)
    assert state == snapshot
    return outcome


def test_prepare_that_raises_is_prepare_failed_and_reserves_nothing() -> None:
    cause = Boom("cannot normalise")
    outcome = _run(replace(BASE, prepare=lambda q, c: _raise(cause)))
    assert _error(outcome) == PrepareFailed("docs", "Boom: cannot normalise", cause)
    assert _error(outcome).message == "retrieval 'docs': prepare failed: Boom: cannot normalise"
    assert outcome.state is EMPTY


def test_assert_input_rejection_is_invalid_query_with_its_cause() -> None:
    outcome = _run(BASE, query="   ")
    error = _error(outcome)
    assert isinstance(error, InvalidQuery)
    assert (error.definition_id, error.reason) == ("docs", "ValueError: empty query")
    assert isinstance(error.cause, ValueError)
    assert error.message == "retrieval 'docs': invalid query: ValueError: empty query"
    assert outcome.state is EMPTY


# A definition that takes any mapping as its query, for the queries that cannot be keyed.
LOOSE: RetrievalDefinition[Mapping[Any, object], Doc, Found, App] = RetrievalDefinition(
    id="loose",
    description="free-form filters",
    assert_input=lambda q, c: None,
    limit=lambda c: 5,
    execute=lambda q, c: Found(()),
    sources=lambda r: r.sources,
)


def test_a_query_without_a_canonical_key_is_invalid_query_not_a_crash() -> None:
    outcome = run_retrieval(LOOSE, {"text": "Agent", "when": object()}, context(), EMPTY)
    assert _error(outcome) == InvalidQuery("loose", "no canonical key: query['when'] (object): unsupported type")
    assert outcome.state is EMPTY


def test_a_custom_key_that_raises_or_returns_a_non_string_is_key_failed() -> None:
    cause = Boom("no key")
    raised = _run(replace(BASE, key=lambda q: _raise(cause)))
    assert _error(raised) == KeyFailed("docs", "Boom: no key", cause)
    wrong = _run(replace(BASE, key=lambda q: _raise_nothing(42)))
    assert _error(wrong) == KeyFailed("docs", "returned int, not str")
    assert _error(wrong).message == "retrieval 'docs': key function failed: returned int, not str"
    assert wrong.state is EMPTY


def _raise_nothing(value: object) -> Any:
    return value


def test_a_seen_key_is_duplicate_query_with_the_default_message() -> None:
    seen: RetrievalState[Doc] = RetrievalState(1, frozenset({AGENT}), ())
    outcome = _run(BASE, query=" Agent ", state=seen)
    assert _error(outcome) == DuplicateQuery("docs", AGENT)
    assert _error(outcome).message == (
        "retrieval 'docs': duplicate query \"Agent\": each query runs once per request"
    )
    assert outcome.state is seen


def test_errors_duplicate_builds_the_duplicate_message() -> None:
    seen: RetrievalState[Doc] = RetrievalState(1, frozenset({AGENT}), ())
    messages: ErrorMessages[str, App] = ErrorMessages(duplicate=lambda q, c: f"already searched {q!r}")
    outcome = _run(replace(BASE, errors=messages), state=seen)
    assert _error(outcome) == DuplicateQuery("docs", AGENT, "already searched 'Agent'")
    assert _error(outcome).message == "already searched 'Agent'"


def test_a_duplicate_builder_that_raises_keeps_the_default_message_and_the_cause() -> None:
    seen: RetrievalState[Doc] = RetrievalState(1, frozenset({AGENT}), ())
    cause = Boom("builder broke")
    messages: ErrorMessages[str, App] = ErrorMessages(duplicate=lambda q, c: _raise(cause))
    outcome = _run(replace(BASE, errors=messages), state=seen)
    assert _error(outcome) == DuplicateQuery("docs", AGENT, None, cause)
    assert _error(outcome).message.startswith("retrieval 'docs': duplicate query")


def test_a_used_up_quota_is_budget_exhausted() -> None:
    used: RetrievalState[Doc] = RetrievalState(2, frozenset({'"a"', '"b"'}), ())
    outcome = _run(BASE, state=used)
    assert _error(outcome) == BudgetExhausted("docs", AGENT, 2, 2)
    assert _error(outcome).message == (
        "retrieval 'docs': query budget exhausted (2 of 2 used); refused query \"Agent\""
    )
    assert outcome.state is used


def test_errors_budget_builds_the_budget_message() -> None:
    messages: ErrorMessages[str, App] = ErrorMessages(budget=lambda q, c: f"quota of {c.app.quota} reached")
    outcome = _run(replace(BASE, errors=messages), app=App(quota=0))
    assert _error(outcome) == BudgetExhausted("docs", AGENT, 0, 0, "quota of 0 reached")
    assert _error(outcome).message == "quota of 0 reached"


def test_a_limit_that_raises_or_is_not_a_count_is_limit_failed() -> None:
    cause = Boom("no quota service")
    raised = _run(replace(BASE, limit=lambda c: _raise(cause)))
    assert _error(raised) == LimitFailed("docs", AGENT, "Boom: no quota service", cause)
    negative = _run(BASE, app=App(quota=-1))
    assert _error(negative) == LimitFailed("docs", AGENT, "returned -1, not a non-negative int")
    # A bool is an int to Python, not a count: True must not read as a limit of 1.
    flag = _run(replace(BASE, limit=lambda c: True))
    assert _error(flag) == LimitFailed("docs", AGENT, "returned True, not a non-negative int")
    assert _error(negative).message == (
        "retrieval 'docs': limit failed for query \"Agent\": returned -1, not a non-negative int"
    )
    assert negative.state is EMPTY


def test_unauthorized_does_not_consume_the_key() -> None:
    outcome = _run(BASE, app=App(can_read=False))
    error = _error(outcome)
    assert isinstance(error, Unauthorized)
    assert (error.definition_id, error.key, error.reason) == ("docs", AGENT, "PermissionError: no read access")
    assert isinstance(error.cause, PermissionError)
    assert error.message == "retrieval 'docs': query \"Agent\" not authorized: PermissionError: no read access"
    assert outcome.state is EMPTY
    # The same query, once allowed, is not a duplicate.
    assert _run(BASE, state=outcome.state).result.unwrap().sequence == 1


def test_an_aborted_signal_before_execute_reserves_nothing() -> None:
    calls: list[str] = []

    def execute(query: str, context: OperationContext[App]) -> Found:
        calls.append(query)
        return Found(())

    definition = replace(BASE, execute=execute)
    signal = CancellationSignal.aborted_with("user left")
    outcome = run_retrieval(definition, "Agent", OperationContext(App(), signal), EMPTY)
    assert _error(outcome) == Aborted("docs", AGENT, "before-execute", "user left")
    assert _error(outcome).message == "retrieval 'docs': aborted before-execute for query \"Agent\": user left"
    assert outcome.state is EMPTY
    assert calls == []


def test_an_abort_during_execute_discards_the_result_and_keeps_the_key() -> None:
    controller = CancellationController()

    def execute(query: str, context: OperationContext[App]) -> Found:
        controller.abort()
        return Found((Doc("manual", "Agent"),))

    ctx = OperationContext(App(), controller.signal)
    outcome = run_retrieval(replace(BASE, execute=execute), "Agent", ctx, EMPTY)
    assert _error(outcome) == Aborted("docs", AGENT, "after-execute", None)
    assert _error(outcome).message.endswith("no reason given")
    assert outcome.state == RetrievalState(0, frozenset({AGENT}), ())


def test_execute_that_raises_keeps_the_key_reserved_and_counts_nothing() -> None:
    cause = OSError("index offline")
    outcome = _run(replace(BASE, execute=lambda q, c: _raise(cause)))
    assert _error(outcome) == ExecutionFailed("docs", AGENT, "OSError: index offline", cause)
    assert _error(outcome).message == "retrieval 'docs': execute failed for query \"Agent\": OSError: index offline"
    assert outcome.state == RetrievalState(0, frozenset({AGENT}), ())
    # No refund: the retry is a duplicate.
    assert isinstance(_error(_run(BASE, state=outcome.state)), DuplicateQuery)


def test_assert_result_rejection_leaves_the_key_seen_and_counts_nothing() -> None:
    def assert_result(result: Found, query: str, context: OperationContext[App]) -> None:
        if not result.sources:
            raise LookupError(f"nothing found for {query!r}")

    outcome = _run(replace(BASE, assert_result=assert_result), query="zebra")
    error = _error(outcome)
    assert isinstance(error, InvalidResult)
    assert (error.definition_id, error.key) == ("docs", '"zebra"')
    assert error.reason == "LookupError: nothing found for 'zebra'"
    assert isinstance(error.cause, LookupError)
    assert outcome.state == RetrievalState(0, frozenset({'"zebra"'}), ())


def test_sources_that_cannot_be_read_are_invalid_result() -> None:
    cause = AttributeError("no sources")
    raised = _run(replace(BASE, sources=lambda r: _raise(cause)))
    assert _error(raised) == InvalidResult(
        "docs", AGENT, "reading its sources raised AttributeError: no sources", cause
    )
    not_a_list = _run(replace(BASE, sources=lambda r: _raise_nothing("manual")))
    assert _error(not_a_list) == InvalidResult("docs", AGENT, "its sources are a str, not a sequence", None)
    assert not_a_list.state == RetrievalState(0, frozenset({AGENT}), ())


def _naming(**overrides: Any) -> SourceNaming[str, Doc, Found, App]:
    parts: dict[str, Any] = {
        "source_id": lambda s, q, n, c: f"S{n}",
        "rename": lambda s, new_id: replace(s, source_id=new_id),
        "with_sources": lambda r, sources: Found(sources),
    }
    return SourceNaming(**(parts | overrides))


@pytest.mark.parametrize(
    ("overrides", "reason", "has_cause"),
    [
        ({"source_id": lambda s, q, n, c: _raise(Boom("ids"))}, "source_id raised Boom: ids", True),
        ({"source_id": lambda s, q, n, c: None}, "source_id returned NoneType, not str", False),
        ({"rename": lambda s, new_id: _raise(Boom("frozen"))}, "rename raised Boom: frozen", True),
        ({"with_sources": lambda r, s: _raise(Boom("shape"))}, "with_sources raised Boom: shape", True),
    ],
)
def test_naming_that_fails_is_source_id_failed(overrides: dict[str, Any], reason: str, has_cause: bool) -> None:
    outcome = _run(replace(BASE, naming=_naming(**overrides)))
    error = _error(outcome)
    assert isinstance(error, SourceIdFailed)
    assert (error.definition_id, error.key, error.reason) == ("docs", AGENT, reason)
    assert isinstance(error.cause, Boom) == has_cause
    assert error.message == f"retrieval 'docs': naming sources for query \"Agent\" failed: {reason}"
    assert outcome.state == RetrievalState(0, frozenset({AGENT}), ())


def test_a_clock_that_fails_at_the_start_reserves_nothing() -> None:
    cause = Boom("no time")
    raised = _run(replace(BASE, now=lambda: _raise(cause)))
    assert _error(raised) == ClockFailed("docs", None, "Boom: no time", cause)
    naive = _run(replace(BASE, now=lambda: datetime(2026, 1, 1)))
    assert _error(naive) == ClockFailed("docs", None, "returned a naive datetime; give it a timezone")
    assert _error(naive).message == "retrieval 'docs': clock failed: returned a naive datetime; give it a timezone"
    assert naive.state is EMPTY


def test_a_clock_that_fails_at_the_finish_keeps_the_key_and_counts_nothing() -> None:
    readings = iter([T0])
    outcome = _run(replace(BASE, now=lambda: next(readings)))
    error = _error(outcome)
    assert isinstance(error, ClockFailed)
    assert (error.key, error.reason) == (AGENT, "StopIteration")
    assert outcome.state == RetrievalState(0, frozenset({AGENT}), ())


def test_an_effect_that_raises_is_effect_failed_and_the_query_still_counts() -> None:
    cause = Boom("audit log down")
    first: RetrievalEffect[str, Doc, Found, App] = RetrievalEffect(
        id="count", description="", handle=lambda r, c: {"count": len(r.sources)}
    )
    broken: RetrievalEffect[str, Doc, Found, App] = RetrievalEffect(
        id="audit", description="", handle=lambda r, c: _raise(cause)
    )
    outcome = _run(replace(BASE, effects=(first, broken)))
    error = _error(outcome)
    assert isinstance(error, EffectFailed)
    assert (error.definition_id, error.key, error.effect_id, error.reason, error.cause) == (
        "docs",
        AGENT,
        "audit",
        "Boom: audit log down",
        cause,
    )
    assert error.message == "retrieval 'docs': effect 'audit' failed for query \"Agent\": Boom: audit log down"
    # The receipt carries what the earlier effects added; the state counts the success.
    assert dict(error.receipt.extensions) == {"count": 2}
    assert error.receipt.sequence == 1
    assert outcome.state == RetrievalState(1, frozenset({AGENT}), error.receipt.sources)


def test_an_effect_that_returns_a_non_mapping_is_effect_failed() -> None:
    odd: RetrievalEffect[str, Doc, Found, App] = RetrievalEffect(
        id="odd", description="", handle=lambda r, c: _raise_nothing(["not", "a", "mapping"])
    )
    error = _error(_run(replace(BASE, effects=(odd,))))
    assert isinstance(error, EffectFailed)
    assert (error.reason, error.cause) == ("returned list, not a mapping", None)


class _UnreadableSources(Sequence[Doc]):
    """A sequence whose items raise when read: user code behind the ``sources`` callback."""

    def __len__(self) -> int:
        return 1

    @overload
    def __getitem__(self, index: int) -> Doc: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Doc]: ...
    def __getitem__(self, index: int | slice) -> Doc | Sequence[Doc]:
        raise Boom("item gone")


class _UnreadableMapping(Mapping[Any, object]):
    """A mapping whose iteration raises: user code behind a query or an effect's extensions."""

    def __len__(self) -> int:
        return 1

    def __iter__(self) -> Iterator[Any]:
        raise Boom("cannot iterate")

    def __getitem__(self, key: Any) -> object:
        raise Boom("cannot read")


def test_sources_whose_items_raise_are_invalid_result_and_keep_the_key() -> None:
    outcome = _run(replace(BASE, sources=lambda r: _UnreadableSources()))
    error = _error(outcome)
    assert isinstance(error, InvalidResult)
    assert (error.key, error.reason, isinstance(error.cause, Boom)) == (
        AGENT,
        "reading its sources raised Boom: item gone",
        True,
    )
    assert outcome.state == RetrievalState(0, frozenset({AGENT}), ())


def test_extensions_that_raise_when_read_are_effect_failed_and_the_query_still_counts() -> None:
    odd: RetrievalEffect[str, Doc, Found, App] = RetrievalEffect(
        id="odd", description="", handle=lambda r, c: _UnreadableMapping()
    )
    outcome = _run(replace(BASE, effects=(odd,)))
    error = _error(outcome)
    assert isinstance(error, EffectFailed)
    assert (error.effect_id, error.reason, isinstance(error.cause, Boom)) == (
        "odd",
        "reading its extensions raised Boom: cannot iterate",
        True,
    )
    assert outcome.state.query_count == 1


def test_a_query_that_raises_while_keyed_is_invalid_query_not_a_crash() -> None:
    outcome = run_retrieval(LOOSE, _UnreadableMapping(), context(), EMPTY)
    error = _error(outcome)
    assert isinstance(error, InvalidQuery)
    assert error.reason == "no canonical key: serialising it raised Boom: cannot iterate"
    assert isinstance(error.cause, Boom)
    assert outcome.state is EMPTY


def test_a_budget_message_builder_that_raises_leaves_the_default_message_and_keeps_the_cause() -> None:
    cause = Boom("no wording today")
    errors: ErrorMessages[str, App] = ErrorMessages(budget=lambda query, context: _raise(cause))
    full: RetrievalState[Doc] = RetrievalState(2, frozenset({'"other"'}), ())
    outcome = run_retrieval(replace(BASE, errors=errors), "Agent", context(), full)
    assert isinstance(outcome.result, Failure)
    error = outcome.result.failure()
    assert error == BudgetExhausted("docs", AGENT, 2, 2, None, cause)
    assert error.cause is cause
    assert error.message == "retrieval 'docs': query budget exhausted (2 of 2 used); refused query \"Agent\""
    assert outcome.state is full
