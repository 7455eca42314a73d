"""Example tests of the Anthropic Messages adapter: pairs, thinking, the estimate, errors."""

from __future__ import annotations

import math
from typing import Any

import pytest
from returns.result import Failure

from thrift_fp.adapters._core import (DuplicateToolCall, InvalidArgument, InvalidTool, MalformedMessage, OverBudget,
                                      PricingFailed, ToolCallWithoutResult, ToolResultWithoutCall, UnknownRole)
from thrift_fp.adapters.anthropic import (
    ESTIMATE_FACTOR,
    IMAGE_TOKENS,
    TOOL_USE_SYSTEM_PROMPT,
    count_anthropic_tokens,
    fit_anthropic_messages,
)
from thrift_fp.tokens import get_encoding


def _uses(ids: list[str], thinking: str = "") -> dict[str, Any]:
    blocks: list[dict[str, Any]] = [{"type": "thinking", "thinking": thinking, "signature": "s"}] if thinking else []
    blocks += [{"type": "tool_use", "id": i, "name": "read", "input": {"path": f"{i}.log"}} for i in ids]
    return {"role": "assistant", "content": blocks}


def _results(ids: list[str]) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "tool_result", "tool_use_id": i, "content": "line " * 40} for i in ids]}


def _estimate(text: str) -> int:
    return math.ceil(get_encoding("o200k_base").unwrap().count(text).unwrap() * ESTIMATE_FACTOR)


def test_the_estimate_is_o200k_times_the_factor_plus_framing_never_below_o200k() -> None:
    count = count_anthropic_tokens([{"role": "user", "content": "a" * 35}], system="b" * 7).unwrap()
    assert count.tokens == (3 + _estimate("a" * 35)) + (3 + _estimate("b" * 7)) and count.precision == "estimated"
    image = {"role": "user", "content": [{"type": "image", "source": {"type": "url", "url": "https://e.x/a.png"}}]}
    assert count_anthropic_tokens([image]).unwrap().tokens == 3 + IMAGE_TOKENS
    assert count_anthropic_tokens([image], image_tokens=lambda block: 10).unwrap().tokens == 13
    tools = [{"name": "read", "description": "Read a file", "input_schema": {"type": "object"}}]
    with_tools = count_anthropic_tokens([], tools=tools).unwrap().tokens
    assert with_tools == TOOL_USE_SYSTEM_PROMPT + _estimate('{"description": "Read a file", "input_schema": {"type": "object"}, "name": "read"}')
    for sample in ("def f(x):\n    return {'a': [1, 2]}\n", '{"id": 12, "tags": ["x"]}', "数据已经满了。検索します。", "The disk filled up."):
        o200k = get_encoding("o200k_base").unwrap().count(sample).unwrap()
        cl100k = get_encoding("cl100k_base").unwrap().count(sample).unwrap()
        assert count_anthropic_tokens([{"role": "user", "content": sample}]).unwrap().tokens - 3 >= o200k
        assert cl100k > 0


def test_the_factor_is_the_measured_one() -> None:
    from benchmarks.anthropic_estimate import measure

    rows, factor = measure()
    assert set(rows) == {"code", "json", "cjk", "prose"} and factor <= ESTIMATE_FACTOR
    assert all(math.ceil(o200k * ESTIMATE_FACTOR) >= cl100k for _, _, o200k, cl100k in rows.values())


def test_a_call_message_with_several_uses_keeps_all_its_results_or_leaves_with_them() -> None:
    history = [{"role": "user", "content": "Check the logs. " * 10}, _uses(["a", "b"]), _results(["a", "b"]),
               {"role": "assistant", "content": "Both logs are clean."}, {"role": "user", "content": "Good."}]
    total = count_anthropic_tokens(history).unwrap().tokens
    for window in range(total + 1):
        result = fit_anthropic_messages(history, window, output_reserve=0)
        if isinstance(result, Failure):
            assert isinstance(result.failure(), OverBudget)
            continue
        fitted = result.unwrap()
        assert fitted.tokens.tokens <= window
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
    assert fitted.tokens.tokens == charged + _estimate(thought) + _estimate("s")  # and its signature


def test_the_system_prompt_and_the_newest_message_are_never_shed_so_too_little_room_is_an_error_value() -> None:
    system = [{"type": "text", "text": "You are careful. " * 50}]
    history = [{"role": "user", "content": "old " * 50}, {"role": "assistant", "content": "ok"}, {"role": "user", "content": "new"}]
    error = fit_anthropic_messages(history, 10, system=system).failure()
    assert isinstance(error, OverBudget) and error.tokens > error.budget
    floor = count_anthropic_tokens([history[2]], system=system).unwrap().tokens
    fitted = fit_anthropic_messages(history, floor, system=system, output_reserve=0).unwrap()
    assert fitted.system is system and fitted.messages == [history[2]]


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


def test_a_newest_turn_too_big_alone_sheds_its_oldest_rounds_and_keeps_its_opening() -> None:
    history = [{"role": "user", "content": "old question " * 30}, {"role": "assistant", "content": "old answer"},
               {"role": "user", "content": "Read every log."}]
    for index in range(4):
        history += [_uses([f"r{index}"]), _results([f"r{index}"])]
    history.append({"role": "assistant", "content": "All read."})
    newest = history[2:]
    rounds_out = [*newest[:1], *newest[5:]]  # the two oldest rounds gone
    window = count_anthropic_tokens(rounds_out).unwrap().tokens
    fitted = fit_anthropic_messages(history, window, output_reserve=0).unwrap()
    assert fitted.messages[0] is history[2] and fitted.shed == (0, 1, 3, 4, 5, 6)
    assert fitted.tokens.tokens <= window


def test_sdk_content_blocks_are_read_and_the_callers_objects_come_back() -> None:
    from anthropic.types import MessageParam, TextBlock, ToolUseBlock
    from pydantic import TypeAdapter

    content = [TextBlock(type="text", text="Let me look."), ToolUseBlock(type="tool_use", id="tu1", name="read", input={"p": 1})]
    reply = {"role": "assistant", "content": content}
    history: list[Any] = [{"role": "user", "content": "Read it."}, reply, _results(["tu1"]), {"role": "user", "content": "ok?"}]
    fitted = fit_anthropic_messages(history, 10**5).unwrap()
    assert fitted.messages[1] is reply and fitted.messages[1]["content"][1] is content[1]
    as_dicts = {"role": "assistant", "content": [block.model_dump(exclude_none=True) for block in content]}
    assert fit_anthropic_messages([history[0], as_dicts, *history[2:]], 10**5).unwrap().tokens == fitted.tokens
    TypeAdapter(list[MessageParam]).validate_python(fitted.messages)


@pytest.mark.parametrize(("arguments", "field"), [
    ({"system": 5}, "system"), ({"context_window": None}, "context_window"), ({"context_window": "100"}, "context_window"),
    ({"messages": None}, "messages"), ({"whole_turns": "yes"}, "whole_turns"), ({"model": 3}, "model"),
])
def test_wrongly_typed_arguments_are_error_values(arguments: dict[str, Any], field: str) -> None:
    call: dict[str, Any] = {"messages": [{"role": "user", "content": "x"}], "context_window": 1000}
    call.update(arguments)
    error = fit_anthropic_messages(**call).failure()
    assert isinstance(error, InvalidArgument) and error.field == field


def test_values_no_request_could_carry_are_error_values() -> None:
    nested: object = "x"
    for _ in range(5000):
        nested = {"k": nested}
    deep = [_uses(["a"]), _results(["a"])]
    deep[0]["content"][0]["input"] = nested
    error = fit_anthropic_messages([{"role": "user", "content": "go"}, *deep], 1000).failure()
    assert isinstance(error, MalformedMessage) and (error.index, error.field) == (1, "content[0].input")
    big = fit_anthropic_messages([{"role": "user", "content": [{"type": "text", "text": "x", "citations": [10**5000]}]}], 1000)
    big_error = big.failure()
    assert isinstance(big_error, MalformedMessage) and big_error.field == "content[0]"
    tool = fit_anthropic_messages([{"role": "user", "content": "x"}], 1000, tools=[{"name": "t", "input_schema": nested}])
    assert isinstance(tool.failure(), InvalidTool)
