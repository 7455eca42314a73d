"""Properties of the LlamaIndex adapter: identity, no orphans, core agreement, exact fit."""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st
from llama_index.core.base.llms.types import ToolCallBlock
from llama_index.core.llms import ChatMessage
from llama_index.core.schema import MetadataMode, NodeWithScore, TextNode

from thrift_fp.adapters.llamaindex import MissingToolCall, fit_chat_messages, fit_nodes, message_text, working_set
from thrift_fp.thrift import ThriftOptions, subtract_to_fit
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
    st.builds(lambda text, score: NodeWithScore(node=TextNode(text=text, metadata={"page": 1}), score=score), _WORDS, _SCORES),
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


@given(conversations(), node_lists, st.integers(0, 400))
@settings(max_examples=80)
def test_no_orphans_core_agreement_and_exact_fit(history: list[ChatMessage], nodes: list[NodeWithScore], budget: int) -> None:
    fitted = fit_chat_messages(history, budget, nodes=nodes).unwrap()
    assert orphans(fitted.messages, history) == 0
    core = subtract_to_fit(working_set(history, nodes).unwrap(), budget, options=ThriftOptions(output_reserve=0)).unwrap()
    kept = {id(message) for message in fitted.messages}
    assert {m.id for m in core.working_set.messages} == {f"message[{i}]" for i, m in enumerate(history) if id(m) in kept}
    assert len(core.working_set.retrievables) == len(fitted.nodes)
    assert fitted.trace == core.trace
    encode = get_encoding("cl100k_base").unwrap()
    exact = sum(encode.count(message_text(m).unwrap()).unwrap() for m in fitted.messages) + sum(
        encode.count(n.node.get_content(metadata_mode=MetadataMode.LLM)).unwrap() for n in fitted.nodes
    )
    assert exact == fitted.trace.total_after
    if fitted.trace.fits:
        assert exact <= budget


@given(conversations(), st.data())
@settings(max_examples=30)
def test_a_result_without_its_call_is_an_error_naming_the_index(history: list[ChatMessage], data: st.DataObject) -> None:
    at = data.draw(st.integers(0, len(history)))
    stray = ChatMessage(role="tool", content="late", additional_kwargs={"tool_call_id": "never_issued"})
    error = fit_chat_messages([*history[:at], stray, *history[at:]], UNLIMITED).failure()
    assert error == MissingToolCall(at, 'additional_kwargs["tool_call_id"]', "never_issued")
