"""Properties of the LangChain adapter over generated conversations (parallel tool calls, calls
still unanswered, message-likes as ``trim_messages`` takes them) and budgets: as sent, the count
is within the budget or the result is an error value; no orphan; the caller's own objects back."""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.documents import Document
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from returns.result import Failure

from thrift_fp.adapters.langchain import count_messages, fit_messages
from thrift_fp.adapters import OverBudget, ToolResultWithoutCall
from thrift_fp.render import KeyedNonce
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


def _held(history: list[BaseMessage], data: st.DataObject) -> list[object]:
    """Some plain human messages as a user's code may hold them: a tuple, a dict or a bare str."""
    out: list[object] = []
    for message in history:
        form = data.draw(st.integers(0, 5)) if type(message) is HumanMessage and isinstance(message.content, str) else 0
        text = message.content
        out.append({1: ("human", text), 2: {"role": "user", "content": text}, 3: text}.get(form, message))
    return out


@given(conversations(), documents, st.integers(0, 400), st.data(), st.booleans())
@settings(max_examples=80)
def test_as_sent_the_count_is_within_budget_no_orphans_and_the_callers_own_or_an_error_value(
    history: list[BaseMessage], docs: list[Document], budget: int, data: st.DataObject, refill: bool
) -> None:
    held = _held(history, data)
    result = fit_messages(held, budget, output_reserve=0, documents=docs, refill=refill, nonce=KeyedNonce(bytes(32)))
    if isinstance(result, Failure):
        assert isinstance(result.failure(), OverBudget)
        return
    fitted = result.unwrap()
    kept_positions = [next(i for i, m in enumerate(held) if m is kept) for kept in fitted.messages]
    assert kept_positions == sorted(kept_positions)
    kept_history = [history[i] for i in kept_positions]
    assert orphans(kept_history, history) == 0
    # The documented prompt, recounted from the caller's objects and the documents message
    # ("system", fitted.text), sent whenever documents were passed, fits.
    prompt = [*fitted.messages, ("system", fitted.text)] if docs else list(fitted.messages)
    exact = count_messages(prompt).unwrap().tokens
    assert exact == fitted.tokens.tokens <= budget
    assert all(any(kept is doc for doc in docs) for kept in fitted.documents)
    assert bool(fitted.documents) == bool(fitted.text)


@given(conversations(), st.data())
@settings(max_examples=40)
def test_a_result_without_its_call_is_an_error_naming_the_index(history: list[BaseMessage], data: st.DataObject) -> None:
    at = data.draw(st.integers(0, len(history)))
    broken = [*history[:at], ToolMessage("late", tool_call_id="never_issued"), *history[at:]]
    error = fit_messages(broken, UNLIMITED).failure()
    assert error == ToolResultWithoutCall(at, "tool_call_id", "never_issued")


_NONEMPTY = _WORDS.filter(lambda text: text != "")
rendered_documents = st.lists(
    st.builds(lambda text, score: Document(text, metadata={} if score is None else {"relevance_score": score}), _NONEMPTY, _SCORES),
    max_size=4,
)


@given(rendered_documents, st.integers(0, 700))
@settings(max_examples=30)
def test_rendered_documents_fit_exactly_and_are_the_callers_own(docs: list[Document], budget: int) -> None:
    from thrift_fp.adapters.langchain import fit_documents

    done = fit_documents(docs, budget, output_reserve=0, nonce=KeyedNonce(bytes(32))).unwrap()
    assert get_encoding("cl100k_base").unwrap().count(done.text).unwrap() == done.tokens.tokens <= budget
    assert all(any(kept is doc for doc in docs) for kept in done.documents)
    positions = [next(i for i, doc in enumerate(docs) if doc is kept) for kept in done.documents]
    assert positions == sorted(positions)
    if docs and done.documents:
        assert "third-party-private" in done.text
    if budget >= 10**6:
        assert len(done.documents) == len(docs)
