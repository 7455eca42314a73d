"""subtract_to_fit / fit_async: examples for each shortcoming of the source package we fix."""

from __future__ import annotations

import asyncio
import copy
import gc
import json
import warnings
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone, tzinfo
from typing import Any, cast

import pytest
from returns.result import Failure, Result, Success

from tests._support import BareItem as _LooseThought
from thrift_fp.thrift import (
    CountingFailed,
    DuplicateId,
    EstimatorRaised,
    Image,
    ImageLike,
    InvalidItemField,
    InvalidOption,
    MalformedItem,
    Memory,
    Message,
    MessageLike,
    Thought,
    ThriftOptions,
    Tool,
    ToolCall,
    ToolLike,
    UnmeasurableContent,
    WorkingRetrievable,
    WorkingSet,
    fit_async,
    subtract_to_fit,
)
from thrift_fp.tokens import TokenCount, TokenCounts, TokenError, UnknownEncoding, count_tokens

AT = datetime(2026, 1, 1, tzinfo=timezone.utc)


def at(minutes: int) -> datetime:
    return AT + timedelta(minutes=minutes)


def tokens(text: str) -> int:
    return count_tokens(text).unwrap().tokens


def busy_set() -> WorkingSet:
    return WorkingSet(
        system_prompt="You are a careful assistant.",
        standing_instructions=("Answer in English.",),
        messages=tuple(Message(f"m{i}", f"message number {i} " * 8, at(i)) for i in range(8)),
        memories=(Memory("the user likes tea " * 5, 0.2), Memory("the user is called Ada", 0.9)),
        retrievables=tuple(
            WorkingRetrievable(f"passage {i} " * 30, id=f"r{i}", score=i / 10) for i in range(6)
        ),
        thoughts=(Thought("t-old", "earlier idea " * 5, at(0)), Thought("t-now", "current idea", at(9), True)),
        tools=(Tool("search", "Search the web for pages " * 3, 1), Tool("calc", "Do arithmetic", 2),
               Tool("mail", "Send an email", 0)),
        tool_calls=(ToolCall("c1", 40, 1), ToolCall("c2", 40, 2, True), ToolCall("c3", 40, 3, True)),
        image=Image("chart.png", 255),
    )


@dataclass
class CountingEstimate:
    """A retrievable whose own estimator counts its calls (mutable on purpose, for the test)."""

    content: str
    id: str
    score: float = 0.5
    size_unknown: bool = False
    calls: list[str] = field(default_factory=list)

    def estimate_tokens(self, encoding: str) -> int:
        self.calls.append(encoding)
        return len(self.content.split())


def test_input_is_untouched() -> None:
    ws = busy_set()
    before = copy.deepcopy(ws)
    items = (ws.messages, ws.memories, ws.retrievables, ws.thoughts, ws.tools, ws.tool_calls, ws.image)
    fitted = subtract_to_fit(ws, 700, ["search", "calc"]).unwrap()
    assert fitted.working_set != ws
    assert ws == before
    assert (ws.messages, ws.memories, ws.retrievables, ws.thoughts, ws.tools, ws.tool_calls, ws.image) == items


def test_idempotent_including_image_and_tools() -> None:
    ws = busy_set()
    for window in (120, 400, 700, 1500, 5000):
        first = subtract_to_fit(ws, window, ["search", "calc"]).unwrap()
        again = subtract_to_fit(first.working_set, window, ["search", "calc"]).unwrap()
        assert again.working_set == first.working_set
        assert again.working_set.image == first.working_set.image
        assert again.working_set.visible_tool_names == first.working_set.visible_tool_names
        assert all(not bucket.ids for bucket in again.trace.buckets)


def test_each_item_measured_at_most_once() -> None:
    items = tuple(CountingEstimate("word " * (i + 1), f"r{i}", score=i / 50) for i in range(50))
    fitted = subtract_to_fit(WorkingSet(retrievables=items), 60).unwrap()
    assert fitted.trace.buckets[5].ids  # something was shed, yet:
    assert all(item.calls == ["cl100k_base"] for item in items)


def test_size_unknown_never_measured_nor_kept() -> None:
    unknown = CountingEstimate("huge " * 10, "u", score=1.0, size_unknown=True)
    known = CountingEstimate("small", "k", score=0.0)
    fitted = subtract_to_fit(WorkingSet(retrievables=(unknown, known)), 10**6).unwrap()
    assert fitted.working_set.retrievables == (known,)
    assert unknown.calls == []
    assert fitted.trace.buckets[0].ids == ("u",)


def test_pairs_leave_together() -> None:
    messages = (
        Message("q", "what is the weather " * 5, at(0), role="user"),
        Message("call", "calling weather tool " * 5, at(1), role="assistant", pair_id="w"),
        Message("note", "some note " * 5, at(2), role="assistant"),
        Message("result", "sunny and warm " * 5, at(3), role="tool", pair_id="w"),
        Message("answer", "it is sunny", at(4), role="assistant"),
    )
    ws = WorkingSet(messages=messages)
    total = sum(tokens(message.content) for message in messages)
    fitted = subtract_to_fit(ws, total - tokens(messages[0].content) - 1, None, reserve_none()).unwrap()
    kept = [message.id for message in fitted.working_set.messages]
    # Shedding "call" forces its result out too, and "note" between them (older than "result").
    assert kept == ["answer"]
    assert fitted.trace.buckets[8].ids == ("q", "call", "note", "result")


def test_pair_with_the_newest_message_is_kept() -> None:
    messages = (
        Message("old", "old chatter " * 20, at(0)),
        Message("call", "calling " * 20, at(1), pair_id="p"),
        Message("result", "result", at(2), pair_id="p"),
    )
    fitted = subtract_to_fit(WorkingSet(messages=messages), 1, None, reserve_none()).unwrap()
    assert [message.id for message in fitted.working_set.messages] == ["call", "result"]
    assert fitted.trace.refused


def reserve_none() -> ThriftOptions:
    return ThriftOptions(output_reserve=0)


@dataclass(frozen=True)
class AsyncEstimate:
    content: str
    id: str
    awaited: list[str]

    async def estimate_tokens(self, encoding: str) -> int:
        self.awaited.append(encoding)
        return 3


def test_fit_async_awaits_estimates() -> None:
    awaited: list[str] = []
    item = AsyncEstimate("a rather long body " * 50, "a", awaited)
    fitted = asyncio.run(fit_async(WorkingSet(retrievables=(item,)), 1000)).unwrap()
    assert awaited == ["cl100k_base"]
    assert fitted.trace.total_after == 3


def test_sync_fit_measures_the_string_and_never_awaits() -> None:
    awaited: list[str] = []
    item = AsyncEstimate("a rather long body " * 50, "a", awaited)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fitted = subtract_to_fit(WorkingSet(retrievables=(item,)), 1000).unwrap()
        gc.collect()
    assert awaited == []
    assert fitted.trace.total_after == tokens(item.content)
    assert not [w for w in caught if "never awaited" in str(w.message)]


def test_fit_async_reports_a_raising_awaitable() -> None:
    class Broken:
        content = "body"

        async def estimate_tokens(self, encoding: str) -> int:
            raise OSError("disk gone")

    error = asyncio.run(fit_async(WorkingSet(retrievables=(Broken(),)), 100)).failure()
    assert isinstance(error, EstimatorRaised)
    assert isinstance(error.cause, OSError)
    assert "retrievable[0]" in error.message


def test_estimate_results_that_count_and_those_that_fall_back() -> None:
    class Estimating:
        def __init__(self, content: str, value: object) -> None:
            self.content = content
            self.value = value

        def estimate_tokens(self, encoding: str) -> object:
            return self.value

    failed: Result[TokenCount, TokenError] = Failure(UnknownEncoding("x", ()))
    cases: list[tuple[object, int]] = [
        (7, 7),
        (TokenCount(8, "cl100k_base", "exact"), 8),
        (Success(TokenCount(9, "cl100k_base", "exact")), 9),
        (Success(10), 10),
        (True, tokens("hello world")),
        (-1, tokens("hello world")),
        ("12", tokens("hello world")),
        (failed, tokens("hello world")),
    ]
    for value, expected in cases:
        ws = WorkingSet(retrievables=(Estimating("hello world", value),))
        assert subtract_to_fit(ws, 1000).unwrap().trace.total_after == expected, value


def test_retrievable_like_item_with_own_str_is_measured_by_it() -> None:
    class Body:
        def __str__(self) -> str:
            return "not what the record renders"

    class RecordLike:
        content = Body()
        id = "rec"

        def __str__(self) -> str:
            return "rendered body of the record"

    fitted = subtract_to_fit(WorkingSet(retrievables=(RecordLike(),)), 1000).unwrap()
    assert fitted.trace.total_after == tokens("rendered body of the record")


def test_content_without_a_string_form_is_an_error_naming_the_item() -> None:
    class Opaque:
        pass

    @dataclass(frozen=True)
    class OpaqueMessage:
        id: str
        content: object
        created_at: datetime

    result = subtract_to_fit(WorkingSet(messages=(OpaqueMessage("m-opaque", Opaque(), AT),)), 100)
    failure = result.failure()
    assert isinstance(failure, UnmeasurableContent)
    assert "m-opaque" in failure.message and "Opaque" in failure.message


def test_raising_str_keeps_the_cause() -> None:
    class Exploding:
        def __str__(self) -> str:
            raise ValueError("boom")

    class Passage:
        content = Exploding()
        id = "p-x"

    failure = subtract_to_fit(WorkingSet(retrievables=(Passage(),)), 100).failure()
    assert isinstance(failure, UnmeasurableContent)
    assert isinstance(failure.cause, ValueError)
    assert "p-x" in failure.message


def test_raising_estimator_is_an_error_with_its_cause() -> None:
    class Raising:
        content = "text"
        id = "bad"

        def estimate_tokens(self, encoding: str) -> int:
            raise RuntimeError("nope")

    failure = subtract_to_fit(WorkingSet(retrievables=(Raising(),)), 100).failure()
    assert isinstance(failure, EstimatorRaised)
    assert isinstance(failure.cause, RuntimeError)
    assert "'bad'" in failure.message


def test_duplicate_ids_name_the_duplicate() -> None:
    cases = [
        WorkingSet(messages=(Message("x", "a", AT), Message("x", "b", AT))),
        WorkingSet(retrievables=(WorkingRetrievable("a", id="x"), WorkingRetrievable("b", id="x"))),
        WorkingSet(thoughts=(Thought("x", "a", AT), Thought("x", "b", AT))),
        WorkingSet(tool_calls=(ToolCall("x", 1, 1), ToolCall("x", 1, 2))),
        WorkingSet(tools=(Tool("x", "a"), Tool("x", "b"))),
        WorkingSet(memories=(Memory("a", id="x"), Memory("b", id="x"))),
    ]
    for ws in cases:
        failure = subtract_to_fit(ws, 100).failure()
        assert isinstance(failure, DuplicateId)
        assert "'x'" in failure.message


def test_invalid_fields_and_options_are_errors() -> None:
    bad_score = WorkingSet(retrievables=(WorkingRetrievable("a", id="r", score=float("nan")),))
    assert isinstance(subtract_to_fit(bad_score, 100).failure(), InvalidItemField)
    bad_cost = WorkingSet(tool_calls=(ToolCall("c", -1, 1),))
    assert isinstance(subtract_to_fit(bad_cost, 100).failure(), InvalidItemField)
    options = ThriftOptions(this_turn_result_keep=-1)
    assert isinstance(subtract_to_fit(WorkingSet(), 100, None, options).failure(), InvalidOption)
    unknown = subtract_to_fit(WorkingSet(), 100, encoding="no-such-encoding").failure()
    assert isinstance(unknown, CountingFailed)
    assert "no-such-encoding" in unknown.message


def test_bounded_refusal_keeps_the_floor() -> None:
    ws = WorkingSet(
        system_prompt="a long system prompt " * 50,
        messages=(Message("old", "old " * 20, at(0)), Message("new", "new message", at(1))),
        retrievables=(WorkingRetrievable("passage", id="r"),),
    )
    fitted = subtract_to_fit(ws, 50).unwrap()
    trace = fitted.trace
    assert (trace.fits, trace.refused) == (False, True)
    assert fitted.working_set.system_prompt == ws.system_prompt
    assert [message.id for message in fitted.working_set.messages] == ["new"]
    assert fitted.working_set.retrievables == ()


def test_tools_hidden_by_shed_rank_protected_last() -> None:
    tools = (Tool("a", "alpha " * 10, 0), Tool("b", "beta " * 10, 0), Tool("c", "gamma " * 10, 5),
             Tool("keep", "kept " * 10, -1))
    ws = WorkingSet(tools=tools)
    options = ThriftOptions(output_reserve=0, protected_tool_names=frozenset({"keep"}))
    fitted = subtract_to_fit(ws, 1, ["keep", "a", "b", "c"], options).unwrap()
    # Ties (a, b) go in relevance order (DESIGN §6 pass 10); the protected tool is hidden last.
    assert fitted.trace.buckets[10].ids == ("a", "b", "c", "keep")
    # Without a shortlist, relevance order is the tools' own order.
    plain = subtract_to_fit(ws, 1, None, options).unwrap()
    assert plain.trace.buckets[10].ids == ("a", "b", "c", "keep")
    assert fitted.working_set.visible_tools() == ()


def test_tool_shortlist_and_this_turn_keep() -> None:
    ws = busy_set()
    fitted = subtract_to_fit(ws, 10**6, ["calc"]).unwrap()
    assert [tool.name for tool in fitted.working_set.visible_tools()] == ["calc"]
    assert fitted.trace.buckets[2].ids == ("search", "mail")
    assert len(fitted.working_set.tools) == 3  # hidden, still callable
    tight = subtract_to_fit(ws, 1, ["calc"], ThriftOptions(this_turn_result_keep=1)).unwrap()
    assert [call.ref for call in tight.working_set.tool_calls] == ["c3"]


def test_trace_is_json() -> None:
    fitted = subtract_to_fit(busy_set(), 400, ["search"]).unwrap()
    decoded = json.loads(fitted.trace.to_json())
    assert decoded == fitted.trace.as_dict()
    assert [bucket["bucket"] for bucket in decoded["buckets"]] == [
        "retrievables-size-unknown", "thoughts", "tools", "image", "tool-calls", "retrievables",
        "memories", "messages", "messages", "thoughts-shed", "tools-shed",
    ]


def test_numbers_beyond_float_range_are_error_values() -> None:
    # Regression: an int score/importance/shed_rank/created_at_ms beyond float range raised
    # OverflowError (math.isfinite) out of subtract_to_fit instead of an error value.
    @dataclass(frozen=True)
    class Loose:
        content: str
        id: str
        score: object = None
        importance: object = None

    @dataclass(frozen=True)
    class StampedMessage:
        id: str
        content: str
        created_at: object

    huge = 10**400
    cases = [
        (WorkingSet(memories=(Loose("x", "k", importance=huge),)), "importance"),
        (WorkingSet(retrievables=(Loose("x", "r", score=huge),)), "score"),
        (WorkingSet(tools=(Tool("a", "b", huge),)), "shed_rank"),
        (WorkingSet(tool_calls=(ToolCall("c", 1, huge),)), "created_at_ms"),
        (WorkingSet(messages=(cast(MessageLike, StampedMessage("m", "x", huge)),)), "created_at"),
    ]
    for ws, field_name in cases:
        failure = subtract_to_fit(ws, 100).failure()
        assert isinstance(failure, InvalidItemField), field_name
        assert field_name in failure.message
        assert isinstance(subtract_to_fit(ws, 100).failure().message, str)


def test_a_tool_needs_only_name_and_description() -> None:
    # DESIGN §6 item shapes: a tool is name + description; shed_rank is optional (missing = 0),
    # like every other optional attribute. A two-field tool used to fail the ToolLike check.
    @dataclass(frozen=True)
    class BareTool:
        name: str
        description: str

    tools = (BareTool("a", "alpha " * 10), Tool("b", "beta " * 10, -1), BareTool("c", "gamma " * 10))
    ws = WorkingSet(tools=tools)
    fitted = subtract_to_fit(ws, 1, None, ThriftOptions(output_reserve=0)).unwrap()
    assert fitted.trace.buckets[10].ids == ("b", "a", "c")


class _Loose:
    """A duck-typed item with exactly the attributes given (no dataclass defaults)."""

    def __init__(self, **fields: object) -> None:
        self.__dict__.update(fields)


_BAD_FIELDS = [
    (WorkingSet(messages=(_Loose(id="m1", content="hi", created_at=AT, summary="yes"),)),  # type: ignore[arg-type]  # misuse on purpose
     InvalidItemField("messages", "m1", "summary", "yes", "expected a bool")),
    (WorkingSet(messages=(_Loose(id="m1", content="hi", created_at=AT, pair_id=5),)),  # type: ignore[arg-type]  # misuse on purpose
     InvalidItemField("messages", "m1", "pair_id", 5, "expected a str or None")),
    (WorkingSet(thoughts=(_Loose(id="t1", content="hmm", created_at=AT, this_turn="yes"),)),  # type: ignore[arg-type]  # misuse on purpose
     InvalidItemField("thoughts", "t1", "this_turn", "yes", "expected a bool")),
    (WorkingSet(tool_calls=(_Loose(ref="c1", token_cost="x", created_at_ms=1.0),)),  # type: ignore[arg-type]  # misuse on purpose
     InvalidItemField("tool-calls", "c1", "token_cost", "x", "expected an int >= 0")),
    (WorkingSet(tool_calls=(_Loose(ref="c1", token_cost=3, created_at_ms=1.0, this_turn="yes"),)),  # type: ignore[arg-type]  # misuse on purpose
     InvalidItemField("tool-calls", "c1", "this_turn", "yes", "expected a bool")),
]


@pytest.mark.parametrize(("working_set", "expected"), _BAD_FIELDS)
def test_each_invalid_item_field_is_named_by_bucket_item_field_value_and_reason(
    working_set: WorkingSet, expected: InvalidItemField
) -> None:
    # Callers route on these fields (which bucket, which item, which attribute), not on the text.
    assert subtract_to_fit(working_set, 1000).failure() == expected


def test_a_memory_whose_content_has_no_text_names_the_memories_bucket() -> None:
    class NoText:
        def __str__(self) -> str:
            raise ValueError("no text")

    odd = _Loose(id="k", content=NoText(), importance=0.5)
    error = subtract_to_fit(WorkingSet(memories=(odd,)), 1000).failure()  # type: ignore[arg-type]  # misuse on purpose
    assert isinstance(error, UnmeasurableContent) and (error.bucket, error.item) == ("memories", "k")


def test_invalid_options_and_reserves_carry_the_offending_value_and_reason() -> None:
    from thrift_fp.thrift import InvalidBudget

    infinite = subtract_to_fit(WorkingSet(), 1000, None, ThriftOptions(output_reserve=float("inf"))).failure()
    assert infinite == InvalidBudget("output_reserve", float("inf"), "must be a finite number")
    negative = subtract_to_fit(WorkingSet(), 1000, None, ThriftOptions(this_turn_result_keep=-1)).failure()
    assert negative == InvalidOption("this_turn_result_keep", -1, "expected an int >= 0")
    named = subtract_to_fit(WorkingSet(), 1000, [3]).failure()  # type: ignore[list-item]  # misuse on purpose
    assert named == InvalidOption("relevant_tool_names[0]", 3, "expected a str")


def test_a_naive_message_timestamp_is_an_invalid_field_naming_the_message_and_field() -> None:
    naive = datetime(2026, 1, 1)
    error = subtract_to_fit(WorkingSet(messages=(Message("m1", "hi", naive),)), 1000).failure()
    reason = "naive datetime has no timezone; attach one (e.g. tzinfo=UTC)"
    assert error == InvalidItemField("messages", "m1", "created_at", naive, reason)
    assert error.message == f"messages item 'm1': invalid created_at {naive!r} ({reason})"


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


def test_a_thought_with_no_string_form_names_the_thoughts_bucket() -> None:
    thought = _LooseThought("t1", object(), AT)
    error = subtract_to_fit(WorkingSet(thoughts=(thought,)), 1000).failure()
    assert error == UnmeasurableContent("thoughts", "t1", "object has no string form but object.__str__")
    assert error.message == "cannot measure thoughts item 't1': object has no string form but object.__str__"


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


def test_an_image_without_a_token_cost_is_malformed_in_the_image_bucket() -> None:
    ws = WorkingSet()
    object.__setattr__(ws, "image", _Loose(label="chart"))  # past the checked constructor
    error = subtract_to_fit(ws, 1000).failure()
    assert isinstance(error, MalformedItem)
    assert (error.bucket, error.index, error.attribute) == ("image", 0, "token_cost")


# Every error value of the fit's validation, compared whole: callers route on the bucket, item,
# field, value and reason, so each is pinned on every path that can produce it (the first item,
# after valid items, and after messages carried from the previous fit).

NAN = float("nan")
HUGE = 10**400
NAIVE = datetime(2026, 1, 1)
NAIVE_REASON = "naive datetime has no timezone; attach one (e.g. tzinfo=UTC)"


class _NoText:
    """A content with neither its own ``__str__`` nor ``__repr__``."""


NO_TEXT = "_NoText has no string form but object.__str__"


def _message(**overrides: object) -> _Loose:
    fields: dict[str, object] = {"id": "bad", "content": "odd one", "created_at": AT}
    fields.update(overrides)
    return _Loose(**fields)


_VALID_MESSAGES = (Message("m0", "first words", at(0)), Message("m1", "second words", at(1)))

_BAD_MESSAGES: list[tuple[dict[str, object], object]] = [
    ({"created_at": NAIVE}, InvalidItemField("messages", "bad", "created_at", NAIVE, NAIVE_REASON)),
    ({"created_at": "today"}, InvalidItemField("messages", "bad", "created_at", "today", "expected a finite number")),
    ({"created_at": NAN}, InvalidItemField("messages", "bad", "created_at", NAN, "expected a finite number")),
    ({"created_at": True}, InvalidItemField("messages", "bad", "created_at", True, "expected a finite number")),
    ({"created_at": HUGE}, InvalidItemField("messages", "bad", "created_at", HUGE, "expected a finite number")),
    ({"summary": "yes"}, InvalidItemField("messages", "bad", "summary", "yes", "expected a bool")),
    ({"summary": 1}, InvalidItemField("messages", "bad", "summary", 1, "expected a bool")),
    ({"ephemeral": "no"}, InvalidItemField("messages", "bad", "ephemeral", "no", "expected a bool")),
    ({"ephemeral": 0}, InvalidItemField("messages", "bad", "ephemeral", 0, "expected a bool")),
    ({"token_cost": -1}, InvalidItemField("messages", "bad", "token_cost", -1, "expected an int >= 0")),
    ({"token_cost": "5"}, InvalidItemField("messages", "bad", "token_cost", "5", "expected an int >= 0")),
    ({"token_cost": True}, InvalidItemField("messages", "bad", "token_cost", True, "expected an int >= 0")),
    ({"token_cost": 1.5}, InvalidItemField("messages", "bad", "token_cost", 1.5, "expected an int >= 0")),
    ({"pair_id": 5}, InvalidItemField("messages", "bad", "pair_id", 5, "expected a str or None")),
    ({"pair_id": b"p"}, InvalidItemField("messages", "bad", "pair_id", b"p", "expected a str or None")),
    ({"content": _NoText()}, UnmeasurableContent("messages", "bad", NO_TEXT)),
    # The first invalid attribute in the loop's order is the one reported.
    ({"created_at": NAIVE, "summary": "yes"}, InvalidItemField("messages", "bad", "created_at", NAIVE, NAIVE_REASON)),
    ({"summary": "yes", "ephemeral": "no"}, InvalidItemField("messages", "bad", "summary", "yes", "expected a bool")),
    ({"ephemeral": "no", "token_cost": -1}, InvalidItemField("messages", "bad", "ephemeral", "no", "expected a bool")),
    ({"token_cost": -1, "pair_id": 5}, InvalidItemField("messages", "bad", "token_cost", -1, "expected an int >= 0")),
    ({"content": _NoText(), "pair_id": 5}, UnmeasurableContent("messages", "bad", NO_TEXT)),
]


@pytest.mark.parametrize(("overrides", "expected"), _BAD_MESSAGES)
@pytest.mark.parametrize("where", ["alone", "after-valid", "after-carried"])
def test_each_invalid_message_field_is_the_whole_error_value_wherever_the_message_sits(
    overrides: dict[str, object], expected: object, where: str
) -> None:
    bad = cast(MessageLike, _message(**overrides))
    if where == "alone":
        error = subtract_to_fit(WorkingSet(messages=(bad,)), 1000).failure()
    elif where == "after-valid":
        error = subtract_to_fit(WorkingSet(messages=(*_VALID_MESSAGES, bad)), 1000).failure()
    else:
        first = subtract_to_fit(WorkingSet(messages=_VALID_MESSAGES), 1000).unwrap()
        error = subtract_to_fit(WorkingSet(messages=(*_VALID_MESSAGES, bad)), 1000, counts=first.counts).failure()
    assert error == expected


_BAD_IDS: list[tuple[WorkingSet, object]] = [
    (WorkingSet(messages=(*_VALID_MESSAGES, cast(MessageLike, _message(id=5)))),
     InvalidItemField("messages", "messages[2]", "id", 5, "expected a str")),
    (WorkingSet(thoughts=(Thought("t0", "a", AT), cast(Thought, _Loose(id=5, content="b", created_at=AT)))),
     InvalidItemField("thoughts", "thoughts[1]", "id", 5, "expected a str")),
    (WorkingSet(tool_calls=(ToolCall("c0", 1, 1.0), cast(ToolCall, _Loose(ref=5, token_cost=1, created_at_ms=2.0)))),
     InvalidItemField("tool-calls", "tool-calls[1]", "ref", 5, "expected a str")),
    (WorkingSet(tools=(Tool("t0", "a"), cast(Tool, _Loose(name=5, description="b")))),
     InvalidItemField("tools", "tools[1]", "name", 5, "expected a str")),
    (WorkingSet(memories=(Memory("a"), Memory("b"), cast(Memory, _Loose(content="c", id=b"k")))),
     InvalidItemField("memories", "memory[2]", "id", b"k", "expected a str or None")),
    (WorkingSet(retrievables=(WorkingRetrievable("a"), cast(WorkingRetrievable, _Loose(content="c", id=7)))),
     InvalidItemField("retrievables", "retrievable[1]", "id", 7, "expected a str or None")),
    (WorkingSet(messages=(Message("x", "a", at(0)), Message("y", "b", at(1)), Message("x", "c", at(2)))),
     DuplicateId("messages", "x")),
    (WorkingSet(thoughts=(Thought("x", "a", AT), Thought("x", "b", AT))), DuplicateId("thoughts", "x")),
    (WorkingSet(tools=(Tool("x", "a"), Tool("y", "b"), Tool("x", "c"))), DuplicateId("tools", "x")),
    (WorkingSet(memories=(Memory("a", id="x"), Memory("b", id="x"))), DuplicateId("memories", "x")),
    # An anonymous item is named by its position, which an explicit id may repeat.
    (WorkingSet(memories=(Memory("a", id="memory[1]"), Memory("b"))), DuplicateId("memories", "memory[1]")),
    (WorkingSet(retrievables=(WorkingRetrievable("a", id="retrievable[1]"), WorkingRetrievable("b"))),
     DuplicateId("retrievables", "retrievable[1]")),
    (WorkingSet(retrievables=(WorkingRetrievable("a", id="x"), WorkingRetrievable("b", id="x"))),
     DuplicateId("retrievables", "x")),
]


@pytest.mark.parametrize(("working_set", "expected"), _BAD_IDS)
def test_an_id_that_is_not_a_str_or_repeats_is_the_whole_error_value(working_set: WorkingSet, expected: object) -> None:
    assert subtract_to_fit(working_set, 1000).failure() == expected


def test_ids_after_carried_messages_are_named_by_their_position_and_checked_against_the_carried_ones() -> None:
    first = subtract_to_fit(WorkingSet(messages=_VALID_MESSAGES), 1000).unwrap()
    odd = cast(MessageLike, _message(id=5))
    error = subtract_to_fit(WorkingSet(messages=(*_VALID_MESSAGES, odd)), 1000, counts=first.counts).failure()
    assert error == InvalidItemField("messages", "messages[2]", "id", 5, "expected a str")
    again = Message("m0", "a repeat of the first id", at(2))
    repeated = subtract_to_fit(WorkingSet(messages=(*_VALID_MESSAGES, again)), 1000, counts=first.counts).failure()
    assert repeated == DuplicateId("messages", "m0")
    twice = (*_VALID_MESSAGES, Message("n", "a", at(2)), Message("n", "b", at(3)))
    assert subtract_to_fit(WorkingSet(messages=twice), 1000, counts=first.counts).failure() == DuplicateId("messages", "n")


_ITEM_CASES: list[tuple[str, WorkingSet, object]] = [
    # memories: importance, content (an anonymous memory is named by its position)
    *[(f"memory-importance-{value!r}", WorkingSet(memories=(Memory("ok", 0.5), cast(Memory, _Loose(content="m", importance=value)))),
       InvalidItemField("memories", "memory[1]", "importance", value, "expected a finite number"))
      for value in (NAN, float("inf"), "high", True, HUGE)],
    ("memory-content", WorkingSet(memories=(Memory("ok"), cast(Memory, _Loose(content=_NoText(), id="k")))),
     UnmeasurableContent("memories", "k", NO_TEXT)),
    ("memory-importance-before-content", WorkingSet(memories=(cast(Memory, _Loose(content=_NoText(), importance="x")),)),
     InvalidItemField("memories", "memory[0]", "importance", "x", "expected a finite number")),
    # retrievables: score, content, size_unknown
    *[(f"retrievable-score-{value!r}", WorkingSet(retrievables=(WorkingRetrievable("ok", score=0.5), cast(WorkingRetrievable, _Loose(content="r", score=value)))),
       InvalidItemField("retrievables", "retrievable[1]", "score", value, "expected a finite number"))
      for value in (NAN, float("-inf"), "high", True, HUGE)],
    ("retrievable-content", WorkingSet(retrievables=(WorkingRetrievable("ok"), cast(WorkingRetrievable, _Loose(content=_NoText(), id="r")))),
     UnmeasurableContent("retrievables", "r", NO_TEXT)),
    *[(f"retrievable-size-unknown-{value!r}", WorkingSet(retrievables=(WorkingRetrievable("ok"), cast(WorkingRetrievable, _Loose(content="r", size_unknown=value)))),
       InvalidItemField("retrievables", "retrievable[1]", "size_unknown", value, "expected a bool"))
      for value in (1, "yes", 0)],
    # thoughts: created_at, this_turn, content, in that order
    *[(f"thought-created-{value!r}", WorkingSet(thoughts=(Thought("ok", "a", AT), cast(Thought, _Loose(id="t", content="b", created_at=value)))),
       InvalidItemField("thoughts", "t", "created_at", value, reason))
      for value, reason in ((NAIVE, NAIVE_REASON), ("now", "expected a finite number"), (NAN, "expected a finite number"))],
    *[(f"thought-this-turn-{value!r}", WorkingSet(thoughts=(Thought("ok", "a", AT), cast(Thought, _Loose(id="t", content="b", created_at=AT, this_turn=value)))),
       InvalidItemField("thoughts", "t", "this_turn", value, "expected a bool"))
      for value in ("yes", 1)],
    ("thought-content", WorkingSet(thoughts=(Thought("ok", "a", AT), cast(Thought, _Loose(id="t", content=_NoText(), created_at=AT)))),
     UnmeasurableContent("thoughts", "t", NO_TEXT)),
    ("thought-created-first", WorkingSet(thoughts=(cast(Thought, _Loose(id="t", content=_NoText(), created_at="x", this_turn="y")),)),
     InvalidItemField("thoughts", "t", "created_at", "x", "expected a finite number")),
    ("thought-this-turn-before-content", WorkingSet(thoughts=(cast(Thought, _Loose(id="t", content=_NoText(), created_at=AT, this_turn="y")),)),
     InvalidItemField("thoughts", "t", "this_turn", "y", "expected a bool")),
    # tools: shed_rank, description
    *[(f"tool-rank-{value!r}", WorkingSet(tools=(Tool("ok", "a"), cast(Tool, _Loose(name="t", description="b", shed_rank=value)))),
       InvalidItemField("tools", "t", "shed_rank", value, "expected a finite number"))
      for value in (NAN, "1", True, HUGE)],
    ("tool-description", WorkingSet(tools=(Tool("ok", "a"), cast(Tool, _Loose(name="t", description=_NoText())))),
     UnmeasurableContent("tools", "t", NO_TEXT)),
    ("tool-rank-before-description", WorkingSet(tools=(cast(Tool, _Loose(name="t", description=_NoText(), shed_rank="x")),)),
     InvalidItemField("tools", "t", "shed_rank", "x", "expected a finite number")),
    # tool calls: token_cost, created_at_ms, this_turn, in that order
    *[(f"call-cost-{value!r}", WorkingSet(tool_calls=(ToolCall("ok", 1, 1.0), cast(ToolCall, _Loose(ref="c", token_cost=value, created_at_ms=2.0)))),
       InvalidItemField("tool-calls", "c", "token_cost", value, "expected an int >= 0"))
      for value in (-1, "3", True, 2.0)],
    *[(f"call-created-{value!r}", WorkingSet(tool_calls=(ToolCall("ok", 1, 1.0), cast(ToolCall, _Loose(ref="c", token_cost=1, created_at_ms=value)))),
       InvalidItemField("tool-calls", "c", "created_at_ms", value, "expected a finite number"))
      for value in (NAN, "now", AT, True)],
    *[(f"call-this-turn-{value!r}", WorkingSet(tool_calls=(ToolCall("ok", 1, 1.0), cast(ToolCall, _Loose(ref="c", token_cost=1, created_at_ms=2.0, this_turn=value)))),
       InvalidItemField("tool-calls", "c", "this_turn", value, "expected a bool"))
      for value in ("yes", 1)],
    ("call-cost-first", WorkingSet(tool_calls=(cast(ToolCall, _Loose(ref="c", token_cost=-1, created_at_ms="x", this_turn="y")),)),
     InvalidItemField("tool-calls", "c", "token_cost", -1, "expected an int >= 0")),
    ("call-created-before-this-turn", WorkingSet(tool_calls=(cast(ToolCall, _Loose(ref="c", token_cost=1, created_at_ms="x", this_turn="y")),)),
     InvalidItemField("tool-calls", "c", "created_at_ms", "x", "expected a finite number")),
    # image: token_cost, kept
    *[(f"image-cost-{value!r}", WorkingSet(image=cast(ImageLike, _LooseImage("pic", value))),
       InvalidItemField("image", "pic", "token_cost", value, "expected an int >= 0"))
      for value in (-1, True, "9", 9.0)],
    *[(f"image-kept-{value!r}", WorkingSet(image=cast(ImageLike, _LooseImage("pic", 9, kept=value))),
       InvalidItemField("image", "pic", "kept", value, "expected a bool"))
      for value in ("yes", 1)],
    ("image-cost-before-kept", WorkingSet(image=cast(ImageLike, _LooseImage("pic", -1, kept="yes"))),
     InvalidItemField("image", "pic", "token_cost", -1, "expected an int >= 0")),
]


@pytest.mark.parametrize(("working_set", "expected"), [case[1:] for case in _ITEM_CASES], ids=[case[0] for case in _ITEM_CASES])
def test_each_invalid_field_of_every_bucket_is_the_whole_error_value(working_set: WorkingSet, expected: object) -> None:
    assert subtract_to_fit(working_set, 1000).failure() == expected
    # fit_async validates the same way.
    assert asyncio.run(fit_async(working_set, 1000)).failure() == expected


def _with(options: ThriftOptions, **fields: object) -> ThriftOptions:
    # Past the checked constructor: a caller's options built from untyped data.
    for name, value in fields.items():
        object.__setattr__(options, name, value)
    return options


def _passes_reason() -> str:
    from thrift_fp.thrift._options import SHED_PASSES

    return f"passes must name each of {', '.join(SHED_PASSES)} exactly once"


def _orders() -> list[tuple[str, ThriftOptions, object]]:
    from thrift_fp.thrift._options import SHED_PASSES, ShedOrder

    short = ShedOrder("short", SHED_PASSES[:-1])
    doubled = ShedOrder("doubled", (*SHED_PASSES[:-1], SHED_PASSES[0]))
    extra = ShedOrder("extra", (*SHED_PASSES, SHED_PASSES[0]))
    return [
        (name, ThriftOptions(shed_order=order), InvalidOption("shed_order", name, _passes_reason()))
        for name, order in (("short", short), ("doubled", doubled), ("extra", extra))
    ]


_BAD_OPTIONS: list[tuple[str, ThriftOptions, object]] = [
    ("keep-negative", ThriftOptions(this_turn_result_keep=-1), InvalidOption("this_turn_result_keep", -1, "expected an int >= 0")),
    ("keep-bool", _with(ThriftOptions(), this_turn_result_keep=True), InvalidOption("this_turn_result_keep", True, "expected an int >= 0")),
    ("keep-str", _with(ThriftOptions(), this_turn_result_keep="3"), InvalidOption("this_turn_result_keep", "3", "expected an int >= 0")),
    *_orders(),
    ("refill-str", _with(ThriftOptions(), refill="yes"), InvalidOption("refill", "yes", "expected a bool")),
    ("refill-int", _with(ThriftOptions(), refill=1), InvalidOption("refill", 1, "expected a bool")),
    ("threads-zero", ThriftOptions(counting_threads=0), InvalidOption("counting_threads", 0, "expected None or an int >= 1")),
    ("threads-bool", _with(ThriftOptions(), counting_threads=True), InvalidOption("counting_threads", True, "expected None or an int >= 1")),
    ("threads-str", _with(ThriftOptions(), counting_threads="2"), InvalidOption("counting_threads", "2", "expected None or an int >= 1")),
    ("keep-before-refill", _with(ThriftOptions(this_turn_result_keep=-1), refill="yes"), InvalidOption("this_turn_result_keep", -1, "expected an int >= 0")),
    ("refill-before-threads", _with(ThriftOptions(counting_threads=0), refill="yes"), InvalidOption("refill", "yes", "expected a bool")),
]


@pytest.mark.parametrize(("options", "expected"), [case[1:] for case in _BAD_OPTIONS], ids=[case[0] for case in _BAD_OPTIONS])
def test_each_invalid_option_is_the_whole_error_value(options: ThriftOptions, expected: object) -> None:
    assert subtract_to_fit(busy_set(), 1000, None, options).failure() == expected


def test_option_boundaries_are_accepted() -> None:
    options = ThriftOptions(this_turn_result_keep=0, counting_threads=1, refill=True)
    assert isinstance(subtract_to_fit(busy_set(), 1000, None, options), Success)


def test_relevant_tool_names_are_checked_one_by_one_and_one_str_is_one_name() -> None:
    named = subtract_to_fit(busy_set(), 10**6, ["calc", "mail", 3]).failure()  # type: ignore[list-item]  # misuse on purpose
    assert named == InvalidOption("relevant_tool_names[2]", 3, "expected a str")
    one = subtract_to_fit(busy_set(), 10**6, "calc").unwrap()
    assert [tool.name for tool in one.working_set.visible_tools()] == ["calc"]
    repeated = subtract_to_fit(busy_set(), 10**6, ["mail", "calc", "mail"]).unwrap()
    assert [tool.name for tool in repeated.working_set.visible_tools()] == ["calc", "mail"]


def test_an_unknown_encoding_is_counting_failed_wrapping_the_unknown_encoding() -> None:
    from thrift_fp.tokens import get_encoding

    expected = CountingFailed(get_encoding("no-such-encoding").failure())
    assert subtract_to_fit(busy_set(), 1000, encoding="no-such-encoding").failure() == expected
    by_option = ThriftOptions(encoding="no-such-encoding")
    assert subtract_to_fit(busy_set(), 1000, None, by_option).failure() == expected
    # The keyword wins over the option.
    assert isinstance(subtract_to_fit(busy_set(), 1000, None, by_option, encoding="cl100k_base"), Success)
    assert subtract_to_fit(busy_set(), 1000, None, ThriftOptions(), encoding="no-such-encoding").failure() == expected


def test_invalid_budgets_through_the_fit_are_the_whole_error_value() -> None:
    from thrift_fp.thrift import InvalidBudget

    assert subtract_to_fit(busy_set(), -1).failure() == InvalidBudget("context_window", -1, "must be a finite number >= 0")
    fraction = ThriftOptions(reserve_fraction=1.5)
    assert subtract_to_fit(busy_set(), 100, None, fraction).failure() == InvalidBudget("reserve_fraction", 1.5, "must be within [0, 1]")
    reserve = ThriftOptions(output_reserve=NAN)
    assert subtract_to_fit(busy_set(), 100, None, reserve).failure() == InvalidBudget("output_reserve", NAN, "must be a finite number")


ESTIMATE_FAILED = RuntimeError("no estimate for this one")


class _FailingOnCue:
    """A plain ``estimate_tokens`` (a function on the class): 5, or `ESTIMATE_FAILED` raised for
    the content ``"fails"``. No slots of its own, so a subclass chooses its call path."""

    __slots__ = ()
    content: str

    def estimate_tokens(self, encoding: str) -> int:
        if self.content == "fails":
            raise ESTIMATE_FAILED
        return 5


class _SlottedEstimate(_FailingOnCue):
    """One type, no ``__dict__``, a plain ``estimate_tokens``: the bulk call path."""

    __slots__ = ("content", "id")

    def __init__(self, content: str, id: str) -> None:
        self.content = content
        self.id = id


class _LooseEstimate(_FailingOnCue):
    """An instance ``__dict__``: the per-item call path."""

    def __init__(self, content: str, id: str | None = None) -> None:
        self.content = content
        if id is not None:
            self.id = id


class _AsyncFailing:
    def __init__(self, content: str) -> None:
        self.content = content

    async def estimate_tokens(self, encoding: str) -> int:
        if self.content == "fails":
            raise ESTIMATE_FAILED
        return 5


@pytest.mark.parametrize(
    ("retrievables", "key"),
    [
        ((_SlottedEstimate("fine", "a"), _SlottedEstimate("fine", "b"), _SlottedEstimate("fails", "c")), "c"),
        ((_SlottedEstimate("fails", "a"), _SlottedEstimate("fine", "b")), "a"),
        ((_LooseEstimate("fine", "a"), _LooseEstimate("fails", "b"), _LooseEstimate("fine", "c")), "b"),
        ((_LooseEstimate("fine"), _LooseEstimate("fails")), "retrievable[1]"),
        ((WorkingRetrievable("plain", id="p"), _LooseEstimate("fails", "q")), "q"),
    ],
    ids=["bulk-last", "bulk-first", "loop", "loop-anonymous", "loop-mixed"],
)
def test_an_estimator_that_raises_is_estimator_raised_naming_the_item_with_the_cause(
    retrievables: tuple[object, ...], key: str
) -> None:
    ws = WorkingSet(retrievables=cast(tuple[WorkingRetrievable, ...], retrievables))
    assert subtract_to_fit(ws, 1000).failure() == EstimatorRaised(key, ESTIMATE_FAILED)


def test_an_awaited_estimate_that_raises_is_estimator_raised_naming_the_item_with_the_cause() -> None:
    items = cast(tuple[WorkingRetrievable, ...], (_AsyncFailing("fine"), _AsyncFailing("fails"), _AsyncFailing("fine")))
    error = asyncio.run(fit_async(WorkingSet(retrievables=items), 1000)).failure()
    assert error == EstimatorRaised("retrievable[1]", ESTIMATE_FAILED)
    fine = cast(tuple[WorkingRetrievable, ...], (_AsyncFailing("fine"), _AsyncFailing("fine")))
    assert asyncio.run(fit_async(WorkingSet(retrievables=fine), 1000)).unwrap().trace.total_after == 10


def _missing(name: str) -> str:
    return f"AttributeError: '_Loose' object has no attribute '{name}'"


_MALFORMED: list[tuple[str, WorkingSet, MalformedItem]] = [
    ("message-created", WorkingSet(messages=(Message("m", "a", AT), cast(Message, _Loose(id="n", content="b")))),
     MalformedItem("messages", 1, "_Loose", "created_at", _missing("created_at"))),
    ("message-id", WorkingSet(messages=(cast(Message, _Loose(content="b", created_at=AT)),)),
     MalformedItem("messages", 0, "_Loose", "id", _missing("id"))),
    ("memory-content", WorkingSet(memories=(Memory("a"), Memory("b"), cast(Memory, _Loose(id="k")))),
     MalformedItem("memories", 2, "_Loose", "content", _missing("content"))),
    ("retrievable-content", WorkingSet(retrievables=(WorkingRetrievable("a"), cast(WorkingRetrievable, _Loose(id="r")))),
     MalformedItem("retrievables", 1, "_Loose", "content", _missing("content"))),
    ("thought-content", WorkingSet(thoughts=(Thought("t", "a", AT), cast(Thought, _Loose(id="u", created_at=AT)))),
     MalformedItem("thoughts", 1, "_Loose", "content", _missing("content"))),
    ("call-created", WorkingSet(tool_calls=(ToolCall("c", 1, 1.0), cast(ToolCall, _Loose(ref="d", token_cost=1)))),
     MalformedItem("tool-calls", 1, "_Loose", "created_at_ms", _missing("created_at_ms"))),
    ("tool-description", WorkingSet(tools=(Tool("t", "a"), cast(Tool, _Loose(name="u")))),
     MalformedItem("tools", 1, "_Loose", "description", _missing("description"))),
]


@pytest.mark.parametrize(("working_set", "expected"), [case[1:] for case in _MALFORMED], ids=[case[0] for case in _MALFORMED])
def test_an_item_missing_an_attribute_of_its_bucket_is_the_whole_malformed_item(
    working_set: WorkingSet, expected: MalformedItem
) -> None:
    assert subtract_to_fit(working_set, 1000).failure() == expected


def test_an_image_missing_its_label_is_the_whole_malformed_item() -> None:
    ws = WorkingSet()
    object.__setattr__(ws, "image", _Loose(token_cost=3))  # past the checked constructor
    assert subtract_to_fit(ws, 1000).failure() == MalformedItem("image", 0, "_Loose", "label", _missing("label"))


class _Cost(int):
    """An int subclass, as an IntEnum member or a caller's own int type is."""


def test_a_token_cost_of_an_int_subclass_is_charged_as_given() -> None:
    # Regression: a valid cost that was not exactly an int raised UnwrapFailedError out of the fit.
    priced = cast(MessageLike, _message(id="p", token_cost=_Cost(7)))
    ws = WorkingSet(
        messages=(priced,),
        tool_calls=(ToolCall("c", cast(int, _Cost(5)), 1.0),),
        image=cast(ImageLike, _LooseImage("pic", _Cost(11))),
    )
    fitted = subtract_to_fit(ws, 1000).unwrap()
    assert fitted.trace.total_before == 7 + 5 + 11 + tokens("")
    kept = fitted.working_set
    assert (kept.messages, kept.tool_calls, kept.image) == (ws.messages, ws.tool_calls, ws.image)


_ASKED: list[tuple[str, str]] = []


class _SlottedCounted(_SlottedEstimate):
    """One slotted type with a plain ``estimate_tokens`` (the bulk call path) that records each call."""

    __slots__ = ()

    def estimate_tokens(self, encoding: str) -> int:
        _ASKED.append((self.id, encoding))
        return len(self.content)


@pytest.mark.parametrize("encoding", ["cl100k_base", "o200k_base"])
def test_every_estimator_is_asked_once_in_input_order_with_the_fits_encoding(encoding: str) -> None:
    _ASKED.clear()
    items = cast(tuple[WorkingRetrievable, ...], (_SlottedCounted("abc", "a"), _SlottedCounted("de", "b")))
    fitted = subtract_to_fit(WorkingSet(retrievables=items), 1000, encoding=encoding).unwrap()
    assert _ASKED == [("a", encoding), ("b", encoding)]
    assert fitted.trace.total_after == 5 + count_tokens("", encoding).unwrap().tokens


class _TextPriced:
    """Declares that its estimate is the count of its text: counted in the batch, never asked."""

    estimate_counts_content = True

    def __init__(self, content: str, id: str) -> None:
        self.content = content
        self.id = id

    def estimate_tokens(self, encoding: str) -> int:
        _ASKED.append((self.id, encoding))
        return tokens(self.content)


def test_an_item_whose_estimate_is_its_text_count_is_never_asked_beside_items_that_are() -> None:
    _ASKED.clear()
    items = cast(tuple[WorkingRetrievable, ...], (_TextPriced("some text to count", "p"), _SlottedCounted("abc", "s")))
    fitted = subtract_to_fit(WorkingSet(retrievables=items), 1000).unwrap()
    assert _ASKED == [("s", "cl100k_base")]
    assert fitted.trace.total_after == tokens("some text to count") + 3 + tokens("")


def test_the_common_cases_of_a_bucket_take_its_bulk_path() -> None:
    # The bulk paths give the loops' result (properties/test_thrift_bulk.py); that they are taken
    # at all is pinned here, for items that leave optional attributes out and for priced ones.
    from thrift_fp.thrift._measure import _Collector

    bare = tuple(_Loose(id=f"m{i}", content="hi", created_at=at(i)) for i in range(3))
    counted = _Collector([])
    assert counted._bulk_messages(bare) is True  # type: ignore[arg-type]  # a message-like duck
    assert (counted.priced, counted.pending) == (0, ["hi", "hi", "hi"])
    flagged = (Message("a", "x", at(0), summary=True, pair_id="p"), Message("b", "y", at(1), ephemeral=True, pair_id="p"))
    assert _Collector([])._bulk_messages(flagged) is True
    priced = tuple(Message(f"p{i}", "text", at(i), token_cost=cost) for i, cost in enumerate((0, 3)))
    collector = _Collector([])
    assert collector._bulk_messages(priced) is True
    assert (collector.priced, collector.pending) == (3, [])
    # Out of time order is still the common case: the ranks are then the timestamps.
    assert _Collector([])._bulk_messages((Message("late", "x", at(5)), Message("early", "y", at(1)))) is True
    # Priced and counted messages together leave it, as does a negative cost.
    assert _Collector([])._bulk_messages((*priced, Message("c", "z", at(9)))) is False
    assert _Collector([])._bulk_messages((_message(id="n", token_cost=-1),)) is False  # type: ignore[arg-type]  # misuse on purpose
    loose = (_Loose(content="a"), _Loose(content="b", score=None), _Loose(content="c", score=0.5))
    assert _Collector([])._bulk_retrievables(loose, ("0", "1", "2"), (None, None, None)) is True  # type: ignore[arg-type]  # duck
    assert _Collector([])._bulk_retrievables(loose, ("0", "1", "2"), (4, 0, 2)) is True  # type: ignore[arg-type]  # duck
    assert _Collector([])._bulk_retrievables(loose, ("0", "1", "2"), (4, None, 2)) is False  # type: ignore[arg-type]  # duck
    # Self-priced items' contents are never read, whatever they are.
    assert _Collector([])._bulk_retrievables((_Loose(content=3),), ("0",), (4,)) is True  # type: ignore[arg-type]  # duck


@pytest.mark.parametrize(
    ("appended", "carried"),
    [
        ((), True),
        ((Message("n1", "new", at(5)),), True),
        ((Message("n1", "same minute", at(2)),), True),  # not older than the last carried one
        ((Message("n1", "new", at(5)), Message("n2", "newer", at(6))), True),
        ((Message("n1", "older than the last carried", at(1)),), False),
        ((Message("n1", "new", at(6)), Message("n2", "older than n1", at(5))), False),
        ((Message("n1", "new", at(6)), Message("n2", "x", at(7)), Message("n3", "older than n2", at(6))), False),
        ((Message("n1", "priced", at(5), token_cost=4),), False),  # the history was counted, not priced
    ],
)
def test_messages_appended_to_a_carried_history_take_the_carried_path_only_in_time_order(
    appended: tuple[Message, ...], carried: bool
) -> None:
    from thrift_fp.thrift._history import reuse_of
    from thrift_fp.thrift._measure import _Collector

    history = (Message("m0", "first", at(0)), Message("m1", "second", at(2)))
    first = subtract_to_fit(WorkingSet(messages=history), 1000).unwrap()
    messages = (*history, *appended)
    reuse = reuse_of(first.counts, messages)
    assert reuse is not None and reuse.shared == 2
    collector = _Collector([])
    assert collector._carried_messages(messages, reuse) is carried
    assert (collector.carried is reuse) is carried
    assert collector.pending == ([message.content for message in appended] if carried else [])
    # Either way the fit is the one a cold fit gives.
    again = subtract_to_fit(WorkingSet(messages=messages), 1000, counts=first.counts).unwrap()
    cold = subtract_to_fit(WorkingSet(messages=messages), 1000).unwrap()
    assert (again.working_set, again.trace) == (cold.working_set, cold.trace)


COUNTER_DOWN = RuntimeError("no counter today")


def _counter_down(text: str) -> int:
    raise COUNTER_DOWN


def test_a_tokenizer_that_fails_is_counting_failed_wrapping_its_error_with_the_cause() -> None:
    from thrift_fp.tokens import EstimatorFailed, register_token_estimator, unregister_token_estimator

    register_token_estimator("thrift-fit-counter-down", _counter_down).unwrap()
    try:
        error = subtract_to_fit(busy_set(), 1000, encoding="thrift-fit-counter-down").failure()
    finally:
        unregister_token_estimator("thrift-fit-counter-down")
    inner = EstimatorFailed("thrift-fit-counter-down", "raised RuntimeError: no counter today", COUNTER_DOWN)
    assert error == CountingFailed(inner)
    assert error.cause is COUNTER_DOWN


class _NoOffset(tzinfo):
    """A zone that knows no offset: a datetime carrying it is naive all the same."""

    def utcoffset(self, dt: datetime | None) -> timedelta | None:
        return None

    def tzname(self, dt: datetime | None) -> str | None:
        return None

    def dst(self, dt: datetime | None) -> timedelta | None:
        return None


def test_a_timestamp_whose_zone_has_no_offset_is_refused_as_naive() -> None:
    stamp = datetime(2026, 1, 1, tzinfo=_NoOffset())
    message = subtract_to_fit(WorkingSet(messages=(Message("m", "hi", stamp),)), 1000).failure()
    assert message == InvalidItemField("messages", "m", "created_at", stamp, NAIVE_REASON)
    thought = subtract_to_fit(WorkingSet(thoughts=(Thought("t", "hmm", stamp),)), 1000).failure()
    assert thought == InvalidItemField("thoughts", "t", "created_at", stamp, NAIVE_REASON)


def test_the_reused_part_of_a_history_is_its_leading_very_objects_and_their_ids() -> None:
    from dataclasses import replace as copied

    from thrift_fp.thrift._history import reuse_of

    m0, m1 = Message("m0", "first", at(0)), Message("m1", "second", at(1))
    counts = subtract_to_fit(WorkingSet(messages=(m0, m1)), 1000).unwrap().counts
    whole = reuse_of(counts, (m0, m1, Message("m2", "third", at(2))))
    assert whole is not None and (whole.shared, whole.keys, whole.whole()) == (2, frozenset({"m0", "m1"}), True)
    part = reuse_of(counts, (m0, Message("x", "other", at(1))))
    assert part is not None and (part.shared, part.keys, part.whole()) == (1, frozenset({"m0"}), False)
    # An equal copy is not the object the previous fit measured.
    assert reuse_of(counts, (copied(m0), m1)) is None
    assert reuse_of(counts, [m0, m1]) is None  # only a tuple history is carried
    assert reuse_of(TokenCounts(), (m0, m1)) is None


def test_counts_carried_from_a_fit_with_another_encoding_are_not_reused() -> None:
    history = tuple(Message(f"m{i}", f"naïve café déjà vu, 日本語のテキスト {i} " * 3, at(i)) for i in range(4))
    ws = WorkingSet(messages=history)
    first = subtract_to_fit(ws, 10_000, encoding="cl100k_base").unwrap()
    again = subtract_to_fit(ws, 10_000, encoding="o200k_base", counts=first.counts).unwrap()
    cold = subtract_to_fit(ws, 10_000, encoding="o200k_base").unwrap()
    assert again.trace == cold.trace
    assert again.trace.total_before != first.trace.total_before


def test_a_history_counted_with_the_same_encoding_is_carried_and_one_priced_by_the_caller_whatever_the_encoding(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from thrift_fp.thrift._history import Reuse
    from thrift_fp.thrift._measure import _Collector

    taken: list[int] = []
    carried = _Collector._carried_messages

    def spy(self: _Collector, items: tuple[Message, ...], reuse: Reuse) -> bool:
        taken.append(reuse.shared)
        return carried(self, items, reuse)

    monkeypatch.setattr(_Collector, "_carried_messages", spy)
    counted = tuple(Message(f"m{i}", f"words {i}", at(i)) for i in range(3))
    first = subtract_to_fit(WorkingSet(messages=counted), 1000).unwrap()
    subtract_to_fit(WorkingSet(messages=counted), 1000, counts=first.counts).unwrap()
    subtract_to_fit(WorkingSet(messages=counted), 1000, encoding="o200k_base", counts=first.counts).unwrap()
    assert taken == [3]
    priced = tuple(Message(f"p{i}", "text", at(i), token_cost=4) for i in range(2))
    before = subtract_to_fit(WorkingSet(messages=priced), 1000).unwrap()
    again = subtract_to_fit(WorkingSet(messages=priced), 1000, encoding="o200k_base", counts=before.counts).unwrap()
    assert taken == [3, 2]
    assert again.trace.total_before == 8 + count_tokens("", "o200k_base").unwrap().tokens


def test_a_set_that_fits_to_the_token_fits_and_is_not_refused() -> None:
    messages = tuple(Message(f"p{i}", "text", at(i), token_cost=10) for i in range(4))
    exact = subtract_to_fit(WorkingSet(messages=messages), 40, None, _NO_RESERVE).unwrap()
    assert (exact.trace.budget, exact.trace.total_after, exact.trace.fits, exact.trace.refused) == (40, 40, True, False)
    assert exact.working_set.messages == messages


class _Refusal(Exception):
    """What a caller's property raises."""


def _raising(name: str) -> property:
    def read(self: object) -> object:
        raise _Refusal(f"{name} is not ready")

    return property(read)


_AT_UTC = datetime(2024, 1, 1, tzinfo=timezone.utc)
# Each bucket's plain item, as a class a property can be added to, and the optional attributes
# a fit reads on it.
_PLAIN_ITEMS: dict[str, tuple[dict[str, object], tuple[str, ...]]] = {
    "messages": ({"id": "m", "content": "hi", "created_at": _AT_UTC},
                 ("role", "summary", "ephemeral", "pair_id", "token_cost")),
    "memories": ({"content": "likes tea"}, ("id", "importance")),
    "retrievables": ({"id": "r", "content": "a passage"}, ("score", "size_unknown", "estimate_tokens")),
    "thoughts": ({"id": "t", "content": "hmm", "created_at": _AT_UTC}, ("this_turn",)),
    "tool_calls": ({"ref": "c", "token_cost": 3, "created_at_ms": 1.0}, ("this_turn",)),
    "tools": ({"name": "search", "description": "finds"}, ("shed_rank",)),
    "image": ({"label": "chart", "token_cost": 85}, ("kept",)),
}
_RAISING_CASES = [(bucket, name) for bucket, (_, names) in _PLAIN_ITEMS.items() for name in names]


@pytest.mark.parametrize(("bucket", "name"), _RAISING_CASES, ids=[f"{b}.{n}" for b, n in _RAISING_CASES])
def test_an_optional_attribute_whose_property_raises_is_a_malformed_item_not_an_exception(
    bucket: str, name: str
) -> None:
    # A caller's item may compute an optional attribute; what it raises must come back as an
    # error value naming the bucket, the item and the attribute, from the sync and async fits.
    values, _ = _PLAIN_ITEMS[bucket]
    kind = type("CallerItem", (), {**values, name: _raising(name)})
    item = kind()
    field_name = "tool_calls" if bucket == "tool_calls" else bucket
    items: dict[str, Any] = {field_name: (item,)}
    ws = WorkingSet(image=item) if bucket == "image" else WorkingSet(**items)
    shown_bucket = "tool-calls" if bucket == "tool_calls" else bucket
    expected = MalformedItem(shown_bucket, 0, "CallerItem", name, f"_Refusal: {name} is not ready")
    assert subtract_to_fit(ws, 10_000) == Failure(expected)
    assert asyncio.run(fit_async(ws, 10_000)) == Failure(expected)


def test_the_packages_own_properties_and_plain_fields_need_no_per_item_read() -> None:
    # A record's size_unknown is a property of this package: total, so the common record keeps
    # the one pass over types; a caller's property is read item by item.
    from thrift_fp.records import parse_retrievable
    from thrift_fp.thrift._shape_check import OPTIONAL, _suspect

    record = parse_retrievable({"id": "r", "content": "x", "trust_tier": "first-party", "created_at": 0,
                                "updated_at": 0}).unwrap()
    record_type: type = type(record)
    assert not _suspect(record_type, ("content",), OPTIONAL["retrievables"])
    assert not _suspect(Message, ("id", "content", "created_at"), OPTIONAL["messages"])
    caller = type("CallerItem", (), {"content": "x", "score": _raising("score")})
    assert _suspect(caller, ("content",), OPTIONAL["retrievables"])
    looked_up = type("Looked", (), {"content": "x", "__getattr__": lambda self, name: None})
    assert _suspect(looked_up, ("content",), ())


def test_a_bucket_that_loses_nothing_comes_back_as_the_callers_own_tuple() -> None:
    # Messages, thoughts and tool calls keep input order and only lose items: when nothing is
    # shed the fitted set holds the very tuples the caller passed (no copy of a long history);
    # when something is, a new tuple of the survivors.
    at = datetime(2024, 1, 1, tzinfo=timezone.utc)
    messages = tuple(Message(f"m{i}", f"message number {i}", at + timedelta(seconds=i)) for i in range(3))
    thoughts = (Thought("t", "thinking", at, this_turn=True),)  # earlier turns' thoughts are always stripped
    calls = (ToolCall("c", 5, 1.0),)
    tools = (Tool("search", "finds things"),)
    ws = WorkingSet(messages=messages, thoughts=thoughts, tool_calls=calls, tools=tools)
    roomy = subtract_to_fit(ws, 100_000).unwrap().working_set
    assert roomy.messages is messages and roomy.thoughts is thoughts and roomy.tool_calls is calls
    assert roomy.tools is tools
    tight = subtract_to_fit(WorkingSet(messages=messages), 12).unwrap()
    assert tight.working_set.messages == messages[-1:]
