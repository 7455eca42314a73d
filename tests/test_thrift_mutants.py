"""Thrift behaviour that sampled mutants showed no test observed: a naive timestamp's
error value, an image's invalid fields, counting failures of `turn_tokens`, the keys of a refill
trace's dict, the fields the per-item loops name, a pair chain of the oldest-turns pass, the
thread option, and that a clean bucket takes its bulk path."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import cast

import pytest
from returns.result import Success

from thrift_fp.thrift import (
    CountingFailed,
    DuplicateId,
    ImageLike,
    InvalidItemField,
    InvalidOption,
    MalformedItem,
    Memory,
    Message,
    RefillTrace,
    ThriftOptions,
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


class _Loose:
    """A duck-typed item with exactly the attributes given (no dataclass defaults)."""

    def __init__(self, **fields: object) -> None:
        self.__dict__.update(fields)


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


# The second half of the 200-mutant sample: values the loops check one by one, the
# pair walk of the oldest-turns pass, the thread option, and the bulk paths themselves.


_NO_RESERVE = ThriftOptions(output_reserve=0, reserve_fraction=0.0)


def test_an_aware_non_utc_timestamp_is_accepted_and_ordered_by_its_instant() -> None:
    # 10:00+02:00 is 08:00 UTC, older than 09:00 UTC: it is the oldest message, shed first.
    plus_two = timezone(timedelta(hours=2))
    early = Message("early", "word " * 50, datetime(2026, 1, 1, 10, tzinfo=plus_two))
    later = Message("later", "word " * 50, datetime(2026, 1, 1, 9, tzinfo=timezone.utc))
    newest = Message("newest", "hi", datetime(2026, 1, 1, 11, tzinfo=timezone.utc))
    fitted = subtract_to_fit(WorkingSet(messages=(later, early, newest)), 80, None, _NO_RESERVE)
    assert [message.id for message in fitted.unwrap().working_set.messages] == ["later", "newest"]


def test_a_pair_chain_is_shed_whole_so_no_partner_is_orphaned() -> None:
    # a pairs m0 with m2, b pairs m1 with m3: shedding m0 means shedding m0..m3 together (the walk
    # visits every message of the run, not every other one).
    def message(ident: str, pair: str | None, second: int) -> Message:
        return Message(ident, "word " * 40, AT + timedelta(seconds=second), pair_id=pair)

    history = (message("m0", "a", 0), message("m1", "b", 1), message("m2", "a", 2), message("m3", "b", 3),
               message("m4", None, 4), message("m5", None, 5))
    # 6 x 41 tokens; within 125 once the whole chain (164) is shed, but also once only m0..m2 are.
    fitted = subtract_to_fit(WorkingSet(messages=history), 125, None, _NO_RESERVE).unwrap()
    assert [message.id for message in fitted.working_set.messages] == ["m4", "m5"]
    oldest = next(bucket for bucket in fitted.trace.buckets if bucket.note.startswith("oldest"))
    assert oldest.ids == ("m0", "m1", "m2", "m3")


def test_an_ephemeral_flag_that_is_not_a_bool_names_the_message() -> None:
    odd = _Loose(id="m1", content="hi", created_at=AT, ephemeral="yes")
    error = subtract_to_fit(WorkingSet(messages=(odd,)), 1000).failure()  # type: ignore[arg-type]  # misuse on purpose
    assert error == InvalidItemField("messages", "m1", "ephemeral", "yes", "expected a bool")


def test_a_memory_without_an_importance_attribute_ranks_as_zero() -> None:
    plain = _Loose(content="the user prefers metric units", id="units")
    ranked = Memory("likes tea", importance=0.5, id="tea")
    fitted = subtract_to_fit(WorkingSet(memories=(plain, ranked)), 1000).unwrap()  # type: ignore[arg-type]  # a memory-like duck
    assert [getattr(memory, "id") for memory in fitted.working_set.memories] == ["tea", "units"]


def test_a_retrievable_score_of_the_wrong_type_names_the_score_field() -> None:
    odd = _Loose(content="text", id="r1", score="high")
    error = subtract_to_fit(WorkingSet(retrievables=(odd,)), 1000).failure()  # type: ignore[arg-type]  # misuse on purpose
    assert error == InvalidItemField("retrievables", "r1", "score", "high", "expected a finite number")


def test_a_naive_thought_timestamp_names_the_thought_and_its_field() -> None:
    naive = datetime(2026, 1, 1)
    error = subtract_to_fit(WorkingSet(thoughts=(Thought("t1", "hmm", naive),)), 1000).failure()
    assert isinstance(error, InvalidItemField)
    assert (error.bucket, error.item, error.field, error.value) == ("thoughts", "t1", "created_at", naive)


def test_a_relevance_turn_with_unmeasurable_content_names_the_messages_bucket() -> None:
    odd = _Loose(id="m1", content=object(), created_at=AT)
    error = turn_tokens([(odd,)]).failure()  # type: ignore[list-item]  # misuse on purpose
    assert isinstance(error, UnmeasurableContent)
    assert (error.bucket, error.item) == ("messages", "m1")


def test_one_counting_thread_never_starts_the_counting_pool(monkeypatch: pytest.MonkeyPatch) -> None:
    from thrift_fp.tokens import _encoding

    def no_pool() -> object:
        raise AssertionError("counting_threads=1 must count on the calling thread")

    monkeypatch.setattr(_encoding, "_pool", no_pool)
    texts = tuple(Message(f"m{i}", f"message number {i}", AT + timedelta(seconds=i)) for i in range(200))
    assert isinstance(subtract_to_fit(WorkingSet(messages=texts), 10_000, None, ThriftOptions(counting_threads=1)), Success)


def test_a_clean_bucket_takes_the_bulk_path() -> None:
    # The C-level passes are the common case's path: a fault in them would fall back to
    # the per-item loops silently (same result, only slower), so their answer is pinned here.
    from thrift_fp.records import Retrievable
    from thrift_fp.thrift import WorkingRetrievable
    from thrift_fp.thrift._measure import _Collector

    history = tuple(Message(f"m{i}", "hi", AT + timedelta(seconds=i)) for i in range(3))
    assert _Collector([])._bulk_messages(history) is True
    plain = (WorkingRetrievable("a", id="a", score=0.5), WorkingRetrievable("b", id="b"))
    assert _Collector([])._bulk_retrievables(plain, ("a", "b"), (None, None)) is True
    records = (Retrievable("r", "body", "first-party", AT, AT),)
    assert _Collector([])._bulk_retrievables(records, ("r",), (None,)) is True
    # Not the common case: an aware but non-UTC timestamp goes to the loop.
    shifted = Message("s", "hi", datetime(2026, 1, 1, tzinfo=timezone(timedelta(hours=1))))
    assert _Collector([])._bulk_messages((*history, shifted)) is False


def test_duplicate_tool_call_refs_name_the_tool_calls_bucket() -> None:
    call = ToolCall("c1", 10, 1.0)
    assert subtract_to_fit(WorkingSet(tool_calls=(call, call)), 1000).failure() == DuplicateId("tool-calls", "c1")


def test_a_memory_id_that_is_not_a_str_names_the_memory_by_position() -> None:
    odd = _Loose(content="likes tea", id=3, importance=0.5)
    error = subtract_to_fit(WorkingSet(memories=(Memory("a"), odd)), 1000).failure()  # type: ignore[arg-type]  # misuse on purpose
    assert error == InvalidItemField("memories", "memory[1]", "id", 3, "expected a str or None")


def test_a_size_unknown_flag_that_is_not_a_bool_names_the_retrievable() -> None:
    odd = _Loose(content="text", id="r1", size_unknown=1)
    error = subtract_to_fit(WorkingSet(retrievables=(odd,)), 1000).failure()  # type: ignore[arg-type]  # misuse on purpose
    assert error == InvalidItemField("retrievables", "r1", "size_unknown", 1, "expected a bool")


def test_a_refill_option_that_is_not_a_bool_is_an_invalid_option_naming_it() -> None:
    options = object.__new__(ThriftOptions)  # past the checked constructor, as unchecked callers are
    for field in ThriftOptions.__dataclass_fields__:
        object.__setattr__(options, field, getattr(ThriftOptions(), field))
    object.__setattr__(options, "refill", "yes")
    error = subtract_to_fit(WorkingSet(), 1000, None, options).failure()
    assert error == InvalidOption("refill", "yes", "expected a bool")


def test_an_image_without_a_token_cost_is_malformed_in_the_image_bucket() -> None:
    ws = WorkingSet()
    object.__setattr__(ws, "image", _Loose(label="chart"))  # past the checked constructor
    error = subtract_to_fit(ws, 1000).failure()
    assert isinstance(error, MalformedItem)
    assert (error.bucket, error.index, error.attribute) == ("image", 0, "token_cost")
