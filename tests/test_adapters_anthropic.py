"""Example tests of the Anthropic Messages adapter: pairs, thinking, the estimate, errors."""

from __future__ import annotations

import math
from typing import Any

import pytest

from thrift_fp.adapters._a_errors import (
    DuplicateToolCall,
    InvalidArgument,
    InvalidTool,
    MalformedMessage,
    PricingFailed,
    ToolCallWithoutResult,
    ToolResultWithoutCall,
    UnknownRole,
)
from thrift_fp.adapters.anthropic import (
    IMAGE_TOKENS,
    TOOL_USE_SYSTEM_PROMPT,
    count_anthropic_tokens,
    fit_anthropic_messages,
)


def _uses(ids: list[str], thinking: str = "") -> dict[str, Any]:
    blocks: list[dict[str, Any]] = [{"type": "thinking", "thinking": thinking, "signature": "s"}] if thinking else []
    blocks += [{"type": "tool_use", "id": i, "name": "read", "input": {"path": f"{i}.log"}} for i in ids]
    return {"role": "assistant", "content": blocks}


def _results(ids: list[str]) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "tool_result", "tool_use_id": i, "content": "line " * 40} for i in ids]}


def test_the_estimate_is_characters_over_three_and_a_half_plus_framing() -> None:
    count = count_anthropic_tokens([{"role": "user", "content": "a" * 35}], system="b" * 7).unwrap()
    assert count.tokens == (3 + 10) + (3 + 2) and count.precision == "estimated"
    image = {"role": "user", "content": [{"type": "image", "source": {"type": "url", "url": "https://e.x/a.png"}}]}
    assert count_anthropic_tokens([image]).unwrap().tokens == 3 + IMAGE_TOKENS
    assert count_anthropic_tokens([image], image_tokens=lambda block: 10).unwrap().tokens == 13
    tools = [{"name": "read", "description": "Read a file", "input_schema": {"type": "object"}}]
    with_tools = count_anthropic_tokens([], tools=tools).unwrap().tokens
    assert with_tools == TOOL_USE_SYSTEM_PROMPT + math.ceil(len('{"description": "Read a file", "input_schema": {"type": "object"}, "name": "read"}') / 3.5)


def test_a_call_message_with_several_uses_keeps_all_its_results_or_leaves_with_them() -> None:
    history = [{"role": "user", "content": "Check the logs. " * 10}, _uses(["a", "b"]), _results(["a", "b"]),
               {"role": "assistant", "content": "Both logs are clean."}, {"role": "user", "content": "Good."}]
    total = count_anthropic_tokens(history).unwrap().tokens
    for window in range(total + 1):
        fitted = fit_anthropic_messages(history, window, output_reserve=0).unwrap()
        assert {1, 2} <= set(fitted.shed) or not {1, 2} & set(fitted.shed)
        assert fitted.messages[-1] is history[-1]


def test_prior_turn_thinking_is_stripped_and_current_turn_thinking_is_charged() -> None:
    thought = "Let me think about this carefully. " * 20
    history = [{"role": "user", "content": "first question"}, _uses(["a"], thought), _results(["a"]),
               {"role": "assistant", "content": "done"}, {"role": "user", "content": "second question"},
               _uses(["b"], thought), _results(["b"])]
    fitted = fit_anthropic_messages(history, 10**6).unwrap()
    thoughts = fitted.trace.buckets[1]
    assert thoughts.bucket == "thoughts" and thoughts.ids == ("thinking@1.0",) and thoughts.after_tokens == 0
    assert fitted.messages[1] is history[1]  # the message holding the stripped block is returned untouched
    without_prior = [*history[:1], _uses(["a"]), *history[2:]]
    assert fitted.tokens == count_anthropic_tokens(without_prior).unwrap()
    charged = count_anthropic_tokens([*history[:5], _uses(["b"]), history[6]]).unwrap().tokens
    assert fitted.tokens.tokens == charged + math.ceil(len(thought) / 3.5) + 1  # and its signature "s"


def test_the_system_prompt_and_the_newest_message_are_never_shed() -> None:
    system = [{"type": "text", "text": "You are careful. " * 50}]
    history = [{"role": "user", "content": "old " * 50}, {"role": "assistant", "content": "ok"}, {"role": "user", "content": "new"}]
    fitted = fit_anthropic_messages(history, 10, system=system).unwrap()
    assert fitted.system is system and fitted.messages == [history[2]]
    assert fitted.trace.refused and not fitted.trace.fits


@pytest.mark.parametrize(("messages", "kind", "text"), [
    ([{"content": "x"}], MalformedMessage, "messages[0].role: is required"),
    ([{"role": "system", "content": "x"}], UnknownRole, "messages[0].role: unknown role 'system'"),
    ([{"role": "user", "content": 3}], MalformedMessage, "messages[0].content"),
    ([{"role": "user", "content": [{"text": "x"}]}], MalformedMessage, "messages[0].content[0]"),
    ([{"role": "user", "content": [{"type": "text"}]}], MalformedMessage, "messages[0].content[0].text"),
    ([{"role": "user", "content": [{"type": "image"}]}], MalformedMessage, "messages[0].content[0].source"),
    ([{"role": "user", "content": [{"type": "thinking", "thinking": "x"}]}], MalformedMessage, "belong to assistant"),
    ([{"role": "user", "content": [{"type": "tool_use", "id": "a", "name": "f"}]}], MalformedMessage, "belong to assistant"),
    ([{"role": "assistant", "content": [{"type": "tool_use", "name": "f"}]}], MalformedMessage, "messages[0].content[0].id"),
    ([{"role": "assistant", "content": [{"type": "tool_result", "tool_use_id": "a"}]}], MalformedMessage, "belong to user"),
    ([{"role": "user", "content": [{"type": "tool_result"}]}], MalformedMessage, "messages[0].content[0].tool_use_id"),
    ([{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a", "content": 5}]}], MalformedMessage,
     "messages[0].content[0].content"),
    ([_results(["z"])], ToolResultWithoutCall, "messages[0].content[0].tool_use_id"),
    ([_uses(["a"])], ToolCallWithoutResult, "messages[0].content[0].id: tool call 'a' has no result"),
    ([_uses(["a"]), _results(["a"]), _uses(["a"]), _results(["a"])], DuplicateToolCall, "messages[2].content[0].id"),
])
def test_bad_messages_are_error_values_naming_index_and_field(messages: list[Any], kind: type, text: str) -> None:
    error = fit_anthropic_messages(messages, 1000).failure()
    assert isinstance(error, kind)
    assert text in error.message


def test_bad_system_tools_and_pricers_are_error_values() -> None:
    one = [{"role": "user", "content": "x"}]
    error = fit_anthropic_messages(one, 100, system=[{"type": "image"}]).failure()
    assert isinstance(error, InvalidArgument) and error.field == "system[0]"
    assert isinstance(fit_anthropic_messages(one, 100, tools=[{"description": "x"}]).failure(), InvalidTool)
    image = [{"role": "user", "content": [{"type": "image", "source": {"type": "url", "url": "u"}}]}]
    raised = fit_anthropic_messages(image, 100, image_tokens=lambda block: int("x")).failure()
    assert isinstance(raised, PricingFailed) and isinstance(raised.cause, ValueError)


def test_whole_turns_keep_the_history_starting_with_a_user_message() -> None:
    history = [{"role": "user", "content": "old question " * 40}, {"role": "assistant", "content": "short answer"},
               {"role": "user", "content": "new question"}]
    window = count_anthropic_tokens(history[1:]).unwrap().tokens
    assert fit_anthropic_messages(history, window, output_reserve=0).unwrap().shed == (0, 1)
    assert fit_anthropic_messages(history, window, output_reserve=0, whole_turns=False).unwrap().shed == (0,)
    mixed = [{"role": "user", "content": "q"}, _uses(["a"]),
             {"role": "user", "content": [*_results(["a"])["content"], {"type": "text", "text": "and also"}]},
             {"role": "assistant", "content": "ok"}]
    # A user message answering a tool call continues its turn, so the call's thinking stays current.
    assert fit_anthropic_messages(mixed, 10**6).unwrap().trace.buckets[1].ids == ()
