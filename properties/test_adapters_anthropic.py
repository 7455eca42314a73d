"""Properties of the Anthropic Messages adapter, over generated conversations (parallel tool uses,
repeated rounds, thinking, images, the SDK's own content blocks) and budgets: as sent, the
estimate is within the budget or the result is an error value; no ``tool_use`` or
``tool_result`` is orphaned; the output is valid for the API (the SDK's ``MessageParam``); the
returned objects are the caller's; in whole-turn mode what is kept starts with a user turn. With
documents the same holds, the documents ride in ``system`` (valid as the SDK's ``system``
param), the kept documents are the caller's own, and without refill they are the best-ranked
(lowest score shed first, an unscored one below every scored one)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from anthropic.types import MessageParam, TextBlockParam, ToolUseBlock
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter
from returns.result import Failure, Result

from properties.adapters_a_strategies import Written, anthropic, conversations, text
from thrift_fp.adapters._core import normalised_scores
from thrift_fp.adapters._core import AdapterError, OverBudget
from thrift_fp.adapters.anthropic import AnthropicFit, count_anthropic_tokens, fit_anthropic_messages
from thrift_fp.thrift import AGENT, RAG
from thrift_fp.render import KeyedNonce
from thrift_fp.thrift import ShedOrder

SYSTEM = "You are a careful incident analyst."
TOOLS: list[dict[str, Any]] = [{"name": "lookup", "description": "Look a thing up.", "input_schema": {"type": "object"}}]
PARAMS: TypeAdapter[list[MessageParam]] = TypeAdapter(list[MessageParam])
SYSTEM_PARAM: TypeAdapter[str | list[TextBlockParam]] = TypeAdapter(str | list[TextBlockParam])
IMAGE = {"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}}
windows = st.integers(min_value=0, max_value=4000)


@st.composite
def held(draw: st.DrawFn) -> Written:
    """A conversation as a user's code holds it: some ``tool_use`` blocks are the SDK's
    ``ToolUseBlock`` objects (``response.content``), some user messages carry an image."""
    written = anthropic(draw(conversations))
    messages: list[Any] = []
    for message in written.messages:
        content = message["content"]
        if message["role"] == "assistant" and not isinstance(content, str) and draw(st.booleans()):
            message = {"role": "assistant", "content": [
                ToolUseBlock.model_validate(block) if block["type"] == "tool_use" else block for block in content]}
        elif message["role"] == "user" and isinstance(content, str) and draw(st.integers(0, 4)) == 0:
            message = {"role": "user", "content": [{"type": "text", "text": content}, IMAGE]}
        messages.append(message)
    return Written(messages, written.rounds, written.instructions)


def _blocks(message: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    content = message["content"]
    if isinstance(content, str):
        return []
    return [block.model_dump() if isinstance(block, ToolUseBlock) else block for block in content]


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
@given(held())
def test_an_unlimited_budget_returns_the_same_objects_in_the_same_order(written: Written) -> None:
    fitted = fit_anthropic_messages(written.messages, 10**9, system=SYSTEM, tools=TOOLS).unwrap()
    assert [id(message) for message in fitted.messages] == [id(message) for message in written.messages]
    assert fitted.shed == () and fitted.system is SYSTEM


@settings(max_examples=80)
@given(held(), windows, st.booleans(), st.booleans())
def test_as_sent_the_output_is_within_budget_valid_and_the_callers_own_or_an_error_value(
    written: Written, window: int, whole_turns: bool, with_tools: bool
) -> None:
    tools = TOOLS if with_tools else []
    result = fit_anthropic_messages(written.messages, window, system=SYSTEM, tools=tools, output_reserve=0,
                                    whole_turns=whole_turns)
    fitted = _fitted_within(result, window)
    if fitted is None:
        return
    counted = count_anthropic_tokens(fitted.messages, system=SYSTEM, tools=tools).unwrap()
    assert counted == fitted.tokens and counted.precision == "estimated"
    assert counted.tokens <= window
    _assert_valid_and_the_callers_own(written, fitted, whole_turns)


def _fitted_within(result: Result[AnthropicFit[Any], AdapterError], window: int) -> AnthropicFit[Any] | None:
    """The fit, or ``None`` when ``result`` is the `OverBudget` of ``window`` (any other error fails)."""
    if isinstance(result, Failure):
        error = result.failure()
        assert isinstance(error, OverBudget) and error.budget == window
        return None
    return result.unwrap()


def _assert_valid_and_the_callers_own(written: Written, fitted: AnthropicFit[Any], whole_turns: bool) -> None:
    """Every tool call kept with its result, valid request params, the caller's own message objects
    in input order; with ``whole_turns`` a history cut short opens on a user question."""
    assert _orphans(fitted.messages) == []
    PARAMS.validate_python(fitted.messages)
    kept = [written.messages[index] for index in range(len(written.messages)) if index not in fitted.shed]
    assert all(a is b for a, b in zip(fitted.messages, kept, strict=True)) and len(kept) == len(fitted.messages)
    if whole_turns and fitted.messages and fitted.messages[0] is not written.messages[0]:
        first = fitted.messages[0]
        assert first["role"] == "user" and not any(block["type"] == "tool_result" for block in _blocks(first))


documents = st.lists(
    st.fixed_dictionaries({"content": text}, optional={"score": st.floats(-5, 5), "source": st.sampled_from(("web", "kb"))}),
    max_size=5,
)


def _ranked(docs: Sequence[Mapping[str, Any]]) -> list[int]:
    """The documents' positions best first: higher (normalised) score first, an unscored one
    after every scored one, the earlier of equal scores first."""
    scores = normalised_scores([doc.get("score") for doc in docs])
    return sorted(range(len(docs)), key=lambda at: (scores[at] is None, -(scores[at] or 0.0), at))


@settings(max_examples=40)
@given(held(), documents, st.integers(min_value=0, max_value=4000), st.booleans(), st.booleans(),
       st.sampled_from((AGENT, RAG)), st.sampled_from((SYSTEM, None)), st.sampled_from((None, "cl100k_base")))
def test_with_documents_the_output_is_within_budget_as_sent_valid_and_sheds_the_lowest_scored_first(
    written: Written, docs: list[dict[str, Any]], window: int, whole_turns: bool, refill: bool, order: ShedOrder,
    system: str | None, encoding: str | None,
) -> None:
    result = fit_anthropic_messages(written.messages, window, system=system, output_reserve=0, documents=docs,
                                    whole_turns=whole_turns, refill=refill, shed_order=order, nonce=KeyedNonce(bytes(32)),
                                    encoding=encoding)
    fitted = _fitted_within(result, window)
    if fitted is None:
        return
    counted = count_anthropic_tokens(fitted.messages, system=fitted.system, encoding=encoding).unwrap()
    assert counted == fitted.tokens and counted.tokens <= window
    _assert_valid_and_the_callers_own(written, fitted, whole_turns)
    if fitted.system is not None:
        SYSTEM_PARAM.validate_python(fitted.system)
    positions = [next(at for at, doc in enumerate(docs) if doc is kept_doc) for kept_doc in fitted.documents]
    assert positions == sorted(positions) and len(set(positions)) == len(positions)
    if fitted.documents:
        assert isinstance(fitted.system, list) and fitted.system[-1]["text"].count("<") >= len(fitted.documents)
    else:
        assert fitted.system is system
    if not refill:
        assert sorted(positions) == sorted(_ranked(docs)[: len(positions)])
