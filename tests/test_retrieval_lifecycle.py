"""Successful runs: naming, effects, clock, sequence, purity, cancellation, logging."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timedelta
from types import MappingProxyType
from typing import Any

import pytest
from returns.result import Failure

from tests._retrieval_fixtures import App, BASE, Boom, Doc, Found, LIBRARY, T0, context, ticking_clock
from tests._support import run_together
from thrift_fp.retrieval import (
    CancellationController,
    ClockFailed,
    OperationContext,
    Receipt,
    RetrievalEffect,
    RetrievalState,
    SourceNaming,
    run_retrieval,
)

EMPTY: RetrievalState[Doc] = RetrievalState()


def _cite(source: Doc, query: str, sequence: int, context: OperationContext[App]) -> str:
    return f"{sequence}:{source.source_id}"


NAMING: SourceNaming[str, Doc, Found, App] = SourceNaming(
    source_id=_cite,
    rename=lambda source, new_id: replace(source, source_id=new_id),
    with_sources=lambda result, sources: replace(result, sources=sources),
)


def test_assigned_source_ids_replace_the_sources_own_ids_everywhere() -> None:
    definition = replace(BASE, naming=NAMING)
    first = run_retrieval(definition, "Agent", context(), EMPTY)
    second = run_retrieval(definition, "notes", context(), first.state)

    receipt = first.result.unwrap()
    assert receipt.result == Found((Doc("1:manual", "Agent Core guide"), Doc("1:faq", "Agent FAQ")))
    assert receipt.sources == receipt.result.sources
    assert second.result.unwrap().sources == (Doc("2:notes", "release notes"),)
    # Acceptance order, across runs.
    assert [d.source_id for d in second.state.sources] == ["1:manual", "1:faq", "2:notes"]
    # The library itself is untouched.
    assert LIBRARY[0].source_id == "manual"


def test_receipt_records_the_prepared_query_key_and_injected_clock() -> None:
    definition = replace(BASE, now=ticking_clock(T0, timedelta(milliseconds=5)))
    receipt = run_retrieval(definition, "  Agent  ", context(), EMPTY).result.unwrap()
    assert (receipt.definition_id, receipt.query, receipt.key) == ("docs", "Agent", '"Agent"')
    assert (receipt.started_at, receipt.finished_at) == (T0, T0 + timedelta(milliseconds=5))


def test_sequence_counts_successes_only() -> None:
    state = EMPTY
    sequences: list[int] = []
    for query in ["Agent", "", "Agent", "notes", "zzz"]:
        outcome = run_retrieval(replace(BASE, limit=lambda c: 10), query, context(), state)
        state = outcome.state
        receipt = outcome.result.value_or(None)
        if receipt is not None:
            sequences.append(receipt.sequence)
    # "" is invalid and the second "Agent" is a duplicate; "zzz" succeeds with no sources.
    assert sequences == [1, 2, 3]
    assert state.query_count == 3


def _effect(name: str, value: object) -> RetrievalEffect[str, Doc, Found, App]:
    def handle(receipt: Receipt[str, Doc, Found], context: OperationContext[App]) -> dict[str, object]:
        return {name: value, "seen_before": tuple(receipt.extensions)}

    return RetrievalEffect(id=name, description=f"adds {name}", handle=handle)


def test_effects_run_in_order_and_merge_their_extensions_purely() -> None:
    definition = replace(BASE, effects=(_effect("a", 1), _effect("b", 2)))
    receipt = run_retrieval(definition, "Agent", context(), EMPTY).result.unwrap()
    assert isinstance(receipt.extensions, MappingProxyType)
    # Later effects see earlier extensions and win on a clash.
    assert dict(receipt.extensions) == {"a": 1, "b": 2, "seen_before": ("a", "seen_before")}


def test_an_effect_cannot_change_the_receipt_after_returning() -> None:
    kept: dict[str, object] = {}

    def handle(receipt: Receipt[str, Doc, Found], context: OperationContext[App]) -> dict[str, object]:
        kept["n"] = 1
        return kept

    effect: RetrievalEffect[str, Doc, Found, App] = RetrievalEffect(id="n", description="", handle=handle)
    receipt = run_retrieval(replace(BASE, effects=(effect,)), "Agent", context(), EMPTY).result.unwrap()
    kept["n"] = 99
    assert dict(receipt.extensions) == {"n": 1}


def test_the_input_state_is_returned_unchanged_and_a_new_state_is_built() -> None:
    start: RetrievalState[Doc] = RetrievalState(0, frozenset({'"x"'}), (Doc("old", "old"),))
    outcome = run_retrieval(BASE, "Agent", context(), start)
    assert start == RetrievalState(0, frozenset({'"x"'}), (Doc("old", "old"),))
    assert outcome.state == RetrievalState(1, frozenset({'"x"', '"Agent"'}), (Doc("old", "old"), *LIBRARY[:2]))


def test_the_controller_aborts_once_across_threads() -> None:
    controller = CancellationController()
    wins: list[bool] = []
    lock = threading.Lock()

    def abort(i: int) -> None:
        won = controller.abort(f"thread {i}")
        with lock:
            wins.append(won)

    run_together(abort, 16)
    assert wins.count(True) == 1
    assert controller.signal.aborted
    assert controller.signal.reason in {f"thread {i}" for i in range(16)}


def test_the_context_keeps_its_own_copy_of_diagnostics() -> None:
    diagnostics: dict[str, object] = {"trace": "t-1"}
    ctx = OperationContext(App(), diagnostics=diagnostics)
    diagnostics["trace"] = "changed"
    assert ctx.diagnostics == {"trace": "t-1"}


def test_a_context_logger_records_each_outcome(caplog: pytest.LogCaptureFixture) -> None:
    logger = logging.getLogger("tests.retrieval")
    ctx = OperationContext(App(), logger=logger)
    with caplog.at_level(logging.DEBUG, logger="tests.retrieval"):
        first = run_retrieval(BASE, "Agent", ctx, EMPTY)
        run_retrieval(BASE, "Agent", ctx, first.state)
    assert [r.getMessage() for r in caplog.records] == [
        "retrieval 'docs' accepted query #1",
        "retrieval 'docs': duplicate query \"Agent\": each query runs once per request",
    ]


AGENT = '"Agent"'


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


def test_the_key_is_what_the_definitions_own_key_function_returns_for_the_prepared_query() -> None:
    keyed = replace(BASE, key=lambda query: f"docs:{query.lower()}")
    outcome = run_retrieval(keyed, "  Agent ", context(), EMPTY)
    receipt = outcome.result.unwrap()
    assert receipt.key == "docs:agent"
    assert outcome.state.seen == frozenset({"docs:agent"})
