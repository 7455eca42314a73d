"""Properties of the LlamaIndex adapter over generated chats (parallel tool calls as blocks and as
OpenAI-style ``additional_kwargs``) and budgets: as sent, the count is within the budget or the
result is an error value; no orphan; the caller's own objects back."""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st
from llama_index.core.base.llms.types import ToolCallBlock
from llama_index.core.llms import ChatMessage
from llama_index.core.schema import MetadataMode, NodeWithScore, TextNode

from returns.result import Failure

from thrift_fp.adapters.llamaindex import fit_chat_messages, fit_nodes, message_text
from thrift_fp.adapters import OverBudget, ToolResultWithoutCall
from thrift_fp.render import KeyedNonce
from thrift_fp.tokens import get_encoding

UNLIMITED = 10**9
_WORDS = st.lists(st.sampled_from(["alpha", "beta", "gamma", "π", "日本", "tool", "42", " ", "\n"]), max_size=25).map("".join)


def _assistant(text: str, ids: list[str], as_blocks: bool) -> ChatMessage:
    if as_blocks:
        return ChatMessage(role="assistant", content=[ToolCallBlock(tool_call_id=i, tool_name="f", tool_kwargs={"q": text}) for i in ids])
    calls = [{"id": i, "type": "function", "function": {"name": "f", "arguments": "{}"}} for i in ids]
    return ChatMessage(role="assistant", content=text, additional_kwargs={"tool_calls": calls})


@st.composite
def conversations(draw: st.DrawFn) -> list[ChatMessage]:
    """User turns, assistant turns issuing 0-3 tool calls (as blocks or OpenAI-style kwargs)
    answered (or not) by tool messages, and system messages."""
    messages: list[ChatMessage] = []
    calls = 0
    for _ in range(draw(st.integers(0, 8))):
        kind = draw(st.sampled_from(["user", "assistant", "tools", "system"]))
        if kind != "tools":
            messages.append(ChatMessage(role=kind, content=draw(_WORDS)))
            continue
        ids = [f"call_{calls + at}" for at in range(draw(st.integers(1, 3)))]
        calls += len(ids)
        messages.append(_assistant(draw(_WORDS), ids, draw(st.booleans())))
        answered = draw(st.lists(st.sampled_from(ids), unique=True, max_size=len(ids)))
        messages.extend(ChatMessage(role="tool", content=draw(_WORDS), additional_kwargs={"tool_call_id": i}) for i in answered)
    return messages


_SCORES = st.one_of(st.none(), st.floats(0, 1), st.floats(-5, 20, allow_nan=False))
node_lists = st.lists(
    st.builds(lambda text, score: NodeWithScore(node=TextNode(text=text, metadata={"page": 1}), score=score),
              _WORDS.filter(bool), _SCORES),
    max_size=5,
)


def _calls(message: ChatMessage) -> set[str]:
    blocks = {b.tool_call_id for b in message.blocks if isinstance(b, ToolCallBlock) and b.tool_call_id}
    return blocks | {c["id"] for c in message.additional_kwargs.get("tool_calls", [])}


def orphans(messages: Sequence[ChatMessage], history: Sequence[ChatMessage]) -> int:
    """Tool results kept without their call, plus kept calls missing a result the input had."""
    issued = set().union(*(_calls(m) for m in messages)) if messages else set()
    answered = {m.additional_kwargs["tool_call_id"] for m in messages if m.role.value == "tool"}
    had = {m.additional_kwargs["tool_call_id"] for m in history if m.role.value == "tool"}
    return len(answered - issued) + len((issued & had) - answered)


@given(conversations(), node_lists)
@settings(max_examples=50)
def test_unlimited_budget_returns_the_same_objects(history: list[ChatMessage], nodes: list[NodeWithScore]) -> None:
    fitted = fit_chat_messages(history, UNLIMITED, nodes=nodes).unwrap()
    assert len(fitted.messages) == len(history) and all(a is b for a, b in zip(fitted.messages, history))
    assert len(fitted.nodes) == len(nodes) and all(a is b for a, b in zip(fitted.nodes, nodes))
    alone = fit_nodes(nodes, UNLIMITED).unwrap()
    assert all(a is b for a, b in zip(alone.nodes, nodes, strict=True))


@given(conversations(), node_lists, st.integers(0, 400), st.booleans())
@settings(max_examples=80)
def test_as_sent_the_count_is_within_budget_no_orphans_and_the_callers_own_or_an_error_value(
    history: list[ChatMessage], nodes: list[NodeWithScore], budget: int, refill: bool
) -> None:
    result = fit_chat_messages(history, budget, output_reserve=0, nodes=nodes, refill=refill, nonce=KeyedNonce(bytes(32)))
    if isinstance(result, Failure):
        assert isinstance(result.failure(), OverBudget)
        return
    fitted = result.unwrap()
    assert orphans(fitted.messages, history) == 0
    positions = [next(i for i, m in enumerate(history) if m is kept) for kept in fitted.messages]
    assert positions == sorted(positions)
    assert all(any(kept is node for node in nodes) for kept in fitted.nodes)
    encode = get_encoding("cl100k_base").unwrap()
    # The documented prompt: the kept messages and, whenever nodes were passed, the documents
    # message ChatMessage(role="system", content=fitted.text).
    prompt = [*fitted.messages, ChatMessage(role="system", content=fitted.text)] if nodes else list(fitted.messages)
    exact = sum(encode.count(message_text(m).unwrap()).unwrap() for m in prompt)
    assert exact == fitted.tokens.tokens <= budget


tied_nodes = st.lists(
    st.builds(lambda text, score: NodeWithScore(node=TextNode(text=text), score=score),
              _WORDS.filter(bool), st.sampled_from((None, 0.0, -3.0, 7.0, 0.5))),
    max_size=6,
)


@given(tied_nodes, st.integers(0, 120))
@settings(max_examples=60)
def test_plain_nodes_fit_by_their_text_and_an_unscored_one_never_outlives_a_scored_one(
    nodes: list[NodeWithScore], budget: int
) -> None:
    fitted = fit_nodes(nodes, budget, output_reserve=0, render=False).unwrap()
    encode = get_encoding("cl100k_base").unwrap()
    exact = sum(encode.count(n.node.get_content(metadata_mode=MetadataMode.LLM)).unwrap() for n in fitted.nodes)
    assert exact == fitted.tokens.tokens <= budget
    shed = [node for node in nodes if not any(node is kept for kept in fitted.nodes)]
    if any(node.score is None for node in fitted.nodes) and not fitted.trace.refilled[1].ids:
        assert all(node.score is None for node in shed)


@given(conversations(), st.data())
@settings(max_examples=30)
def test_a_result_without_its_call_is_an_error_naming_the_index(history: list[ChatMessage], data: st.DataObject) -> None:
    at = data.draw(st.integers(0, len(history)))
    stray = ChatMessage(role="tool", content="late", additional_kwargs={"tool_call_id": "never_issued"})
    error = fit_chat_messages([*history[:at], stray, *history[at:]], UNLIMITED).failure()
    assert error == ToolResultWithoutCall(at, 'additional_kwargs["tool_call_id"]', "never_issued")
