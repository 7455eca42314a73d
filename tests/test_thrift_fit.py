"""subtract_to_fit / fit_async: examples for each shortcoming of the source package we fix."""

from __future__ import annotations

import asyncio
import copy
import gc
import json
import warnings
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import cast

import pytest
from returns.result import Failure, Result, Success

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
from thrift_fp.tokens import TokenCount, TokenError, UnknownEncoding, count_tokens

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


@dataclass(frozen=True)
class _LooseThought:
    """A caller's reasoning note whose content comes from untyped data."""

    id: str
    content: object
    created_at: datetime


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
