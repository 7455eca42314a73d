"""Properties of the LangChain adapter: identity, no orphans, core agreement, exact fit."""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.documents import Document
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from thrift_fp.adapters.langchain import (
    MissingToolCall,
    count_messages,
    fit_messages,
    working_set,
)
from thrift_fp.thrift import ThriftOptions, subtract_to_fit
from thrift_fp.tokens import get_encoding

UNLIMITED = 10**9
_WORDS = st.lists(st.sampled_from(["alpha", "beta", "gamma", "delta", "π", "日本", "tool", "42", " ", "\n"]),
                  max_size=25).map("".join)


@st.composite
def conversations(draw: st.DrawFn) -> list[BaseMessage]:
    """Human turns, AI turns issuing 0-3 tool calls answered (or not) by tool messages, systems."""
    messages: list[BaseMessage] = []
    if draw(st.booleans()):
        messages.append(SystemMessage(draw(_WORDS)))
    calls = 0
    for _ in range(draw(st.integers(0, 8))):
        kind = draw(st.sampled_from(["human", "ai", "tools", "system"]))
        if kind == "human":
            messages.append(HumanMessage(draw(_WORDS)))
        elif kind == "system":
            messages.append(SystemMessage(draw(_WORDS)))
        elif kind == "ai":
            messages.append(AIMessage(draw(_WORDS)))
        else:
            ids = [f"call_{calls + at}" for at in range(draw(st.integers(1, 3)))]
            calls += len(ids)
            messages.append(AIMessage(draw(_WORDS), tool_calls=[{"name": "f", "args": {"q": draw(_WORDS)}, "id": i} for i in ids]))
            answered = draw(st.lists(st.sampled_from(ids), unique=True, max_size=len(ids)))
            messages.extend(ToolMessage(draw(_WORDS), tool_call_id=i) for i in answered)
            if draw(st.booleans()):
                messages.append(HumanMessage(draw(_WORDS)))
    return messages


_SCORES = st.one_of(st.none(), st.floats(0, 1), st.floats(-5, 20, allow_nan=False))
documents = st.lists(
    st.builds(
        lambda text, score, ident: Document(text or "empty", id=ident, metadata={} if score is None else {"relevance_score": score}),
        _WORDS, _SCORES, st.one_of(st.none(), st.sampled_from(["d1", "d2", "d3"])),
    ),
    max_size=5,
)


def orphans(messages: Sequence[BaseMessage], history: Sequence[BaseMessage]) -> int:
    """Tool results kept without their call, plus kept calls missing a result the input had."""
    issued = {call["id"] for message in messages if isinstance(message, AIMessage) for call in message.tool_calls}
    answered = {message.tool_call_id for message in messages if isinstance(message, ToolMessage)}
    had = {message.tool_call_id for message in history if isinstance(message, ToolMessage)}
    return len(answered - issued) + len((issued & had) - answered)


@given(conversations(), documents)
@settings(max_examples=60)
def test_unlimited_budget_returns_the_same_objects(history: list[BaseMessage], docs: list[Document]) -> None:
    fitted = fit_messages(history, UNLIMITED, documents=docs).unwrap()
    assert len(fitted.messages) == len(history) and all(a is b for a, b in zip(fitted.messages, history))
    assert len(fitted.documents) == len(docs) and all(a is b for a, b in zip(fitted.documents, docs))


@given(conversations(), documents, st.integers(0, 400))
@settings(max_examples=80)
def test_no_orphans_core_agreement_and_exact_fit(history: list[BaseMessage], docs: list[Document], budget: int) -> None:
    fitted = fit_messages(history, budget, documents=docs).unwrap()
    assert orphans(fitted.messages, history) == 0
    # What is kept is exactly what the core keeps on the converted set.
    core = subtract_to_fit(working_set(history, docs).unwrap(), budget, options=ThriftOptions(output_reserve=0)).unwrap()
    kept = {id(message) for message in fitted.messages}
    assert {m.id for m in core.working_set.messages} == {f"message[{i}]" for i, m in enumerate(history) if id(m) in kept}
    assert len(core.working_set.retrievables) == len(fitted.documents)
    assert fitted.trace == core.trace
    # The output's own count, recounted from the LangChain objects, matches and fits.
    encode = get_encoding("cl100k_base").unwrap()
    exact = count_messages(fitted.messages).unwrap() + sum(encode.count(d.page_content).unwrap() for d in fitted.documents)
    assert exact == fitted.trace.total_after
    if fitted.trace.fits:
        assert exact <= budget
    # Kept messages are in input order, and the input is untouched.
    positions = [next(i for i, m in enumerate(history) if m is kept_one) for kept_one in fitted.messages]
    assert positions == sorted(positions)


@given(conversations(), st.data())
@settings(max_examples=40)
def test_a_result_without_its_call_is_an_error_naming_the_index(history: list[BaseMessage], data: st.DataObject) -> None:
    at = data.draw(st.integers(0, len(history)))
    broken = [*history[:at], ToolMessage("late", tool_call_id="never_issued"), *history[at:]]
    error = fit_messages(broken, UNLIMITED).failure()
    assert error == MissingToolCall(at, "tool_call_id", "never_issued")


_NONEMPTY = _WORDS.filter(lambda text: text != "")
rendered_documents = st.lists(
    st.builds(lambda text, score: Document(text, metadata={} if score is None else {"relevance_score": score}), _NONEMPTY, _SCORES),
    max_size=4,
)


@given(rendered_documents, st.integers(0, 700))
@settings(max_examples=30)
def test_rendered_documents_fit_exactly_and_are_the_callers_own(docs: list[Document], budget: int) -> None:
    from thrift_fp.adapters.langchain import render_documents
    from thrift_fp.render import KeyedNonce

    done = render_documents(docs, budget, nonce=KeyedNonce(bytes(32))).unwrap()
    assert get_encoding("cl100k_base").unwrap().count(done.text).unwrap() == done.tokens
    if done.trace.fits:
        assert done.tokens <= budget
    assert all(any(kept is doc for doc in docs) for kept in done.documents)
    positions = [next(i for i, doc in enumerate(docs) if doc is kept) for kept in done.documents]
    assert positions == sorted(positions)
    if docs and done.documents:
        assert "third-party-private" in done.text
    if budget >= 10**6:
        assert len(done.documents) == len(docs)
