"""Example tests of the Pydantic AI history processors, including runs of a real Agent (offline)."""

from __future__ import annotations

import asyncio

import pytest
from pydantic_ai import Agent
from pydantic_ai.capabilities import ProcessHistory
from pydantic_ai.messages import (
    ImageUrl,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from thrift_fp.adapters._a_errors import CountFailed, ToolResultWithoutCall
from thrift_fp.adapters._models import UnknownModel
from thrift_fp.adapters.pydantic_ai import (
    MEDIA_TOKENS,
    AsyncThriftHistory,
    HistoryFitError,
    ModelMessagesFit,
    ThriftHistory,
    count_model_messages,
    fit_model_messages,
)

WINDOW, RESERVE = 400, 100


def _agent(processor: ThriftHistory | AsyncThriftHistory, seen: list[list[ModelMessage]]) -> Agent[None, str]:
    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(list(messages))
        if not any(isinstance(part, ToolReturnPart) for part in messages[-1].parts):
            return ModelResponse([ToolCallPart("lookup", {"q": "disk"}, f"call-{len(seen)}")])
        return ModelResponse([TextPart("The disk filled up. " * 10)])

    agent: Agent[None, str] = Agent(FunctionModel(model), system_prompt="You are an incident analyst.",
                                    capabilities=[ProcessHistory(processor)])

    @agent.tool_plain
    def lookup(q: str) -> str:
        return f"{q}: full at 09:12 " * 10

    return agent


def _report(fits: list[bool]) -> ThriftHistory:
    return ThriftHistory(WINDOW, output_reserve=RESERVE, on_fit=lambda fitted: fits.append(fitted.trace.fits))


@pytest.mark.parametrize("make", [_report, lambda fits: AsyncThriftHistory(_report(fits))])
def test_a_real_agent_sees_a_history_within_budget_with_no_orphaned_tool_parts(make: object) -> None:
    seen: list[list[ModelMessage]] = []
    fits: list[bool] = []
    agent = _agent(make(fits), seen)  # type: ignore[operator]  # the parametrized factories
    history: list[ModelMessage] | None = None
    for turn in range(5):
        # agent.run, not run_sync: run_sync leaves its event loop open for the rest of the session.
        history = asyncio.run(agent.run(f"What happened on day {turn}?", message_history=history)).all_messages()
    assert len(fits) == len(seen) and all(fits)
    for request in seen:
        assert count_model_messages(request).unwrap().tokens <= WINDOW - RESERVE
        calls = {p.tool_call_id for m in request for p in m.parts if isinstance(p, ToolCallPart)}
        returns = {p.tool_call_id for m in request for p in m.parts if isinstance(p, ToolReturnPart)}
        assert returns <= calls
        assert any(isinstance(part, SystemPromptPart) for part in request[0].parts)
    assert len(seen[-1]) < len(history or [])


def _call(call_id: str) -> ModelResponse:
    return ModelResponse([ToolCallPart("lookup", {"q": "x"}, call_id)])


def _answer(call_id: str) -> ModelRequest:
    return ModelRequest([ToolReturnPart("lookup", "result " * 40, call_id)])


def test_calls_and_their_returns_leave_together() -> None:
    history: list[ModelMessage] = [ModelRequest.user_text_prompt("start " * 30), _call("a"), _answer("a"),
                                   ModelResponse([TextPart("ok")]), ModelRequest.user_text_prompt("next")]
    total = count_model_messages(history).unwrap().tokens
    for window in range(total + 1):
        fitted = fit_model_messages(history, window, output_reserve=0).unwrap()
        assert {1, 2} <= set(fitted.shed) or not {1, 2} & set(fitted.shed)
        assert fitted.messages[-1] is history[-1]


@pytest.mark.filterwarnings("ignore:.*RetryPromptPart.*")
def test_a_retry_prompt_answering_a_call_pairs_with_it_and_one_answering_none_does_not() -> None:
    retry = ModelRequest([RetryPromptPart("bad arguments " * 20, tool_name="lookup", tool_call_id="a")])
    plain = ModelRequest([RetryPromptPart("answer in JSON " * 20)])
    history: list[ModelMessage] = [_call("a"), retry, plain, ModelResponse([TextPart("ok")]), ModelRequest.user_text_prompt("go")]
    total = count_model_messages(history).unwrap().tokens
    for window in range(total + 1):
        shed = set(fit_model_messages(history, window, output_reserve=0).unwrap().shed)
        assert {0, 1} <= shed or not {0, 1} & shed
    assert isinstance(fit_model_messages([retry], 100).failure(), ToolResultWithoutCall)


def test_a_return_without_its_call_is_an_error_value_naming_message_and_part() -> None:
    error = fit_model_messages([ModelRequest.user_text_prompt("hi"), _answer("ghost")], 1000).failure()
    assert isinstance(error, ToolResultWithoutCall)
    assert error.message == "messages[1].parts[0].tool_call_id: no earlier unanswered tool call has id 'ghost'"


def test_the_newest_request_is_never_shed_even_when_a_response_follows_it() -> None:
    history: list[ModelMessage] = [ModelRequest.user_text_prompt("old " * 100), ModelResponse([TextPart("a " * 100)]),
                                   ModelRequest.user_text_prompt("newest request " * 20), ModelResponse([TextPart("b")])]
    fitted = fit_model_messages(history, 60, output_reserve=0).unwrap()
    assert fitted.messages == [history[2], history[3]]


def test_processors_raise_the_error_value_and_report_each_fit() -> None:
    reports: list[ModelMessagesFit] = []
    history: list[ModelMessage] = [ModelRequest.user_text_prompt("hi")]
    assert ThriftHistory(1000, on_fit=reports.append)(history) == history
    assert reports[0].trace.fits
    with pytest.raises(HistoryFitError) as raised:
        ThriftHistory(1000, encoding="no-such-encoding")(history)
    assert isinstance(raised.value.error, CountFailed) and "no-such-encoding" in str(raised.value)


def test_model_names_pick_the_encoding_and_media_is_priced() -> None:
    history: list[ModelMessage] = [ModelRequest([UserPromptPart(["look", ImageUrl("https://e.x/a.png")])])]
    assert count_model_messages(history, model="openai:gpt-4").unwrap().encoding == "cl100k_base"
    assert isinstance(count_model_messages(history, model="mistral:large").failure(), UnknownModel)
    default = count_model_messages(history).unwrap()
    priced = count_model_messages(history, media_tokens=lambda item: 5).unwrap()
    assert default.precision == "estimated" and priced.precision == "exact"
    assert default.tokens - priced.tokens == MEDIA_TOKENS - 5


def test_whole_turns_never_leave_a_response_first() -> None:
    history: list[ModelMessage] = [ModelRequest.user_text_prompt("old " * 100), ModelResponse([TextPart("short")]),
                                   ModelRequest.user_text_prompt("new")]
    window = count_model_messages(history[1:]).unwrap().tokens
    assert fit_model_messages(history, window, output_reserve=0).unwrap().shed == (0, 1)
    assert fit_model_messages(history, window, output_reserve=0, whole_turns=False).unwrap().shed == (0,)
    assert ThriftHistory(window, output_reserve=0, whole_turns=False)(history)[0] is history[1]
