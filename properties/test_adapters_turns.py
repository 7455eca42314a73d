"""Turns stay readable by default, in all five adapters: the kept history never opens on an answer,
a tool call or a tool result whose question was shed. After the pinned system messages, the first
kept message is a question (a user message that holds no tool result), or the first message given
(nothing before it shed): the messages before the first question (all of them, in a history with
no question) are one turn with no question, kept or shed whole. Every shed message, the shed
question first, is named in the trace (``messages[i]``). ``whole_turns=False`` opts out (message
by message, tool pairs still whole).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

from hypothesis import given, settings
from hypothesis import strategies as st
from returns.result import Failure

_WORDS = st.sampled_from(["refund", "policy", "weather in Oslo", "日本", "tool", "42 days", "the shipping rules"])


@dataclass(frozen=True)
class Turn:
    """One turn: a question (``None``: the rounds before any question), tool rounds (each the
    number of parallel calls), maybe an answer."""

    question: str | None
    rounds: tuple[int, ...]
    answer: str | None


turns = st.lists(
    st.builds(Turn, st.tuples(_WORDS, st.integers(1, 12)).map(lambda spec: (spec[0] + " ") * spec[1]),
              st.lists(st.integers(1, 3), max_size=2).map(tuple), st.one_of(st.none(), _WORDS)),
    min_size=1, max_size=6,
).flatmap(
    # The first turn may have no question: an agent's rounds before any question, or, alone, a
    # history with no question at all.
    lambda drawn: st.sampled_from((drawn, [replace(drawn[0], question=None), *drawn[1:]]))
)


def _flat(conversation: list[Turn]) -> list[tuple[str, Any]]:
    """The conversation as (kind, payload): question, calls (ids), results (ids), answer."""
    out: list[tuple[str, Any]] = []
    for at, turn in enumerate(conversation):
        if turn.question is not None:
            out.append(("question", turn.question))
        for round_at, calls in enumerate(turn.rounds):
            ids = [f"c{at}_{round_at}_{n}" for n in range(calls)]
            out.append(("calls", ids))
            out.append(("results", ids))
        if turn.answer is not None:
            out.append(("answer", turn.answer))
    return out


def _dicts(
    flat: list[tuple[str, Any]],
    calls: Callable[[list[str]], list[dict[str, Any]]],
    results: Callable[[list[str]], list[dict[str, Any]]],
    opening: tuple[dict[str, Any], ...] = (),
) -> list[dict[str, Any]]:
    """The conversation as a provider's message dicts: a question or an answer is a plain message
    of its role (user, assistant); ``calls`` and ``results`` write a tool round's messages."""
    out = list(opening)
    for kind, payload in flat:
        if kind in ("question", "answer"):
            out.append({"role": "user" if kind == "question" else "assistant", "content": payload})
        else:
            out += (calls if kind == "calls" else results)(payload)
    return out


def _openai(flat: list[tuple[str, Any]]) -> list[dict[str, Any]]:
    return _dicts(
        flat,
        lambda ids: [{"role": "assistant", "content": None, "tool_calls": [
            {"id": i, "type": "function", "function": {"name": "look", "arguments": "{}"}} for i in ids]}],
        lambda ids: [{"role": "tool", "tool_call_id": i, "content": "found it"} for i in ids],
        ({"role": "system", "content": "Be brief."},),
    )


def _anthropic(flat: list[tuple[str, Any]]) -> list[dict[str, Any]]:
    return _dicts(
        flat,
        lambda ids: [{"role": "assistant", "content": [{"type": "tool_use", "id": i, "name": "look", "input": {}} for i in ids]}],
        lambda ids: [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": i, "content": "found it"} for i in ids]}],
    )


def _langchain(flat: list[tuple[str, Any]]) -> list[Any]:
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

    out: list[Any] = [SystemMessage("Be brief.")]
    for kind, payload in flat:
        if kind == "question":
            out.append(HumanMessage(payload))
        elif kind == "answer":
            out.append(AIMessage(payload))
        elif kind == "calls":
            out.append(AIMessage("", tool_calls=[{"name": "look", "args": {}, "id": i} for i in payload]))
        else:
            out += [ToolMessage("found it", tool_call_id=i) for i in payload]
    return out


def _llamaindex(flat: list[tuple[str, Any]]) -> list[Any]:
    from llama_index.core.base.llms.types import ToolCallBlock
    from llama_index.core.llms import ChatMessage

    out: list[Any] = [ChatMessage(role="system", content="Be brief.")]
    for kind, payload in flat:
        if kind == "question":
            out.append(ChatMessage(role="user", content=payload))
        elif kind == "answer":
            out.append(ChatMessage(role="assistant", content=payload))
        elif kind == "calls":
            out.append(ChatMessage(role="assistant", blocks=[ToolCallBlock(tool_call_id=i, tool_name="look", tool_kwargs={}) for i in payload]))
        else:
            out += [ChatMessage(role="tool", content="found it", additional_kwargs={"tool_call_id": i}) for i in payload]
    return out


def _pydantic_ai(flat: list[tuple[str, Any]]) -> list[Any]:
    from pydantic_ai.messages import ModelRequest, ModelResponse, SystemPromptPart, TextPart, ToolCallPart, ToolReturnPart, UserPromptPart

    out: list[Any] = []
    for kind, payload in flat:
        if kind == "question":
            parts: list[Any] = [UserPromptPart(payload)]
            out.append(ModelRequest([SystemPromptPart("Be brief."), *parts] if not out else parts))
        elif kind == "answer":
            out.append(ModelResponse([TextPart(payload)]))
        elif kind == "calls":
            out.append(ModelResponse([ToolCallPart("look", {}, tool_call_id=i) for i in payload]))
        else:
            out.append(ModelRequest([ToolReturnPart("look", "found it", tool_call_id=i) for i in payload]))
    return out


def _kind_openai(message: Any) -> str:
    return {"system": "system", "user": "question"}.get(message["role"], "other")


def _kind_anthropic(message: Any) -> str:
    genuine = message["role"] == "user" and isinstance(message["content"], str)
    return "question" if genuine else "other"


def _kind_langchain(message: Any) -> str:
    return {"system": "system", "human": "question"}.get(message.type, "other")


def _kind_llamaindex(message: Any) -> str:
    return {"system": "system", "user": "question"}.get(message.role.value, "other")


def _kind_pydantic_ai(message: Any) -> str:
    from pydantic_ai.messages import ModelRequest, UserPromptPart

    asks = isinstance(message, ModelRequest) and any(isinstance(part, UserPromptPart) for part in message.parts)
    return "question" if asks else "other"


def _fit(adapter: str, messages: list[Any], budget: int, whole_turns: bool | None) -> Any:
    options: dict[str, Any] = {} if whole_turns is None else {"whole_turns": whole_turns}
    if adapter == "openai":
        from thrift_fp.adapters.openai import fit_openai_messages

        return fit_openai_messages(messages, budget, model="gpt-4o", output_reserve=0, **options)
    if adapter == "anthropic":
        from thrift_fp.adapters.anthropic import fit_anthropic_messages

        return fit_anthropic_messages(messages, budget, system="Be brief.", output_reserve=0, **options)
    if adapter == "langchain":
        from thrift_fp.adapters.langchain import fit_messages

        return fit_messages(messages, budget, output_reserve=0, **options)
    if adapter == "llamaindex":
        from thrift_fp.adapters.llamaindex import fit_chat_messages

        return fit_chat_messages(messages, budget, output_reserve=0, **options)
    from thrift_fp.adapters.pydantic_ai import fit_model_messages

    return fit_model_messages(messages, budget, output_reserve=0, **options)


ADAPTERS: dict[str, tuple[Callable[[list[tuple[str, Any]]], list[Any]], Callable[[Any], str]]] = {
    "openai": (_openai, _kind_openai),
    "anthropic": (_anthropic, _kind_anthropic),
    "langchain": (_langchain, _kind_langchain),
    "llamaindex": (_llamaindex, _kind_llamaindex),
    "pydantic_ai": (_pydantic_ai, _kind_pydantic_ai),
}


def _opening(messages: list[Any], shed: set[int], kind: Callable[[Any], str]) -> int | None:
    """The input position of the first kept message that is not a system message."""
    return next((at for at, message in enumerate(messages) if at not in shed and kind(message) != "system"), None)


def _shed(adapter: str, messages: list[Any], fitted: Any) -> set[int]:
    if adapter in ("openai", "anthropic", "pydantic_ai"):
        return set(fitted.shed)
    kept = {id(message) for message in fitted.messages}
    return {at for at, message in enumerate(messages) if id(message) not in kept}


class Drawn(NamedTuple):
    """One drawn case: an adapter, a conversation (in that adapter's own objects: `messages`) and
    a budget."""

    adapter: str
    conversation: list[Turn]
    budget: int

    def messages(self) -> list[Any]:
        return ADAPTERS[self.adapter][0](_flat(self.conversation))


cases = st.builds(Drawn, st.sampled_from(sorted(ADAPTERS)), turns, st.integers(0, 600))


@settings(max_examples=150)
@given(cases)
def test_by_default_the_kept_history_opens_on_a_question_and_the_shed_ones_are_named(case: Drawn) -> None:
    adapter, budget, kind = case.adapter, case.budget, ADAPTERS[case.adapter][1]
    messages = case.messages()
    result = _fit(adapter, messages, budget, None)
    if isinstance(result, Failure):
        return
    fitted = result.unwrap()
    shed = _shed(adapter, messages, fitted)
    opening = _opening(messages, shed, kind)
    if opening is not None and kind(messages[opening]) != "question":
        # Only the first message given may open the kept history on an answer or a tool call:
        # nothing before it was shed (a history cut short opens on a question).
        assert not any(at in shed for at in range(opening)), (adapter, opening, sorted(shed))
    named = {ident for bucket in fitted.trace.buckets for ident in bucket.ids}
    assert {f"messages[{at}]" for at in shed} <= named


@settings(max_examples=60)
@given(cases)
def test_what_fits_turn_by_turn_fits_message_by_message(case: Drawn) -> None:
    adapter, budget, messages = case.adapter, case.budget, case.messages()
    whole, piecemeal = _fit(adapter, messages, budget, True), _fit(adapter, messages, budget, False)
    if not isinstance(whole, Failure):
        # Whole turns only add what must stay (the newest turn's question) and leave together.
        assert not isinstance(piecemeal, Failure)


no_question = st.builds(
    Drawn, st.sampled_from(sorted(ADAPTERS)),
    st.builds(Turn, st.none(), st.lists(st.integers(1, 3), min_size=1, max_size=3).map(tuple),
              st.one_of(st.none(), _WORDS)).map(lambda turn: [turn]),
    st.integers(0, 200),
)


@settings(max_examples=60)
@given(no_question)
def test_a_history_with_no_question_is_kept_whole_or_over_budget_by_its_whole_cost(case: Drawn) -> None:
    """No cut of it opens on a question: by default it is one turn, kept whole or `OverBudget`
    naming what the whole history costs as sent."""
    from thrift_fp.adapters._core import OverBudget

    messages = case.messages()
    whole = _fit(case.adapter, messages, 10**6, None).unwrap()
    result = _fit(case.adapter, messages, case.budget, None)
    if isinstance(result, Failure):
        error = result.failure()
        assert isinstance(error, OverBudget) and (error.tokens, error.budget) == (whole.tokens.tokens, case.budget)
    else:
        assert _shed(case.adapter, messages, result.unwrap()) == set() and case.budget >= whole.tokens.tokens
