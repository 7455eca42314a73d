"""Cancellation after execute: an abort during assert_result, source naming or any
effect is noticed at that boundary; the key stays reserved and the result is discarded."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest
from returns.result import Failure

from tests._retrieval_fixtures import App, BASE, Doc, Found
from thrift_fp.retrieval import (
    Aborted,
    CancellationController,
    CancellationSignal,
    OperationContext,
    Receipt,
    RetrievalDefinition,
    RetrievalEffect,
    RetrievalState,
    SourceNaming,
    run_retrieval,
)

AGENT = '"Agent"'
RESERVED: RetrievalState[Doc] = RetrievalState(0, frozenset({AGENT}), ())


def _naming(abort: CancellationController | None) -> SourceNaming[str, Doc, Found, App]:
    def source_id(source: Doc, query: str, sequence: int, context: OperationContext[App]) -> str:
        if abort is not None:
            abort.abort("left while naming")
        return f"{sequence}:{source.source_id}"

    return SourceNaming(
        source_id=source_id,
        rename=lambda source, new_id: replace(source, source_id=new_id),
        with_sources=lambda result, sources: Found(sources),
    )


def _effect(id: str, abort: CancellationController | None, ran: list[str]) -> RetrievalEffect[str, Doc, Found, App]:
    def handle(receipt: Receipt[str, Doc, Found], context: OperationContext[App]) -> dict[str, object]:
        ran.append(id)
        if abort is not None:
            abort.abort(f"left during {id}")
        return {id: True}

    return RetrievalEffect(id=id, description=id, handle=handle)


def _assert_result(abort: CancellationController) -> Any:
    def check(result: Found, query: str, context: OperationContext[App]) -> None:
        abort.abort("left while checking")

    return check


def _run(definition: RetrievalDefinition[str, Doc, Found, App], controller: CancellationController) -> Any:
    state: RetrievalState[Doc] = RetrievalState()
    return run_retrieval(definition, "Agent", OperationContext(App(), controller.signal), state)


def _aborted_during(step: str, aborting: Callable[[CancellationController], Any]) -> Any:
    """Run ``BASE`` with its ``step`` replaced by ``aborting(controller)`` and an audit effect: the
    result is discarded (the key stays reserved, no source joins the state, no effect runs); returns
    the outcome's result."""
    controller = CancellationController()
    ran: list[str] = []
    definition = replace(BASE, **{step: aborting(controller)}, effects=(_effect("audit", None, ran),))
    outcome = _run(definition, controller)
    assert outcome.state == RESERVED, "the named sources must not join the state"
    assert ran == [], "an effect ran on a discarded result"
    return outcome.result


def test_an_abort_during_assert_result_is_noticed_after_it() -> None:
    result = _aborted_during("assert_result", _assert_result)
    assert result == Failure(Aborted("docs", AGENT, "after-assert-result", "left while checking"))


def test_an_abort_during_source_naming_is_noticed_after_it() -> None:
    result = _aborted_during("naming", _naming)
    assert result == Failure(Aborted("docs", AGENT, "after-source-naming", "left while naming"))


@pytest.mark.parametrize("aborting", [0, 1, 2])
def test_an_abort_during_any_effect_is_noticed_after_that_effect(aborting: int) -> None:
    controller = CancellationController()
    ran: list[str] = []
    names = ("first", "second", "third")
    effects = tuple(_effect(name, controller if i == aborting else None, ran) for i, name in enumerate(names))
    outcome = _run(replace(BASE, naming=_naming(None), effects=effects), controller)
    error = outcome.result.failure()
    assert error == Aborted("docs", AGENT, "after-effect", f"left during {names[aborting]}", names[aborting])
    assert error.message == f"retrieval 'docs': aborted after-effect {names[aborting]!r} for query {AGENT}: left during {names[aborting]}"
    assert outcome.state == RESERVED, "an aborted run is not counted, even after it was accepted"
    assert ran == list(names[: aborting + 1]), "the effects after the abort must not run"


def test_without_an_abort_every_boundary_passes() -> None:
    controller = CancellationController()
    ran: list[str] = []
    definition = replace(
        BASE, assert_result=lambda r, q, c: None, naming=_naming(None), effects=(_effect("audit", None, ran),)
    )
    outcome = _run(definition, controller)
    receipt = outcome.result.unwrap()
    assert receipt.extensions == {"audit": True} and outcome.state.query_count == 1
    assert [doc.source_id for doc in outcome.state.sources] == ["1:manual", "1:faq"]


def test_a_key_reserved_by_a_late_abort_is_a_duplicate_next_time() -> None:
    controller = CancellationController()
    definition = replace(BASE, naming=_naming(controller))
    first = _run(definition, controller)
    again = run_retrieval(BASE, "Agent", OperationContext(App()), first.state)
    assert type(again.result.failure()).__name__ == "DuplicateQuery"


def test_a_signal_that_was_never_aborted_has_no_reason() -> None:
    controller = CancellationController()
    assert (controller.signal.aborted, controller.signal.reason) == (False, None)
    assert CancellationSignal().reason is None
    controller.abort()
    assert (controller.signal.aborted, controller.signal.reason) == (True, None)
