"""Render behaviour that sampled mutants showed no test observed (issue 18): the fields of error
values on failure paths, values passed through `fit_and_render`, and the cut-off in `_shown`."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timezone

import pytest

from thrift_fp.records import Retrievable
from thrift_fp.render import FitFailed, InvalidFields, RenderCountFailed, fit_and_render
from thrift_fp.thrift import DuplicateId, Message, ThriftOptions, Tool, WorkingSet
from thrift_fp.tokens import EstimatorFailed, UnknownEncoding, register_token_estimator, unregister_token_estimator

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
    assert error.problem.startswith("is not a field (known: id, source, kind, score, date")
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
