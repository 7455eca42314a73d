"""Properties of the Pydantic AI history processors."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import datetime, timezone

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from properties.adapters_a_strategies import Round, Say, conversations
from thrift_fp.adapters._a_fit import FILLER_UNIT
from thrift_fp.adapters.pydantic_ai import (
    REPLY_PRIMING,
    AsyncThriftHistory,
    ThriftHistory,
    count_model_messages,
    fit_model_messages,
)
from thrift_fp.thrift import Message, ThriftOptions, WorkingSet, subtract_to_fit

windows = st.integers(min_value=0, max_value=3000)


def written(events: list[Say | Round]) -> tuple[list[ModelMessage], list[int | None]]:
    """The history, and each message's tool round; it always ends with a user request."""
    messages: list[ModelMessage] = []
    rounds: list[int | None] = []
    for number, item in enumerate([*events, Say("user", "and now?")]):
        if isinstance(item, Say):
            if item.who == "system":
                messages.append(ModelRequest([SystemPromptPart(item.text)]))
            elif item.who == "user":
                messages.append(ModelRequest([UserPromptPart(item.text)]))
            else:
                messages.append(ModelResponse([TextPart(item.text)]))
            rounds.append(None)
            continue
        calls = [ToolCallPart("lookup", args, f"call_{number}_{at}") for at, (args, _) in enumerate(item.calls)]
        returns = [ToolReturnPart("lookup", result, f"call_{number}_{at}") for at, (_, result) in enumerate(item.calls)]
        messages += [ModelResponse([ThinkingPart(item.thinking), *calls]), ModelRequest(returns)]
        rounds += [number, number]
    return messages, rounds


def _orphans(messages: Sequence[ModelMessage]) -> list[str]:
    calls = {part.tool_call_id for message in messages for part in message.parts if isinstance(part, ToolCallPart)}
    answers = {part.tool_call_id for message in messages for part in message.parts if isinstance(part, ToolReturnPart)}
    return sorted((calls - answers) | (answers - calls))


@settings(max_examples=30)
@given(conversations)
def test_an_unlimited_budget_returns_the_same_objects_in_the_same_order(events: list[Say | Round]) -> None:
    history, _ = written(events)
    out = ThriftHistory(10**9)(history)
    assert [id(message) for message in out] == [id(message) for message in history]


@settings(max_examples=40)
@given(conversations, windows)
def test_no_tool_call_or_return_is_ever_orphaned_and_the_newest_request_stays(
    events: list[Say | Round], window: int
) -> None:
    history, _ = written(events)
    out = asyncio.run(AsyncThriftHistory(ThriftHistory(window, output_reserve=0))(history))
    assert _orphans(out) == []
    assert out[-1] is history[-1]
    pinned = [message for message in history if any(isinstance(part, SystemPromptPart) for part in message.parts)]
    assert all(any(message is kept for kept in out) for message in pinned)
    unpinned = [message for message in out if not any(message is fixed for fixed in pinned)]
    first = next((message for message in history if not any(message is fixed for fixed in pinned)), None)
    if unpinned and unpinned[0] is not first:
        assert any(isinstance(part, UserPromptPart) for part in unpinned[0].parts)


def _oracle_kept(history: list[ModelMessage], window: int) -> list[int]:
    at = datetime(1970, 1, 1, tzinfo=timezone.utc)
    messages = []
    turn = 0
    for index, message in enumerate(history):
        tokens = count_model_messages([message]).unwrap().tokens - REPLY_PRIMING
        system = any(isinstance(part, SystemPromptPart) for part in message.parts)
        # Whole turns: a request with a user prompt starts one (tool rounds sit inside it).
        turn += any(isinstance(part, UserPromptPart) for part in message.parts)
        messages.append(Message(str(index), FILLER_UNIT * tokens, at, summary=system,
                                pair_id=None if system else f"t{turn}"))
    ws = WorkingSet(system_prompt=FILLER_UNIT * REPLY_PRIMING, messages=tuple(messages))
    fitted = subtract_to_fit(ws, window, options=ThriftOptions(output_reserve=0)).unwrap()
    return sorted(int(message.id) for message in fitted.working_set.messages)


@settings(max_examples=40)
@given(conversations, windows)
def test_what_is_kept_is_what_the_core_keeps_on_the_converted_set(events: list[Say | Round], window: int) -> None:
    history, _ = written(events)
    fitted = fit_model_messages(history, window, output_reserve=0).unwrap()
    kept = [index for index in range(len(history)) if index not in fitted.shed]
    assert kept == _oracle_kept(history, window)


@settings(max_examples=40)
@given(conversations, windows, st.sampled_from(("o200k_base", "cl100k_base")))
def test_the_exact_count_of_the_output_is_within_budget_whenever_the_trace_says_it_fits(
    events: list[Say | Round], window: int, encoding: str
) -> None:
    history, _ = written(events)
    fitted = fit_model_messages(history, window, encoding=encoding).unwrap()
    counted = count_model_messages(fitted.messages, encoding=encoding).unwrap()
    assert counted == fitted.tokens and counted.tokens == fitted.trace.total_after
    if fitted.trace.fits:
        assert counted.tokens <= fitted.trace.budget
