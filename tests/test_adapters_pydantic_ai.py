"""Example tests and regressions of the Pydantic AI history processors, including real Agent runs (offline)."""

from __future__ import annotations

import asyncio

import pytest
from pydantic_ai import Agent
from pydantic_ai.capabilities import ProcessHistory
from pydantic_ai.messages import (ImageUrl, ModelMessage, ModelRequest, ModelResponse, RetryFeedbackPart,
                                  RetryInfo, RetryPromptPart, SystemPromptPart, TextPart, ToolCallPart,
                                  ToolReturnPart, UserPromptPart)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from returns.result import Failure

from properties.adapters_pydantic_ai_strategies import adjacent_requests, orphans, sent_tokens, system_parts
from thrift_fp.adapters.pydantic_ai import AsyncThriftHistory, HistoryFitError, ModelMessagesFit, ThriftHistory, count_model_messages, fit_model_messages
from thrift_fp.adapters import CountFailed, InvalidArgument, MalformedMessage, OverBudget, TokenCounter, ToolResultWithoutCall, UnknownModel
from thrift_fp.adapters.pydantic_ai._read import MEDIA_TOKENS

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
        assert sent_tokens(request) <= WINDOW - RESERVE
        assert orphans(request) == set() and adjacent_requests(request) == []
        assert any(isinstance(part, SystemPromptPart) for part in request[0].parts)
    assert len(seen[-1]) < len(history or [])


def _turns(instructions: str, count: int) -> list[ModelMessage]:
    history: list[ModelMessage] = []
    for turn in range(count):
        history += [ModelRequest([UserPromptPart(f"question {turn}")], instructions=instructions),
                    ModelResponse([TextPart("ok")])]
    return [*history, ModelRequest([UserPromptPart("one more")], instructions=instructions)]


def test_only_the_instructions_in_force_are_charged_so_what_fits_is_not_shed() -> None:
    instructions = "Answer briefly and cite the runbook section you used. " * 25
    history = _turns(instructions, 10)
    fitted = fit_model_messages(history, 1000, output_reserve=0).unwrap()
    assert fitted.shed == () and fitted.messages == history
    assert fitted.tokens.tokens == sent_tokens(history) == count_model_messages(history).unwrap().tokens
    assert 270 <= count_model_messages([ModelRequest([], instructions=instructions)]).unwrap().tokens - 6 <= 300


def test_a_tool_results_request_without_instructions_is_sent_the_previous_requests() -> None:
    call = ModelResponse([ToolCallPart("lookup", {"q": "x"}, "a")])
    history: list[ModelMessage] = [ModelRequest([UserPromptPart("go")], instructions="Be terse. " * 20), call,
                                   ModelRequest([ToolReturnPart("lookup", "done", "a")])]
    assert count_model_messages(history).unwrap().tokens == sent_tokens(history)
    assert count_model_messages(history).unwrap().tokens > count_model_messages(history[1:]).unwrap().tokens + 40
    # That request is where Pydantic AI reads the instructions: it is kept with the newest.
    fitted = fit_model_messages(history, count_model_messages(history).unwrap().tokens, output_reserve=0,
                                whole_turns=False).unwrap()
    assert fitted.messages == history


def _issue_history() -> list[ModelMessage]:
    return [ModelRequest([SystemPromptPart("s"), UserPromptPart("Q0 " * 40)]), ModelResponse([TextPart("A0 " * 40)]),
            ModelRequest([UserPromptPart("Q1 " * 40)]), ModelResponse([TextPart("A1 " * 40)]),
            ModelRequest([UserPromptPart("Q2")])]


@pytest.mark.parametrize("whole_turns", [True, False])
def test_the_system_prompt_stays_without_the_old_user_prompt_and_no_two_requests_become_adjacent(
    whole_turns: bool,
) -> None:
    history = _issue_history()
    out = ThriftHistory(200, output_reserve=0, whole_turns=whole_turns)(history)
    assert adjacent_requests(out) == []
    assert sent_tokens(out) <= 200
    assert system_parts(out) == system_parts(history)
    assert not any(part is history[0].parts[1] for message in out for part in message.parts)
    # Only the request holding the system parts is new; everything else is the caller's object.
    assert [message for message in out if not any(message is given for given in history)] == [out[0]]
    assert out[0].parts[0] is history[0].parts[0]


def test_a_system_prompt_whose_user_prompt_went_stands_alone_before_a_response() -> None:
    history = _issue_history()
    fitted = fit_model_messages(history, count_model_messages(history[1:]).unwrap().tokens + 4, output_reserve=0,
                                whole_turns=False).unwrap()
    assert fitted.shed == (0,)
    assert [type(part) for part in fitted.messages[0].parts] == [SystemPromptPart]
    assert fitted.messages[1:] == history[1:] and fitted.messages[0] is not history[0]


def test_a_long_first_user_prompt_goes_and_its_system_prompt_stays() -> None:
    history: list[ModelMessage] = [ModelRequest([SystemPromptPart("s"), UserPromptPart("Q " * 500)]),
                                   ModelRequest([UserPromptPart("hi")])]
    out = ThriftHistory(100, output_reserve=0)(history)
    assert sent_tokens(out) <= 100
    assert [[type(part) for part in message.parts] for message in out] == [[SystemPromptPart, UserPromptPart]]
    assert out[0].parts[0] is history[0].parts[0] and out[0].parts[1] is history[1].parts[0]


def test_a_history_whose_protected_parts_exceed_the_budget_is_an_error_value_and_the_processor_raises() -> None:
    history: list[ModelMessage] = [ModelRequest([SystemPromptPart("s " * 300), UserPromptPart("hi")])]
    error = fit_model_messages(history, 100, output_reserve=0).failure()
    assert isinstance(error, OverBudget) and error.budget == 100 and error.tokens > 300
    with pytest.raises(HistoryFitError) as raised:
        ThriftHistory(100, output_reserve=0)(history)
    assert raised.value.error == error


def test_a_newest_turn_of_many_tool_rounds_sheds_its_oldest_rounds_and_keeps_its_prompt() -> None:
    budget = 3000
    seen: list[int] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(sent_tokens(messages, instructions=info.instructions))
        assert isinstance(messages[0].parts[-1], UserPromptPart) and orphans(messages) == set()
        assert adjacent_requests(messages) == []
        if len(seen) <= 30:
            return ModelResponse([ToolCallPart("lookup", {"q": f"log {len(seen)}"}, f"call-{len(seen)}")])
        return ModelResponse([TextPart("done")])

    agent: Agent[None, str] = Agent(FunctionModel(model), system_prompt="You read logs.",
                                    instructions="Read every log before answering.",
                                    capabilities=[ProcessHistory(ThriftHistory(budget, output_reserve=0))])

    @agent.tool_plain
    def lookup(q: str) -> str:
        return f"{q}: disk full at 09:12 on node seven " * 30

    asyncio.run(agent.run("Why did the service stop?"))
    assert len(seen) == 31 and max(seen) <= budget


def test_calls_and_their_returns_leave_together() -> None:
    history: list[ModelMessage] = [ModelRequest.user_text_prompt("start " * 30), _call("a"), _answer("a"),
                                   ModelResponse([TextPart("ok")]), ModelRequest.user_text_prompt("next")]
    for whole_turns in (True, False):
        for fitted in _fits_at_every_window(history, whole_turns):
            assert fitted.messages[-1] is history[-1]


def _fits_at_every_window(history: list[ModelMessage], whole_turns: bool) -> list[ModelMessagesFit]:
    """Fit ``history`` into every window from 0 to its whole count: each fit sheds messages 1 and 2
    (a call and its answer) both or neither, and one that cannot fit is `OverBudget`."""
    fits = []
    for window in range(count_model_messages(history).unwrap().tokens + 1):
        fitted = fit_model_messages(history, window, output_reserve=0, whole_turns=whole_turns)
        if isinstance(fitted, Failure):
            assert isinstance(fitted.failure(), OverBudget)
            continue
        shed = set(fitted.unwrap().shed)
        assert {1, 2} <= shed or not {1, 2} & shed
        fits.append(fitted.unwrap())
    return fits


def _call(call_id: str) -> ModelResponse:
    return ModelResponse([ToolCallPart("lookup", {"q": "x"}, call_id)])


def _answer(call_id: str) -> ModelRequest:
    return ModelRequest([ToolReturnPart("lookup", "result " * 40, call_id)])


@pytest.mark.filterwarnings("ignore:.*RetryPromptPart.*")
def test_a_retry_prompt_answering_a_call_pairs_with_it_and_one_answering_none_does_not() -> None:
    retry = ModelRequest([RetryPromptPart("bad arguments " * 20, tool_name="lookup", tool_call_id="a")])
    history: list[ModelMessage] = [ModelRequest.user_text_prompt("go"), _call("a"), retry,
                                   ModelResponse([TextPart("ok")]), ModelRequest.user_text_prompt("go on")]
    _fits_at_every_window(history, whole_turns=False)
    assert isinstance(fit_model_messages([retry], 100).failure(), ToolResultWithoutCall)


def test_a_return_without_its_call_is_an_error_value_naming_message_and_part() -> None:
    error = fit_model_messages([ModelRequest.user_text_prompt("hi"), _answer("ghost")], 1000).failure()
    assert isinstance(error, ToolResultWithoutCall)
    assert "[1].parts[0].tool_call_id" in error.message and "'ghost'" in error.message


def test_a_wrongly_typed_field_is_an_error_value_naming_message_part_and_field() -> None:
    history: list[ModelMessage] = [ModelRequest.user_text_prompt("hi"), ModelResponse([TextPart("ok"), TextPart(7)])]  # type: ignore[arg-type]
    error = fit_model_messages(history, 1000).failure()
    assert isinstance(error, MalformedMessage)
    assert "[1].parts[1].content" in error.message and "texts[" not in error.message


@pytest.mark.parametrize("budget", ["100", None, float("nan"), True])
def test_a_wrongly_typed_budget_is_an_error_value(budget: object) -> None:
    error = fit_model_messages([ModelRequest.user_text_prompt("hi")], budget).failure()  # type: ignore[arg-type]
    assert isinstance(error, InvalidArgument) and "context_window" in error.message


def test_hostile_tool_arguments_are_priced_without_raising() -> None:
    nested: list[object] = []
    cursor = nested
    for _ in range(5000):
        cursor.append([])
        cursor = cursor[0]  # type: ignore[assignment]
    for args in ({"n": 10**5000}, {"deep": nested}):
        history: list[ModelMessage] = [ModelRequest.user_text_prompt("go"),
                                       ModelResponse([ToolCallPart("lookup", args, "a")]),
                                       ModelRequest([ToolReturnPart("lookup", args, "a")])]
        counted = count_model_messages(history).unwrap()
        assert counted.tokens > 1000
        fitted = fit_model_messages(history, 10**7).unwrap()
        assert fitted.messages == history


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


def test_a_processor_tokenizes_only_the_new_texts_of_the_next_step() -> None:
    counted: list[str] = []

    def words(text: str) -> int:
        counted.append(text)
        return len(text.split())

    processor = ThriftHistory(10**6, token_counter=TokenCounter(words, "exact"))
    history = _turns("Be brief.", 50)
    processor(history)
    assert len(counted) >= 50  # each distinct text once
    counted.clear()
    grown = [*history, ModelResponse([TextPart("fine")]), ModelRequest([UserPromptPart("again")], instructions="Be brief.")]
    fitted = processor.fit(grown).unwrap()
    assert fitted.messages == grown and fitted.tokens.precision == "exact"
    assert sorted(text for text in counted if text) == ["again", "fine"]
    assert fitted.tokens.tokens == fit_model_messages(grown, 10**6, token_counter=TokenCounter(words, "exact")).unwrap().tokens.tokens


def test_a_processor_reads_again_a_message_whose_part_was_replaced() -> None:
    processor = ThriftHistory(10**6)
    history = _turns("Be brief.", 3)
    before = processor.fit(history).unwrap().tokens.tokens
    history[1].parts[0] = TextPart("a much longer answer than ok " * 10)  # type: ignore[index]
    after = processor.fit(history).unwrap().tokens.tokens
    assert after == count_model_messages(history).unwrap().tokens > before


def test_whole_turns_keep_the_reply_a_newest_retry_feedback_answers_so_no_requests_become_adjacent() -> None:
    feedback = RetryFeedbackPart("answer in JSON", retry=RetryInfo(cause="model_retry"))
    history: list[ModelMessage] = [ModelRequest([UserPromptPart("question")], instructions="Reply in JSON."), _call("a"),
                                   _answer("a"), ModelResponse([TextPart("not json " * 30)]),
                                   ModelRequest([feedback], instructions="Reply in JSON.")]
    total = count_model_messages(history).unwrap().tokens
    shed_any = False
    for window in range(total + 1):
        fitted = fit_model_messages(history, window, output_reserve=0)
        if isinstance(fitted, Failure):
            assert isinstance(fitted.failure(), OverBudget)
            continue
        assert adjacent_requests(fitted.unwrap().messages) == []
        assert fitted.unwrap().messages[-2] is history[3]
        shed_any = shed_any or bool(fitted.unwrap().shed)
    assert shed_any
