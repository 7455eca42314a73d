"""Retrieval behaviour that sampled mutants showed no test observed: the clock at the
finish step (its cause, a naive reading), the cause kept from a failing budget message builder,
the key from a definition's own key function, a signal's reason before any abort, and the paths,
types and shared containers of canonical keys."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from typing import Any

from returns.result import Failure

from tests._retrieval_fixtures import BASE, T0, App, Boom, Doc, context
from thrift_fp.retrieval import (
    BudgetExhausted,
    CancellationController,
    CancellationSignal,
    ClockFailed,
    ErrorMessages,
    NotCanonical,
    RetrievalState,
    canonical_key,
    run_retrieval,
)

AGENT = '"Agent"'
EMPTY: RetrievalState[Doc] = RetrievalState()


def _clock(*readings: Callable[[], datetime]) -> Callable[[], datetime]:
    """A clock whose n-th reading is the n-th callable's value (which may raise)."""
    pending = iter(readings)
    return lambda: next(pending)()


def _raise(exc: Exception) -> Any:
    raise exc


def test_a_clock_that_raises_at_the_finish_keeps_the_raise_as_the_cause() -> None:
    cause = Boom("clock unplugged")
    outcome = run_retrieval(replace(BASE, now=_clock(lambda: T0, lambda: _raise(cause))), "Agent", context(), EMPTY)
    assert isinstance(outcome.result, Failure)
    error = outcome.result.failure()
    assert error == ClockFailed("docs", AGENT, "Boom: clock unplugged", cause)
    assert error.cause is cause
    assert error.message == "retrieval 'docs': clock failed: Boom: clock unplugged"
    assert outcome.state == RetrievalState(0, frozenset({AGENT}), ())


def test_a_naive_reading_at_the_finish_is_clock_failed_with_the_key_reserved() -> None:
    naive = datetime(2026, 1, 1, 0, 0, 5)
    outcome = run_retrieval(replace(BASE, now=_clock(lambda: T0, lambda: naive)), "Agent", context(), EMPTY)
    assert isinstance(outcome.result, Failure)
    error = outcome.result.failure()
    assert error == ClockFailed("docs", AGENT, "returned a naive datetime; give it a timezone")
    assert error.message == "retrieval 'docs': clock failed: returned a naive datetime; give it a timezone"
    assert outcome.state == RetrievalState(0, frozenset({AGENT}), ())


class _Opaque:
    """A hashable mapping key with no canonical encoding."""


def test_a_mapping_key_without_a_canonical_key_is_located_as_a_key() -> None:
    problem = canonical_key({"filters": {_Opaque(): 1}}).failure()
    assert problem == NotCanonical("query['filters'][<_Opaque object>]<key>", "_Opaque", "unsupported type")
    assert problem.message == "query['filters'][<_Opaque object>]<key> (_Opaque): unsupported type"


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


def test_the_key_is_what_the_definitions_own_key_function_returns_for_the_prepared_query() -> None:
    keyed = replace(BASE, key=lambda query: f"docs:{query.lower()}")
    outcome = run_retrieval(keyed, "  Agent ", context(), EMPTY)
    receipt = outcome.result.unwrap()
    assert receipt.key == "docs:agent"
    assert outcome.state.seen == frozenset({"docs:agent"})


def test_a_signal_that_was_never_aborted_has_no_reason() -> None:
    controller = CancellationController()
    assert (controller.signal.aborted, controller.signal.reason) == (False, None)
    assert CancellationSignal().reason is None
    controller.abort()
    assert (controller.signal.aborted, controller.signal.reason) == (True, None)


def test_a_query_nested_too_deep_names_the_type_at_the_cut_off() -> None:
    nested: list[object] = []
    for _ in range(101):
        nested = [nested]
    problem = canonical_key(nested).failure()
    assert problem == NotCanonical("query" + "[0]" * 101, "list", "nested deeper than 100 levels")


def test_a_set_member_without_a_canonical_key_is_located_as_a_member() -> None:
    problem = canonical_key({"tags": {_Opaque()}}).failure()
    assert problem == NotCanonical("query['tags']{member}", "_Opaque", "unsupported type")


def test_a_container_shared_twice_is_not_a_cycle() -> None:
    shared_map: dict[str, object] = {"a": 1}
    shared_list: list[object] = [1]
    shared_set: set[object] = {1}
    for shared, copy in ((shared_map, {"a": 1}), (shared_list, [1]), (shared_set, {1})):
        assert canonical_key([shared, shared]) == canonical_key([copy, copy])
        assert isinstance(canonical_key([shared, shared]).unwrap(), str)
