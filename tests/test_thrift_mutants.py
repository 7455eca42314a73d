"""Thrift behaviour that sampled mutants showed no test observed (issue 18): a naive timestamp's
error value, an image's invalid fields, counting failures of `turn_tokens`, and the keys of a refill trace's dict."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import cast

import pytest

from thrift_fp.thrift import (
    CountingFailed,
    ImageLike,
    InvalidItemField,
    Message,
    RefillTrace,
    Thought,
    ToolCall,
    ToolLike,
    UnmeasurableContent,
    WorkingSet,
    subtract_to_fit,
    turn_tokens,
)
from thrift_fp.tokens import EstimatorFailed, UnknownEncoding, register_token_estimator, unregister_token_estimator

AT = datetime(2026, 1, 1, tzinfo=timezone.utc)
BOOM = RuntimeError("no counter today")


def _raises(text: str) -> int:
    raise BOOM


@pytest.fixture
def raising_estimator() -> Iterator[str]:
    register_token_estimator("thrift-mutants-raises", _raises).unwrap()
    try:
        yield "thrift-mutants-raises"
    finally:
        unregister_token_estimator("thrift-mutants-raises")


def test_a_naive_message_timestamp_is_an_invalid_field_naming_the_message_and_field() -> None:
    naive = datetime(2026, 1, 1)
    error = subtract_to_fit(WorkingSet(messages=(Message("m1", "hi", naive),)), 1000).failure()
    reason = "naive datetime has no timezone; attach one (e.g. tzinfo=UTC)"
    assert error == InvalidItemField("messages", "m1", "created_at", naive, reason)
    assert error.message == f"messages item 'm1': invalid created_at {naive!r} ({reason})"


def test_turn_tokens_with_an_unknown_encoding_is_counting_failed() -> None:
    error = turn_tokens([(Message("a", "hello", AT),)], "no-such-encoding").failure()
    assert isinstance(error, CountingFailed)
    assert isinstance(error.error, UnknownEncoding)
    assert error.error.name == "no-such-encoding"
    assert error.message.startswith("token counting failed: unknown encoding 'no-such-encoding'")


def test_turn_tokens_with_a_failing_estimator_is_counting_failed_with_its_cause(raising_estimator: str) -> None:
    error = turn_tokens([(Message("a", "hello", AT),)], raising_estimator).failure()
    assert isinstance(error, CountingFailed)
    assert isinstance(error.error, EstimatorFailed)
    assert error.error.name == raising_estimator
    assert error.cause is BOOM
    assert error.message == (
        "token counting failed: estimator 'thrift-mutants-raises' failed: raised RuntimeError: no counter today"
    )


def test_a_refill_trace_as_a_dict_has_every_field_under_its_own_name() -> None:
    assert RefillTrace("retrievables", 300, 369, 4, 5, ("kb-7",)).as_dict() == {
        "bucket": "retrievables",
        "before_tokens": 300,
        "after_tokens": 369,
        "before_count": 4,
        "after_count": 5,
        "ids": ["kb-7"],
    }


@dataclass(frozen=True)
class _LooseImage:
    """A caller's image whose fields come from untyped data."""

    label: str
    token_cost: object
    kept: object = True


def test_an_image_with_a_bad_token_cost_is_an_invalid_field_of_the_image_bucket() -> None:
    image = cast(ImageLike, _LooseImage("diagram.png", -1))
    error = subtract_to_fit(WorkingSet(image=image), 1000).failure()
    assert error == InvalidItemField("image", "diagram.png", "token_cost", -1, "expected an int >= 0")
    assert error.message == "image item 'diagram.png': invalid token_cost -1 (expected an int >= 0)"


def test_an_image_with_an_invalid_kept_flag_names_the_image() -> None:
    image = cast(ImageLike, _LooseImage("diagram.png", 765, kept="yes"))
    error = subtract_to_fit(WorkingSet(image=image), 1000).failure()
    assert isinstance(error, InvalidItemField)
    assert (error.bucket, error.item, error.field, error.value) == ("image", "diagram.png", "kept", "yes")
    assert error.message.startswith("image item 'diagram.png': invalid kept 'yes' (")


_NOTES = [
    ("retrievables-size-unknown", "size unknown: excluded unmeasured, whatever the score or budget"),
    ("thoughts", "prior-turn thoughts stripped unless kept by id"),
    ("tools", "tools outside the relevant shortlist hidden (still callable)"),
    ("image", "image dropped while over budget, all or nothing"),
    ("tool-calls", "prior-turn calls, then this-turn calls beyond the keep, oldest first"),
    ("retrievables", "lowest score first while over budget"),
    ("memories", "lowest importance first while over budget"),
    ("messages", "ephemeral messages oldest first (with pair partners), keeping the latest"),
    ("messages", "oldest non-summary messages while over budget, pairs together"),
    ("thoughts-shed", "oldest thoughts while over budget, keeping protected ones and the newest"),
    ("tools-shed", "visible tools by shed_rank while over budget, protected last"),
]


@pytest.mark.parametrize("window", [1000, 20], ids=["within-budget", "over-budget"])
def test_every_pass_of_the_trace_says_what_it_does(window: int) -> None:
    # The notes are the trace's explanation to its reader (`BucketTrace.as_dict` carries them).
    ws = WorkingSet(thoughts=(Thought("t1", "check the logs", AT),), tool_calls=(ToolCall("call-1", 120, 1_700_000_000_000),))
    trace = subtract_to_fit(ws, window).unwrap().trace
    assert [(bucket.bucket, bucket.note) for bucket in trace.buckets] == _NOTES
    shed = {bucket.bucket: bucket.ids for bucket in trace.buckets if bucket.ids}
    assert shed == ({"thoughts": ("t1",)} if window == 1000 else {"thoughts": ("t1",), "tool-calls": ("call-1",)})


def test_with_pairs_in_the_history_an_unpaired_oldest_message_is_shed_alone_when_that_suffices() -> None:
    def message(id: str, minute: int, pair: str | None = None) -> Message:
        return Message(id, "word " * 20 + id, AT + timedelta(minutes=minute), pair_id=pair)

    history = (message("m1", 0), message("m2", 1), message("q", 2, "p"), message("a", 3, "p"), message("m3", 4))
    fitted = subtract_to_fit(WorkingSet(messages=history), 140).unwrap()
    oldest = [bucket for bucket in fitted.trace.buckets if bucket.bucket == "messages"][1]
    assert oldest.note == "oldest non-summary messages while over budget, pairs together"
    assert oldest.ids == ("m1",)
    assert [m.id for m in fitted.working_set.messages] == ["m2", "q", "a", "m3"]
    assert oldest.after_tokens == oldest.before_tokens - 22


@dataclass(frozen=True)
class _LooseTool:
    """A caller's tool whose description comes from untyped data."""

    name: str
    description: object


def test_a_tool_description_with_no_string_form_names_the_tool() -> None:
    tool = cast(ToolLike, _LooseTool("search", object()))
    error = subtract_to_fit(WorkingSet(tools=(tool,)), 1000).failure()
    assert error == UnmeasurableContent("tools", "search", "object has no string form but object.__str__")
    assert error.message == "cannot measure tools item 'search': object has no string form but object.__str__"
