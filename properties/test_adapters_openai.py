"""Properties of the OpenAI Chat Completions adapter."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from properties.adapters_a_strategies import Round, Say, Written, conversations, openai, text
from thrift_fp.adapters._a_fit import FILLER_UNIT
from thrift_fp.adapters.openai import count_openai_tokens, fit_openai_messages
from thrift_fp.render import KeyedNonce
from thrift_fp.thrift import Message, ThriftOptions, WorkingSet, subtract_to_fit
from thrift_fp.tokens import count_tokens

MODEL = "gpt-4o"
TOOLS: list[dict[str, Any]] = [
    {"type": "function", "function": {"name": "lookup", "description": "Look a thing up.",
                                      "parameters": {"type": "object", "properties": {
                                          "q": {"type": "string", "description": "What to look up.",
                                                "enum": ["a", "b"]}}}}},
]
windows = st.integers(min_value=0, max_value=3000)


def _orphans(messages: Sequence[Mapping[str, Any]]) -> list[str]:
    """Tool results without their call, and calls missing a result, in OpenAI's own terms."""
    problems: list[str] = []
    answered: set[str] = set()
    for message in messages:
        if message.get("role") == "tool":
            answered.add(message["tool_call_id"])
    open_ids: set[str] = set()
    for message in messages:
        for call in message.get("tool_calls") or ():
            open_ids.add(call["id"])
            if call["id"] not in answered:
                problems.append(f"call {call['id']} without its result")
        if message.get("role") == "tool" and message["tool_call_id"] not in open_ids:
            problems.append(f"result {message['tool_call_id']} without an earlier call")
    return problems


@settings(max_examples=40)
@given(conversations)
def test_an_unlimited_budget_returns_the_same_objects_in_the_same_order(events: list[Say | Round]) -> None:
    written = openai(events)
    fitted = fit_openai_messages(written.messages, 10**9, model=MODEL, tools=TOOLS).unwrap()
    assert len(fitted.messages) == len(written.messages)
    assert all(out is given_ for out, given_ in zip(fitted.messages, written.messages, strict=True))
    assert fitted.shed == ()


@settings(max_examples=60)
@given(conversations, windows)
def test_no_tool_call_or_result_is_ever_orphaned(events: list[Say | Round], window: int) -> None:
    written = openai(events)
    fitted = fit_openai_messages(written.messages, window, model=MODEL, output_reserve=0).unwrap()
    assert _orphans(fitted.messages) == []


def _oracle_kept(written: Written, window: int) -> list[int]:
    """What the core keeps on a working set built from the test's own knowledge: each message's
    cost is its count alone (minus reply priming), its pair is its tool round, system pinned."""
    at = datetime(1970, 1, 1, tzinfo=timezone.utc)
    priming = 3
    messages = []
    for index, message in enumerate(written.messages):
        tokens = count_openai_tokens([message], model=MODEL).unwrap().tokens - priming
        round_ = written.rounds[index]
        messages.append(Message(str(index), FILLER_UNIT * tokens, at, summary=written.instructions[index],
                                pair_id=None if round_ is None else f"round-{round_}"))
    tools = count_openai_tokens([], model=MODEL, tools=TOOLS).unwrap().tokens
    ws = WorkingSet(system_prompt=FILLER_UNIT * tools, messages=tuple(messages))
    fitted = subtract_to_fit(ws, window, options=ThriftOptions(output_reserve=0, encoding="o200k_base")).unwrap()
    return sorted(int(message.id) for message in fitted.working_set.messages)


@settings(max_examples=60)
@given(conversations, windows)
def test_what_is_kept_is_what_the_core_keeps_on_the_converted_set(events: list[Say | Round], window: int) -> None:
    written = openai(events)
    fitted = fit_openai_messages(written.messages, window, model=MODEL, tools=TOOLS, output_reserve=0).unwrap()
    kept = [index for index in range(len(written.messages)) if index not in fitted.shed]
    assert kept == _oracle_kept(written, window)


@settings(max_examples=60)
@given(conversations, windows, st.sampled_from(("gpt-4o", "gpt-4", "gpt-3.5-turbo-0301")))
def test_the_exact_count_of_the_output_is_within_budget_whenever_the_trace_says_it_fits(
    events: list[Say | Round], window: int, model: str
) -> None:
    written = openai(events)
    fitted = fit_openai_messages(written.messages, window, model=model, tools=TOOLS).unwrap()
    counted = count_openai_tokens(fitted.messages, model=model, tools=TOOLS).unwrap()
    assert counted == fitted.tokens
    assert counted.tokens == fitted.trace.total_after
    if fitted.trace.fits:
        assert counted.tokens <= fitted.trace.budget


documents = st.lists(
    st.fixed_dictionaries({"content": text}, optional={"score": st.floats(-5, 5), "source": st.sampled_from(("web", "kb"))}),
    max_size=5,
)


@settings(max_examples=40)
@given(conversations, documents, st.integers(min_value=0, max_value=4000))
def test_with_documents_the_output_count_is_within_budget_whenever_it_fits(
    events: list[Say | Round], docs: list[dict[str, object]], window: int
) -> None:
    written = openai(events)
    fitted = fit_openai_messages(
        written.messages, window, model=MODEL, documents=docs, nonce=KeyedNonce(bytes(32)),
    ).unwrap()
    counted = count_openai_tokens(fitted.messages, model=MODEL).unwrap()
    assert counted == fitted.tokens
    if fitted.trace.fits:
        assert counted.tokens <= fitted.trace.budget
    inserted = [message for message in fitted.messages if not any(message is given_ for given_ in written.messages)]
    assert len(inserted) == (1 if fitted.documents else 0)
    assert _orphans(fitted.messages) == []


@given(st.integers(min_value=0, max_value=3000))
def test_the_priced_stand_in_is_one_token_per_unit(units: int) -> None:
    for encoding in ("cl100k_base", "o200k_base"):
        assert count_tokens(FILLER_UNIT * units, encoding).unwrap().tokens == units
