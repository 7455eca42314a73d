"""Properties of the Anthropic Messages adapter."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from properties.adapters_a_strategies import Round, Say, Written, anthropic, conversations
from thrift_fp.adapters._a_fit import FILLER_UNIT
from thrift_fp.adapters.anthropic import count_anthropic_tokens, fit_anthropic_messages
from thrift_fp.thrift import Message, ThriftOptions, WorkingSet, subtract_to_fit

SYSTEM = "You are a careful incident analyst."
TOOLS: list[dict[str, Any]] = [{"name": "lookup", "description": "Look a thing up.", "input_schema": {"type": "object"}}]
windows = st.integers(min_value=0, max_value=3000)


def _blocks(message: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    content = message["content"]
    return [] if isinstance(content, str) else list(content)


def _orphans(messages: Sequence[Mapping[str, Any]]) -> list[str]:
    """``tool_use`` without its ``tool_result`` and results without an earlier use."""
    used: set[str] = set()
    answered = {block["tool_use_id"] for message in messages for block in _blocks(message) if block["type"] == "tool_result"}
    problems: list[str] = []
    for message in messages:
        for block in _blocks(message):
            if block["type"] == "tool_use":
                used.add(block["id"])
                if block["id"] not in answered:
                    problems.append(f"tool_use {block['id']} without its result")
            elif block["type"] == "tool_result" and block["tool_use_id"] not in used:
                problems.append(f"tool_result {block['tool_use_id']} without an earlier tool_use")
    return problems


@settings(max_examples=30)
@given(conversations)
def test_an_unlimited_budget_returns_the_same_objects_in_the_same_order(events: list[Say | Round]) -> None:
    written = anthropic(events)
    fitted = fit_anthropic_messages(written.messages, 10**9, system=SYSTEM, tools=TOOLS).unwrap()
    assert [id(message) for message in fitted.messages] == [id(message) for message in written.messages]
    assert fitted.shed == () and fitted.system is SYSTEM


@settings(max_examples=40)
@given(conversations, windows)
def test_no_tool_use_or_result_is_ever_orphaned_and_what_is_kept_starts_a_turn(
    events: list[Say | Round], window: int
) -> None:
    given_ = anthropic(events).messages
    fitted = fit_anthropic_messages(given_, window, output_reserve=0).unwrap()
    assert _orphans(fitted.messages) == []
    if fitted.messages and fitted.messages[0] is not given_[0]:
        assert fitted.messages[0]["role"] == "user" and isinstance(fitted.messages[0]["content"], str)


def _turn_start(messages: Sequence[Mapping[str, Any]]) -> int:
    starts = [index for index, message in enumerate(messages) if message["role"] == "user"
              and any(block["type"] != "tool_result" for block in _blocks(message) or [{"type": "text"}])]
    return starts[-1] if starts else 0


def _oracle_kept(written: Written, window: int) -> list[int]:
    """The core's keep on a set built from the test's own knowledge: each message's estimate
    alone, without thinking blocks before the current turn (the API strips them), each turn one
    pair group."""
    at = datetime(1970, 1, 1, tzinfo=timezone.utc)
    start = _turn_start(written.messages)
    messages = []
    turn = 0
    for index, message in enumerate(written.messages):
        alone = message
        if index < start and not isinstance(message["content"], str):
            alone = {**message, "content": [block for block in message["content"] if block["type"] != "thinking"]}
        tokens = count_anthropic_tokens([alone]).unwrap().tokens
        # Whole turns: a user message without tool results starts one (tool rounds sit inside).
        turn += message["role"] == "user" and isinstance(message["content"], str)
        messages.append(Message(str(index), FILLER_UNIT * tokens, at, pair_id=f"t{turn}"))
    fixed = count_anthropic_tokens([], system=SYSTEM, tools=TOOLS).unwrap().tokens
    ws = WorkingSet(system_prompt=FILLER_UNIT * fixed, messages=tuple(messages))
    fitted = subtract_to_fit(ws, window, options=ThriftOptions(output_reserve=0)).unwrap()
    return sorted(int(message.id) for message in fitted.working_set.messages)


@settings(max_examples=40)
@given(conversations, windows)
def test_what_is_kept_is_what_the_core_keeps_on_the_converted_set(events: list[Say | Round], window: int) -> None:
    written = anthropic(events)
    fitted = fit_anthropic_messages(written.messages, window, system=SYSTEM, tools=TOOLS, output_reserve=0).unwrap()
    kept = [index for index in range(len(written.messages)) if index not in fitted.shed]
    assert kept == _oracle_kept(written, window)


@settings(max_examples=40)
@given(conversations, windows)
def test_the_estimate_of_the_output_is_within_budget_whenever_the_trace_says_it_fits(
    events: list[Say | Round], window: int
) -> None:
    fitted = fit_anthropic_messages(anthropic(events).messages, window, system=SYSTEM, tools=TOOLS).unwrap()
    counted = count_anthropic_tokens(fitted.messages, system=SYSTEM, tools=TOOLS).unwrap()
    assert counted == fitted.tokens and counted.precision == "estimated"
    assert counted.tokens == fitted.trace.total_after
    if fitted.trace.fits:
        assert counted.tokens <= fitted.trace.budget
