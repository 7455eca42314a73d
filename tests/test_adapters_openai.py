"""Example tests of the OpenAI Chat Completions adapter: cookbook figures, errors, documents."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

from thrift_fp.adapters._core import (DuplicateToolCall, InvalidArgument, InvalidDocument, InvalidTool,
                                      MalformedMessage, OverBudget, PricingFailed, ToolCallWithoutResult,
                                      ToolResultWithoutCall, UnknownRole)
from thrift_fp.adapters._core import UnknownModel, resolve_model
from thrift_fp.adapters.openai import count_openai_tokens, fit_openai_messages
from returns.result import Success

from thrift_fp.render import KeyedNonce
from thrift_fp.tokens import register_token_estimator, unregister_token_estimator

# The cookbook's own examples, with the prompt_tokens the OpenAI API reported for them.
COOKBOOK_MESSAGES: list[dict[str, Any]] = [
    {"role": "system", "content": "You are a helpful, pattern-following assistant that translates corporate jargon into plain English."},
    {"role": "system", "name": "example_user", "content": "New synergies will help drive top-line growth."},
    {"role": "system", "name": "example_assistant", "content": "Things working well together will increase revenue."},
    {"role": "system", "name": "example_user", "content": "Let's circle back when we have more bandwidth to touch base on opportunities for increased leverage."},
    {"role": "system", "name": "example_assistant", "content": "Let's talk later when we're less busy about how to do better."},
    {"role": "user", "content": "This late pivot means we don't have time to boil the ocean for the client deliverable."},
]
WEATHER_TOOLS: list[dict[str, Any]] = [{
    "type": "function",
    "function": {
        "name": "get_current_weather",
        "description": "Get the current weather in a given location",
        "parameters": {
            "type": "object",
            "properties": {
                "location": {"type": "string", "description": "The city and state, e.g. San Francisco, CA"},
                "unit": {"type": "string", "description": "The unit of temperature to return", "enum": ["celsius", "fahrenheit"]},
            },
            "required": ["location"],
        },
    },
}]
WEATHER_MESSAGES: list[dict[str, Any]] = [
    {"role": "system", "content": "You are a helpful assistant that can answer to questions about the weather."},
    {"role": "user", "content": "What's the weather like in San Francisco?"},
]


@pytest.mark.parametrize(("model", "expected"), [("gpt-3.5-turbo", 129), ("gpt-4-0613", 129), ("gpt-4", 129),
                                                 ("gpt-4o", 124), ("gpt-4o-mini", 124)])
def test_message_counts_match_the_api_figures_of_the_cookbook(model: str, expected: int) -> None:
    assert count_openai_tokens(COOKBOOK_MESSAGES, model=model).unwrap().tokens == expected


@pytest.mark.parametrize(("model", "expected"), [("gpt-3.5-turbo", 105), ("gpt-4", 105), ("gpt-4o", 101), ("gpt-4o-mini", 101)])
def test_tool_counts_match_the_api_figures_of_the_cookbook(model: str, expected: int) -> None:
    assert count_openai_tokens(WEATHER_MESSAGES, model=model, tools=WEATHER_TOOLS).unwrap().tokens == expected


def test_models_map_to_their_encodings_in_one_table() -> None:
    assert resolve_model("gpt-4o-2024-08-06").unwrap().encoding == "o200k_base"
    assert resolve_model("gpt-4.1-mini").unwrap().encoding == "o200k_base"
    assert resolve_model("o3").unwrap().encoding == "o200k_base"
    assert resolve_model("gpt-4-turbo-2024-04-09").unwrap().encoding == "cl100k_base"
    assert resolve_model("gpt-3.5-turbo-0125").unwrap().encoding == "cl100k_base"
    assert resolve_model("gpt-3.5-turbo-0301").unwrap().tokens_per_message == 4
    error = resolve_model("claude-3").failure()
    assert "gpt-4o" in error.message and "encoding=" in error.message


def test_an_explicit_encoding_overrides_the_model_or_stands_in_for_an_unknown_one() -> None:
    one = [{"role": "user", "content": "Hello there"}]
    assert count_openai_tokens(one, model="gpt-4o", encoding="cl100k_base").unwrap().encoding == "cl100k_base"
    assert count_openai_tokens(one, model="my-finetune", encoding="o200k_base").unwrap().tokens == 9
    assert isinstance(count_openai_tokens(one).failure(), UnknownModel)


def test_a_custom_estimator_counts_and_its_counts_are_flagged_estimated() -> None:
    register_token_estimator("adapters-a-words", lambda text: len(text.split())).unwrap()
    try:
        fitted = fit_openai_messages([{"role": "user", "content": "hi there"}], 100, encoding="adapters-a-words").unwrap()
        # 3 framing + "user" + "hi there" (2 words) + 3 reply priming
        assert (fitted.tokens.tokens, fitted.tokens.precision) == (9, "estimated")
    finally:
        unregister_token_estimator("adapters-a-words")


def _round(call_ids: list[str]) -> list[dict[str, Any]]:
    calls = [{"id": c, "type": "function", "function": {"name": "f", "arguments": "{}"}} for c in call_ids]
    return [{"role": "assistant", "content": None, "tool_calls": calls},
            *({"role": "tool", "tool_call_id": c, "content": "result " * 30} for c in call_ids)]


def test_an_assistant_message_keeps_all_its_results_or_leaves_with_them() -> None:
    history = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "go"},
               *_round(["a", "b", "c"]), {"role": "user", "content": "thanks, and now?"}]
    sizes = [count_openai_tokens(history[: end + 1], model="gpt-4o").unwrap().tokens for end in range(len(history))]
    seen_shed: set[tuple[int, ...]] = set()
    for window in range(sizes[-1] + 1):
        # Message by message (whole_turns=False), so the question can go while its answer stays.
        result = fit_openai_messages(history, window, model="gpt-4o", output_reserve=0, whole_turns=False)
        if isinstance(result.failure() if not isinstance(result, Success) else None, OverBudget):
            continue
        fitted = result.unwrap()
        assert fitted.tokens.tokens <= window
        group = set(range(2, 6))
        assert group <= set(fitted.shed) or not group & set(fitted.shed)
        seen_shed.add(fitted.shed)
    assert {(), (1,), (1, 2, 3, 4, 5)} <= seen_shed


def test_the_same_objects_come_back_and_the_input_is_untouched() -> None:
    history: list[dict[str, Any]] = [{"role": "user", "content": "x " * 300}, {"role": "assistant", "content": "ok"},
               {"role": "user", "content": [{"type": "text", "text": "look"},
                                            {"type": "image_url", "image_url": {"url": "https://e.x/a.png", "detail": "low"}}]}]
    before = repr(history)
    fitted = fit_openai_messages(history, 300, model="gpt-4o").unwrap()
    # The old turn (the question and its answer) is shed whole; what stays is the caller's own object.
    assert fitted.shed == (0, 1) and fitted.messages[0] is history[2] and len(fitted.messages) == 1
    assert repr(history) == before
    assert fitted.tokens.precision == "estimated"  # the image is priced at its detail level's maximum


def test_image_parts_are_priced_by_detail_or_by_the_callers_pricer() -> None:
    def image(detail: str) -> list[dict[str, Any]]:
        return [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "u", "detail": detail}}]}]
    plain = count_openai_tokens([{"role": "user", "content": []}], model="gpt-4o").unwrap().tokens
    assert count_openai_tokens(image("low"), model="gpt-4o").unwrap().tokens - plain == 85
    assert count_openai_tokens(image("high"), model="gpt-4o").unwrap().tokens - plain == 1445
    priced = count_openai_tokens(image("auto"), model="gpt-4o", image_tokens=lambda part: 255).unwrap()
    assert (priced.tokens - plain, priced.precision) == (255, "exact")
    raised = count_openai_tokens(image("auto"), model="gpt-4o", image_tokens=lambda part: 1 // 0).failure()
    assert isinstance(raised, PricingFailed) and isinstance(raised.cause, ZeroDivisionError)
    assert "messages[0].content[0]" in raised.message
    assert isinstance(count_openai_tokens(image("auto"), model="gpt-4o", image_tokens=lambda part: -1).failure(), PricingFailed)


@pytest.mark.parametrize(("messages", "kind", "text"), [
    ([{"content": "x"}], MalformedMessage, "messages[0].role: is required"),
    ([{"role": "robot", "content": "x"}], UnknownRole, "unknown role 'robot'"),
    # An unhashable role (JSON can carry a list) is an unknown role, not a TypeError.
    ([{"role": ["user"], "content": "x"}], UnknownRole, "unknown role ['user']"),
    ([{"role": {"user": 1}, "content": "x"}], UnknownRole, "unknown role {'user': 1}"),
    ([{"role": "user", "content": 7}], MalformedMessage, "messages[0].content: expected a str or a list"),
    ([{"role": "user"}], MalformedMessage, "messages[0].content: is required on a user message"),
    ([{"role": "assistant"}], MalformedMessage, "needs content, tool_calls or a refusal"),
    ([{"role": "user", "content": [{"text": "x"}]}], MalformedMessage, "messages[0].content[0]: expected a content part"),
    ([{"role": "user", "content": [{"type": "text", "text": 3}]}], MalformedMessage, "messages[0].content[0].text"),
    ([{"role": "user", "content": [{"type": "image_url", "image_url": {}}]}], MalformedMessage, "content[0].image_url"),
    ([{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "u", "detail": "max"}}]}],
     MalformedMessage, "content[0].image_url.detail"),
    ([{"role": "user", "content": "x", "name": 5}], MalformedMessage, "messages[0].name"),
    ([{"role": "tool", "content": "x"}], MalformedMessage, "messages[0].tool_call_id: is required"),
    ([{"role": "tool", "content": "x", "tool_call_id": "c9"}], ToolResultWithoutCall, "messages[0].tool_call_id"),
    ([{"role": "user", "content": "x", "tool_calls": []}], MalformedMessage, "only assistant messages make tool calls"),
    ([{"role": "assistant", "tool_calls": [{"type": "function", "function": {"name": "f"}}]}],
     MalformedMessage, "messages[0].tool_calls[0].id"),
    ([{"role": "assistant", "tool_calls": [{"id": "c", "type": "function", "function": {}}]}],
     MalformedMessage, "messages[0].tool_calls[0].function"),
    (_round(["c"])[:1], ToolCallWithoutResult, "messages[0].tool_calls[0].id: tool call 'c' has no result"),
    ([*_round(["c"]), *_round(["c"])], DuplicateToolCall, "messages[2].tool_calls[0].id"),
    ([*_round(["c"]), {"role": "tool", "tool_call_id": "c", "content": "again"}], ToolResultWithoutCall, "messages[2]"),
])
def test_bad_messages_are_error_values_naming_index_and_field(messages: list[Any], kind: type, text: str) -> None:
    error = fit_openai_messages(messages, 1000, model="gpt-4o").failure()
    assert isinstance(error, kind)
    assert text in error.message


@pytest.mark.parametrize(("tools", "field"), [
    ([{"type": "retrieval"}], "tools[0].type"),
    ([{"type": "function", "function": {"description": "x"}}], "tools[0].function.name"),
    ([{"type": "function", "function": {"name": "f", "description": 3}}], "tools[0].function.description"),
    ([{"type": "function", "function": {"name": "f", "parameters": {"properties": {"p": 1}}}}], "properties.p"),
])
def test_bad_tools_are_error_values(tools: list[Any], field: str) -> None:
    error = fit_openai_messages([{"role": "user", "content": "x"}], 1000, model="gpt-4o", tools=tools).failure()
    assert isinstance(error, InvalidTool) and field in error.message


def test_a_bad_window_is_an_error_value_naming_it() -> None:
    for window in (-5, None, "100", float("nan"), True):
        error = fit_openai_messages([{"role": "user", "content": "x"}], window, model="gpt-4o").failure()  # type: ignore[arg-type] # deliberately wrong
        assert isinstance(error, InvalidArgument) and error.field == "context_window"


DOCS: list[dict[str, Any]] = [
    {"content": "Refunds take 30 days.", "score": 3.0, "source": "kb/refunds.md"},
    {"content": "Shipping is free over 50 EUR. " * 20, "score": -1.0},
]


def test_documents_render_into_one_message_where_the_caller_chooses() -> None:
    history = [{"role": "system", "content": "Answer from the documents."}, {"role": "user", "content": "Refund time?"}]
    nonce = KeyedNonce(bytes(32))
    default = fit_openai_messages(history, 4000, model="gpt-4o", documents=DOCS, nonce=nonce).unwrap()
    assert [m["role"] for m in default.messages] == ["system", "user", "user"]
    assert default.messages[0] is history[0] and default.messages[2] is history[1]
    assert "Refunds take 30 days." in default.messages[1]["content"]
    assert [record.trust_tier for record in default.records] == ["third-party-private"] * 2
    assert [record.score for record in default.records] == [1.0, 0.0]  # min-max onto [0, 1]
    at_end = fit_openai_messages(history, 4000, model="gpt-4o", documents=DOCS, documents_at=2,
                                 documents_role="system", tier="first-party", nonce=nonce).unwrap()
    assert at_end.messages[2]["role"] == "system" and at_end.messages[:2] == history
    assert count_openai_tokens(at_end.messages, model="gpt-4o").unwrap() == at_end.tokens


def test_low_scored_documents_shed_first_and_none_left_means_no_message() -> None:
    history = [{"role": "user", "content": "Refund time?"}]
    nonce = KeyedNonce(bytes(32))
    full = fit_openai_messages(history, 10**6, model="gpt-4o", documents=DOCS, nonce=nonce).unwrap()
    one = fit_openai_messages(history, full.tokens.tokens - 1, model="gpt-4o", documents=DOCS,
                              nonce=nonce, output_reserve=0).unwrap()
    assert [record.source for record in one.records] == ["kb/refunds.md"]
    assert len(one.documents) == 1 and any(one.documents[0] is given for given in DOCS)  # the caller's own object
    assert all(kept is given for kept, given in zip(full.documents, DOCS, strict=True))
    none = fit_openai_messages(history, 20, model="gpt-4o", documents=DOCS, nonce=nonce, output_reserve=0).unwrap()
    assert none.documents == () and none.messages == history


def test_document_defaults_are_deterministic_and_bad_documents_are_error_values() -> None:
    same = [{"content": "twin"}, {"content": "twin"}]
    nonce = KeyedNonce(bytes(32))
    first = fit_openai_messages([{"role": "user", "content": "q"}], 10**6, model="gpt-4o", documents=same, nonce=nonce).unwrap()
    again = fit_openai_messages([{"role": "user", "content": "q"}], 10**6, model="gpt-4o", documents=same, nonce=nonce).unwrap()
    assert [r.id for r in first.records] == [r.id for r in again.records]
    assert first.records[1].id == first.records[0].id + "#2"
    assert first.records[0].created_at.year == 1970
    for documents, field in (([{"content": ""}], "content"), ([{"content": "x", "score": float("nan")}], "score"),
                             ([{"content": "x", "trust_tier": "mine"}], "trust_tier"), ([{"content": "x", "colour": 1}], "colour")):
        error = fit_openai_messages([{"role": "user", "content": "q"}], 1000, model="gpt-4o", documents=documents).failure()
        assert isinstance(error, InvalidDocument) and error.field == field, error


def test_the_documents_place_is_checked() -> None:
    history = [{"role": "user", "content": "go"}, *_round(["a", "b"])]
    for place in (9, -9, 2):
        error = fit_openai_messages(history, 1000, model="gpt-4o", documents=DOCS, documents_at=place).failure()
        assert isinstance(error, InvalidArgument) and error.field == "documents_at"
    error = fit_openai_messages(history, 1000, model="gpt-4o", documents=DOCS, documents_role="tool").failure()
    assert isinstance(error, InvalidArgument) and error.field == "documents_role"


def test_importing_the_adapters_package_imports_no_ecosystem_module() -> None:
    code = ("import sys, thrift_fp, thrift_fp.adapters, thrift_fp.adapters.openai, thrift_fp.adapters.anthropic;"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pydantic_ai', 'langchain_core', 'llama_index', 'openai', 'anthropic')))")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert out.strip() == "[]"


def test_sdk_message_objects_are_read_and_come_back_as_the_callers_own() -> None:
    from openai.types.chat import ChatCompletionMessage

    reply = ChatCompletionMessage.model_validate({"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "weather", "arguments": '{"city": "Paris"}'}}]})
    as_dict = reply.model_dump(exclude_none=True)
    history: list[object] = [{"role": "user", "content": "Weather?"}, reply,
                             {"role": "tool", "tool_call_id": "c1", "content": "18C"}, {"role": "user", "content": "Thanks"}]
    fitted = fit_openai_messages(history, 1000, model="gpt-4o").unwrap()
    assert fitted.messages[1] is reply
    same = fit_openai_messages([history[0], as_dict, *history[2:]], 1000, model="gpt-4o").unwrap()
    assert same.tokens == fitted.tokens


def test_the_legacy_function_role_answers_the_latest_function_call() -> None:
    history: list[dict[str, Any]] = [
        {"role": "user", "content": "Weather in Paris? " * 40},
        {"role": "assistant", "content": None, "function_call": {"name": "weather", "arguments": "{}"}},
        {"role": "function", "name": "weather", "content": "18C " * 40},
        {"role": "user", "content": "Thanks"},
    ]
    sizes = {fit_openai_messages(history, window, model="gpt-4o", output_reserve=0).map(lambda f: f.shed).value_or(None)
             for window in range(0, 400, 7)}
    assert not any(shed is not None and (1 in shed) != (2 in shed) for shed in sizes)
    assert isinstance(fit_openai_messages(history[2:], 1000, model="gpt-4o").failure(), ToolResultWithoutCall)


@pytest.mark.parametrize(("messages", "field"), [
    ([{"role": "user", "content": "x", "meta": 10**5000}], "meta"),
    ([{"role": "user", "content": [{"type": "input_audio", "data": 10**5000}]}], "content[0]"),
])
def test_values_no_request_could_carry_are_error_values_naming_the_field(messages: list[Any], field: str) -> None:
    error = fit_openai_messages(messages, 1000, model="gpt-4o").failure()
    assert isinstance(error, MalformedMessage) and (error.index, error.field) == (0, field)


def test_deep_nesting_in_messages_and_tool_schemas_is_an_error_value() -> None:
    nested: object = "x"
    for _ in range(5000):
        nested = [nested]
    error = fit_openai_messages([{"role": "user", "content": "x", "extra": nested}], 1000, model="gpt-4o").failure()
    assert isinstance(error, MalformedMessage) and error.field == "extra"
    tool = {"type": "function", "function": {"name": "f", "parameters": {"properties": {"p": {"type": "array", "items": nested}}}}}
    error_tool = fit_openai_messages([{"role": "user", "content": "x"}], 1000, model="gpt-4o", tools=[tool]).failure()
    assert isinstance(error_tool, InvalidTool) and "properties.p" in error_tool.field


@pytest.mark.parametrize(("arguments", "field"), [
    ({"messages": None}, "messages"), ({"model": 5}, "model"), ({"output_reserve": "9"}, "output_reserve"),
    ({"reserve_fraction": None}, "reserve_fraction"), ({"refill": "yes"}, "refill"), ({"shed_order": "rag"}, "shed_order"),
    ({"token_counter": 3}, "token_counter"),
])
def test_wrongly_typed_arguments_are_error_values_naming_the_argument(arguments: dict[str, Any], field: str) -> None:
    call: dict[str, Any] = {"messages": [{"role": "user", "content": "x"}], "context_window": 1000, "model": "gpt-4o"}
    call.update(arguments)
    error = fit_openai_messages(**call).failure()
    assert isinstance(error, InvalidArgument) and error.field == field


def test_a_token_counter_counts_every_text_with_the_precision_it_declares() -> None:
    from thrift_fp.adapters import TokenCounter

    one = [{"role": "user", "content": "hello world"}]
    declared = fit_openai_messages(one, 1000, token_counter=TokenCounter(len, "exact")).unwrap().tokens
    assert (declared.tokens, declared.precision) == (3 + len("user") + len("hello world") + 3, "exact")
    assert fit_openai_messages(one, 1000, token_counter=len).unwrap().tokens.precision == "estimated"
    raising = fit_openai_messages(one, 1000, token_counter=lambda text: 1 // 0).failure()
    assert "ZeroDivisionError" in raising.message


def test_output_validates_against_the_sdk_message_params() -> None:
    from openai.types.chat import ChatCompletionMessageParam
    from pydantic import TypeAdapter

    history = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "go " * 100}, *_round(["a", "b"]),
               {"role": "user", "content": "and?"}]
    fitted = fit_openai_messages(history, 300, model="gpt-4o", documents=DOCS, nonce=KeyedNonce(bytes(32))).unwrap()
    TypeAdapter(list[ChatCompletionMessageParam]).validate_python(fitted.messages)
