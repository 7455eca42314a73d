"""Example tests of the LlamaIndex adapter: offline, pairing groups, errors, the postprocessor."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from llama_index.core.base.llms.types import ImageBlock, ThinkingBlock, ToolCallBlock
from llama_index.core.llms import ChatMessage
from llama_index.core.schema import MetadataMode, NodeWithScore, TextNode

from tests._offline_vocab import NETWORK_REFUSED
from thrift_fp.adapters.llamaindex import ThriftNodePostprocessor, fit_chat_messages, fit_nodes, message_text
from thrift_fp.adapters import AdapterFitError, DuplicateToolCall, InvalidArgument, InvalidDocument, MalformedMessage, OverBudget, ToolResultWithoutCall

# A fresh interpreter with every socket refused and empty tiktoken/nltk/llama-index caches:
# importing the adapter and fitting must neither download nor fail.
_OFFLINE = NETWORK_REFUSED + textwrap.dedent(
    """
    from llama_index.core.llms import ChatMessage
    from llama_index.core.schema import NodeWithScore, TextNode
    from thrift_fp.adapters.llamaindex import ThriftNodePostprocessor, fit_chat_messages

    nodes = [NodeWithScore(node=TextNode(text="kept", id_="a"), score=0.9),
             NodeWithScore(node=TextNode(text="shed " * 50, id_="b"), score=0.1)]
    kept = ThriftNodePostprocessor(max_tokens=20).postprocess_nodes(nodes)
    chat = fit_chat_messages([ChatMessage(role="user", content="old " * 50),
                              ChatMessage(role="user", content="new")], 10, output_reserve=0).unwrap()
    print(json.dumps({"nodes": [n.node.node_id for n in kept], "chat": [m.content for m in chat.messages]}))
    """
)


def test_imports_and_fits_with_the_network_absent(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "TIKTOKEN_CACHE_DIR": str(tmp_path / "tiktoken"),
        "NLTK_DATA": str(tmp_path / "nltk"),
        "LLAMA_INDEX_CACHE_DIR": str(tmp_path / "llama_index"),
    }
    done = subprocess.run([sys.executable, "-c", _OFFLINE], capture_output=True, text=True, env=env, timeout=180)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"nodes": ["a"], "chat": ["new"]}


def _history() -> list[ChatMessage]:
    blocks = [ToolCallBlock(tool_call_id=f"c{n}", tool_name="lookup", tool_kwargs={"n": n}) for n in range(2)]
    return [
        ChatMessage(role="user", content="look two things up"),
        ChatMessage(role="assistant", content=blocks),
        ChatMessage(role="tool", content="one " * 30, additional_kwargs={"tool_call_id": "c0"}),
        ChatMessage(role="tool", content="two " * 30, additional_kwargs={"tool_call_id": "c1"}),
        ChatMessage(role="user", content="thanks"),
    ]


def test_an_assistant_message_leaves_with_all_its_tool_results() -> None:
    history = _history()
    fitted = fit_chat_messages(history, 40, output_reserve=0).unwrap()
    assert fitted.messages == (history[-1],) and fitted.tokens.tokens <= 40
    assert fitted.trace.buckets[8].ids == tuple(f"messages[{i}]" for i in range(4))


def test_openai_style_tool_calls_in_additional_kwargs_pair_too() -> None:
    calls = [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]
    history = [
        ChatMessage(role="assistant", content="", additional_kwargs={"tool_calls": calls}),
        ChatMessage(role="tool", content="r " * 40, additional_kwargs={"tool_call_id": "c1"}),
        ChatMessage(role="user", content="next"),
    ]
    assert fit_chat_messages(history, 10, output_reserve=0).unwrap().messages == (history[2],)


def test_system_and_developer_messages_stay() -> None:
    history = [ChatMessage(role="system", content="s"), ChatMessage(role="developer", content="d"),
               ChatMessage(role="user", content="old " * 40), ChatMessage(role="user", content="new")]
    assert fit_chat_messages(history, 15, output_reserve=0).unwrap().messages == (history[0], history[1], history[3])
    assert isinstance(fit_chat_messages(history, 5, output_reserve=0).failure(), OverBudget)


def test_framing_of_blocks() -> None:
    message = ChatMessage(role="assistant", content=[ThinkingBlock(content="hmm"), ImageBlock(url="http://x/y.png")])
    assert message_text(message).unwrap() == "assistant\nhmm\n[image]"


def test_bad_input_names_the_index_and_field() -> None:
    stray = ChatMessage(role="tool", content="r", additional_kwargs={"tool_call_id": "c9"})
    assert fit_chat_messages([ChatMessage(content="hi"), stray], 10).failure() == ToolResultWithoutCall(
        1, 'additional_kwargs["tool_call_id"]', "c9"
    )
    no_id = fit_chat_messages([ChatMessage(role="tool", content="r")], 10).failure()
    assert isinstance(no_id, MalformedMessage) and (no_id.index, no_id.field) == (0, 'additional_kwargs["tool_call_id"]')
    calls = ChatMessage(role="assistant", content=[ToolCallBlock(tool_call_id="c1", tool_name="f")])
    assert fit_chat_messages([calls, calls], 10).failure() == DuplicateToolCall(1, "blocks[0].tool_call_id", "c1")
    odd = ChatMessage(role="assistant", content="", additional_kwargs={"tool_calls": [3]})
    odd_error = fit_chat_messages([odd], 10).failure()
    assert isinstance(odd_error, MalformedMessage) and odd_error.field == 'additional_kwargs["tool_calls"][0]'
    bad = NodeWithScore(node=TextNode(text="x"), score=float("inf"))
    assert fit_nodes([bad], 10).failure() == InvalidDocument(0, "score", "expected a finite number, got inf", "nodes")
    nested: object = "x"
    for _ in range(5000):
        nested = {"k": nested}
    deep = ChatMessage(role="user", content="x", additional_kwargs={"meta": nested})
    deep_error = fit_chat_messages([deep], 100).failure()
    assert isinstance(deep_error, MalformedMessage) and deep_error.field == "additional_kwargs"
    huge = ChatMessage(role="assistant", content=[ToolCallBlock(tool_call_id="c1", tool_name="f", tool_kwargs={"n": 10**5000})])
    huge_error = fit_chat_messages([huge], 100).failure()
    assert isinstance(huge_error, MalformedMessage) and huge_error.field == "blocks[0].tool_kwargs"
    for window in (None, "10", -1):
        bad_window = fit_chat_messages([ChatMessage(content="hi")], window).failure()  # type: ignore[arg-type] # on purpose
        assert isinstance(bad_window, InvalidArgument) and bad_window.field == "context_window"


def test_nodes_are_priced_with_their_llm_metadata() -> None:
    node = NodeWithScore(node=TextNode(text="body", metadata={"file_name": "a-very-long-file-name.txt"}), score=0.5)
    body_only = fit_nodes([node], 10**6, metadata_mode=MetadataMode.NONE, render=False).unwrap().tokens.tokens
    with_metadata = fit_nodes([node], 10**6, render=False).unwrap().tokens.tokens
    assert with_metadata > body_only


def test_postprocessor_sync_async_and_errors() -> None:
    nodes = [NodeWithScore(node=TextNode(text="alpha " * 30), score=None), NodeWithScore(node=TextNode(text="beta"), score=3.0)]
    post = ThriftNodePostprocessor(max_tokens=5)
    assert post.postprocess_nodes(nodes, query_str="q") == [nodes[1]]
    assert asyncio.run(post.apostprocess_nodes(nodes))[0] is nodes[1]
    with pytest.raises(AdapterFitError):
        ThriftNodePostprocessor(max_tokens=-1).postprocess_nodes(nodes)



def test_fit_nodes_renders_in_a_third_party_tier_by_default() -> None:
    nodes = [NodeWithScore(node=TextNode(text="body", metadata={"file_name": "a.md"}), score=0.4)]
    done = fit_nodes(nodes, 10**6).unwrap()
    assert "third-party-private" in done.text and "a.md" in done.text and done.nodes[0] is nodes[0]


def test_the_chat_memory_hands_back_the_stored_chat_fitted_with_calls_paired_and_raises_when_it_cannot() -> None:
    from llama_index.core.memory.types import BaseChatStoreMemory

    from thrift_fp.adapters.llamaindex import ThriftChatMemory, fit_chat_messages
    from thrift_fp.adapters import AdapterFitError

    call = ChatMessage(role="assistant", content="", additional_kwargs={"tool_calls": [{"id": "c1", "name": "weather"}]})
    answer = ChatMessage(role="tool", content="Oslo: 4 C", additional_kwargs={"tool_call_id": "c1"})
    chat = [ChatMessage(role="system", content="Be brief."), ChatMessage(role="user", content="Weather? " * 60),
            call, answer, ChatMessage(role="user", content="Warm?")]
    memory = ThriftChatMemory.from_defaults(chat_history=chat, context_window=120, output_reserve=0, model="gpt-4o")
    assert isinstance(memory, BaseChatStoreMemory)
    got = memory.get()
    assert got == list(fit_chat_messages(chat, 120, output_reserve=0, model="gpt-4o").unwrap().messages)
    assert got[0] is chat[0] and chat[1] not in got and (call in got) == (answer in got)
    assert len(memory.get_all()) == 5
    with pytest.raises(AdapterFitError):
        ThriftChatMemory.from_defaults(chat_history=chat, context_window=5, output_reserve=0).get()
