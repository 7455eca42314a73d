"""Render behaviour that sampled mutants showed no test observed (issue 18): the fields of error
values on failure paths, values passed through `fit_and_render`, the cut-off in `_shown`, and the
exact refill's walk."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timezone

import pytest

from thrift_fp.records import Retrievable, TrustTier
from thrift_fp.render import (
    MAX_NONCE_ATTEMPTS,
    BodyUnavailable,
    FitFailed,
    FitRendered,
    InvalidFields,
    KeyedNonce,
    NonceCollision,
    RenderCountFailed,
    fit_and_render,
)
from thrift_fp.thrift import DuplicateId, Message, RefillTrace, ThriftOptions, Tool, WorkingSet
from thrift_fp.tokens import (
    EstimatorFailed,
    Tokenizable,
    UnknownEncoding,
    count_tokens,
    register_token_estimator,
    unregister_token_estimator,
)

WHEN = datetime(2026, 2, 1, tzinfo=timezone.utc)
RECORD = Retrievable("a", "refund policy", "first-party", WHEN, WHEN, source="src/a", score=0.5)
BOOM = RuntimeError("no counter today")


def _count_or_raise(text: str) -> int:
    # Pricing counts each piece; the directive piece holds no "<", the block tags do.
    if "<" in text:
        raise BOOM
    return len(text)


@pytest.fixture
def estimators() -> Iterator[None]:
    register_token_estimator("render-mutants-chars", len).unwrap()
    register_token_estimator("render-mutants-raises", _count_or_raise).unwrap()
    try:
        yield
    finally:
        unregister_token_estimator("render-mutants-chars")
        unregister_token_estimator("render-mutants-raises")


def test_an_unknown_encoding_names_itself_in_the_error_value() -> None:
    error = fit_and_render(WorkingSet(retrievables=(RECORD,)), 1000, encoding="no-such-encoding").failure()
    assert isinstance(error, RenderCountFailed)
    assert isinstance(error.error, UnknownEncoding)
    assert error.error.name == "no-such-encoding"
    assert "cl100k_base" in error.error.known
    assert error.message.startswith("token counting failed: unknown encoding 'no-such-encoding'; known encodings: ")
    assert error.cause is None


def test_a_failed_count_during_pricing_keeps_the_estimator_error_and_its_cause(estimators: None) -> None:
    error = fit_and_render(WorkingSet(retrievables=(RECORD,)), 1000, encoding="render-mutants-raises").failure()
    assert isinstance(error, RenderCountFailed)
    assert isinstance(error.error, EstimatorFailed)
    assert error.error.name == "render-mutants-raises"
    assert error.cause is BOOM
    assert error.message == "token counting failed: estimator 'render-mutants-raises' failed: raised RuntimeError: no counter today"


def test_the_encoding_reaches_the_fit_and_the_render(estimators: None) -> None:
    tools = (Tool("search", "Search the index."),)
    done = fit_and_render(WorkingSet(tools=tools, retrievables=(RECORD,)), 10_000, encoding="render-mutants-chars").unwrap()
    # A character-count estimator: the fit priced the tool and the render counted the text with it.
    tool_bucket = next(bucket for bucket in done.trace.buckets if bucket.bucket == "tools")
    assert tool_bucket.before_tokens == len("search\nSearch the index.")
    assert done.tokens == len(done.text) == done.fixed + done.costs["a"]


def test_the_encoding_defaults_to_the_options_one(estimators: None) -> None:
    options = ThriftOptions(encoding="render-mutants-chars")
    done = fit_and_render(WorkingSet(retrievables=(RECORD,)), 10_000, options=options).unwrap()
    assert done.tokens == len(done.text)


def test_relevant_tool_names_reach_the_fit() -> None:
    tools = (Tool("search", "Search the index."), Tool("shell", "Run a command."))
    done = fit_and_render(WorkingSet(tools=tools), 10_000, ["search"]).unwrap()
    assert [tool.name for tool in done.working_set.visible_tools()] == ["search"]
    tool_bucket = next(bucket for bucket in done.trace.buckets if bucket.bucket == "tools")
    assert (tool_bucket.before_count, tool_bucket.after_count, tool_bucket.ids) == (2, 1, ("shell",))


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("x" * 60, "'" + "x" * 60 + "'"),  # at the cut-off: shown whole
        ("x" * 61, "'" + "x" * 60 + "... (61 chars)"),  # one past it: cut, and marked as cut
        ("é\ud800", "'é\\ud800'"),  # a lone surrogate: repr escapes it, so the message encodes
    ],
)
def test_a_bad_field_name_is_shown_safely_and_briefly(name: str, shown: str) -> None:
    error = fit_and_render(WorkingSet(), 100, fields=[name]).failure()
    assert isinstance(error, InvalidFields)
    assert error.name == name
    assert error.problem.startswith("is not a field (known: id, source, heading, kind, score, date")
    assert error.message == f"fields: {shown} {error.problem}"
    error.message.encode("utf-8")


def test_a_field_named_twice_is_an_error_value_naming_it() -> None:
    error = fit_and_render(WorkingSet(), 100, fields=["id", "source", "id"]).failure()
    assert error == InvalidFields("id", "is named more than once")
    assert error.message == "fields: 'id' is named more than once"


def test_a_fit_that_fails_after_pricing_is_fit_failed_carrying_the_thrift_error() -> None:
    message = Message("m", "hi", WHEN, role="user")
    error = fit_and_render(WorkingSet(messages=(message, message), retrievables=(RECORD,)), 1000).failure()
    assert error == FitFailed(DuplicateId("messages", "m"))
    assert error.message == "fit failed: duplicate id 'm' in messages"


# The exact refill (`_refill_exactly`): a public record re-admitted statically without its
# block's carrier (b) is under-charged, so the retrievables' refill is redone at exact prices.
# Input order (a, b, c, d) is not the ranking (a .9, b .8, d .5, c .1).
def _exact_refill_case(a_words: int, b_words: int) -> WorkingSet:
    def record(ident: str, words: int, score: float, tier: TrustTier) -> Retrievable:
        return Retrievable(ident, "refund policy " * words, tier, WHEN, WHEN, source=f"src/{ident}", score=score)

    return WorkingSet(retrievables=(
        record("a", a_words, 0.9, "first-party"),
        record("b", b_words, 0.8, "third-party-public"),
        record("c", 10, 0.1, "third-party-public"),
        record("d", 20, 0.5, "third-party-public"),
    ))


def _exact_refill(ws: WorkingSet, window: int) -> FitRendered:
    options = ThriftOptions(output_reserve=0, refill=True)
    return fit_and_render(ws, window, None, options, nonce=KeyedNonce(bytes(range(32)))).unwrap()


def _retrievables_step(done: FitRendered) -> RefillTrace:
    return next(step for step in done.trace.refilled if step.bucket == "retrievables")


def test_the_exact_refill_walks_the_ranking_not_the_input_order() -> None:
    # Nothing survives shedding (a costs 825). d (.5) comes back at its exact 149 (own 65 +
    # directive + public tags); c (.1), first in input order after b, would take them instead.
    done = _exact_refill(_exact_refill_case(400, 60), 149)
    assert [record.id for record in done.records] == ["d"]
    assert _retrievables_step(done) == RefillTrace("retrievables", 0, 149, 0, 1, ("d",))
    assert done.tokens == count_tokens(done.text).unwrap().tokens == 149
    # The redone refill fills the budget to the token, and that fits.
    assert done.trace.total_after == done.budget == 149 and done.trace.fits


def test_the_exact_refill_walks_past_the_records_that_survived_shedding() -> None:
    # a survives shedding (184 with the directive and corpus tags); b (425) does not fit, and d
    # comes back after a in the ranking at its own 65 + the public tags: 276 in all.
    done = _exact_refill(_exact_refill_case(40, 200), 282)
    assert [record.id for record in done.records] == ["a", "d"]
    assert _retrievables_step(done) == RefillTrace("retrievables", 184, 276, 1, 2, ("d",))
    assert done.tokens == count_tokens(done.text).unwrap().tokens == done.trace.total_after == 276


def test_a_body_that_cannot_be_rendered_is_body_unavailable_naming_the_record() -> None:
    boom = ValueError("no context")

    def evaluate(ctx: object) -> str:
        raise boom

    record = Retrievable("dyn", Tokenizable(evaluate), "first-party", WHEN, WHEN)
    error = fit_and_render(WorkingSet(retrievables=(record,)), 1000).failure()
    assert isinstance(error, BodyUnavailable)
    assert (error.record_id, error.cause) == ("dyn", boom)


def test_a_survivor_showing_every_nonce_attempt_is_a_nonce_collision() -> None:
    # The first draw is refused because the survivor shows it; against every candidate then,
    # every attempt is shown too.
    mode = KeyedNonce(bytes(range(32)))
    body = " ".join(mode.draw("corpus", attempt) for attempt in range(MAX_NONCE_ATTEMPTS))
    record = Retrievable("p", body, "first-party", WHEN, WHEN)
    error = fit_and_render(WorkingSet(retrievables=(record,)), 5000, nonce=mode).failure()
    assert error == NonceCollision("corpus", MAX_NONCE_ATTEMPTS)


def test_the_rendered_prompt_is_not_tokenized_again_for_a_tiktoken_encoding(monkeypatch: pytest.MonkeyPatch) -> None:
    # Its count is exactly the charges (render._fit's module docstring); a custom estimator's
    # text is counted (`ChargeExceeded` guards it), a real vocabulary's is not.
    from thrift_fp.render import _fit

    def counted_again(*args: object) -> object:
        raise AssertionError("the rendered prompt was tokenized a second time")

    monkeypatch.setattr(_fit, "render_entries", counted_again)
    for encoding in ("cl100k_base", "o200k_base"):
        done = fit_and_render(WorkingSet(retrievables=(RECORD,)), 1000, encoding=encoding).unwrap()
        assert done.tokens == count_tokens(done.text, encoding).unwrap().tokens
