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

from thrift_fp.adapters.llamaindex import (
    AdapterFitError,
    DuplicateToolCall,
    MalformedItem,
    MissingToolCall,
    ThriftNodePostprocessor,
    fit_chat_messages,
    fit_nodes,
    message_text,
)

# A fresh interpreter with every socket refused and empty tiktoken/nltk/llama-index caches:
# importing the adapter and fitting must neither download nor fail.
_OFFLINE = textwrap.dedent(
    """
    import json, socket, sys

    def refuse(*args, **kwargs):
        raise OSError("network blocked by test")

    socket.socket.connect = refuse
    socket.socket.connect_ex = refuse
    socket.create_connection = refuse
    socket.getaddrinfo = refuse

    def audit(event, args):
        if event.startswith("socket.") and event != "socket.__new__":
            raise OSError("network blocked by test: " + event)

    sys.addaudithook(audit)

    from llama_index.core.llms import ChatMessage
    from llama_index.core.schema import NodeWithScore, TextNode
    from thrift_fp.adapters.llamaindex import ThriftNodePostprocessor, fit_chat_messages

    nodes = [NodeWithScore(node=TextNode(text="kept", id_="a"), score=0.9),
             NodeWithScore(node=TextNode(text="shed " * 50, id_="b"), score=0.1)]
    kept = ThriftNodePostprocessor(max_tokens=20).postprocess_nodes(nodes)
    chat = fit_chat_messages([ChatMessage(role="user", content="old " * 50),
                              ChatMessage(role="user", content="new")], 10).unwrap()
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
    fitted = fit_chat_messages(history, 40).unwrap()
    assert fitted.messages == (history[-1],)
    assert fitted.trace.buckets[8].ids == tuple(f"message[{i}]" for i in range(4))


def test_openai_style_tool_calls_in_additional_kwargs_pair_too() -> None:
    calls = [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]
    history = [
        ChatMessage(role="assistant", content="", additional_kwargs={"tool_calls": calls}),
        ChatMessage(role="tool", content="r " * 40, additional_kwargs={"tool_call_id": "c1"}),
        ChatMessage(role="user", content="next"),
    ]
    assert fit_chat_messages(history, 10).unwrap().messages == (history[2],)


def test_system_and_developer_messages_stay() -> None:
    history = [ChatMessage(role="system", content="s"), ChatMessage(role="developer", content="d"),
               ChatMessage(role="user", content="old " * 40), ChatMessage(role="user", content="new")]
    assert fit_chat_messages(history, 15).unwrap().messages == (history[0], history[1], history[3])


def test_framing_of_blocks() -> None:
    message = ChatMessage(role="assistant", content=[ThinkingBlock(content="hmm"), ImageBlock(url="http://x/y.png")])
    assert message_text(message).unwrap() == "assistant\nhmm\n[image]"


def test_bad_input_names_the_index_and_field() -> None:
    stray = ChatMessage(role="tool", content="r", additional_kwargs={"tool_call_id": "c9"})
    assert fit_chat_messages([ChatMessage(content="hi"), stray], 10).failure() == MissingToolCall(
        1, 'additional_kwargs["tool_call_id"]', "c9"
    )
    no_id = ChatMessage(role="tool", content="r")
    assert fit_chat_messages([no_id], 10).failure() == MalformedItem(
        "message", 0, 'additional_kwargs["tool_call_id"]', "expected a non-empty str on a tool message"
    )
    calls = ChatMessage(role="assistant", content=[ToolCallBlock(tool_call_id="c1", tool_name="f")])
    assert fit_chat_messages([calls, calls], 10).failure() == DuplicateToolCall(1, 'additional_kwargs["tool_calls"]', "c1", 0)
    odd = ChatMessage(role="assistant", content="", additional_kwargs={"tool_calls": [3]})
    assert fit_chat_messages([odd], 10).failure() == MalformedItem(
        "message", 0, 'additional_kwargs["tool_calls"][0]', "expected a dict or a pydantic model, got int"
    )
    bad = NodeWithScore(node=TextNode(text="x"), score=float("inf"))
    assert fit_nodes([bad], 10).failure() == MalformedItem("node", 0, "score", "expected a finite number, got inf")


def test_nodes_are_priced_with_their_llm_metadata() -> None:
    node = NodeWithScore(node=TextNode(text="body", metadata={"file_name": "a-very-long-file-name.txt"}), score=0.5)
    body_only = fit_nodes([node], 10**6, metadata_mode=MetadataMode.NONE).unwrap().trace.total_after
    with_metadata = fit_nodes([node], 10**6).unwrap().trace.total_after
    assert with_metadata > body_only


def test_postprocessor_sync_async_and_errors() -> None:
    nodes = [NodeWithScore(node=TextNode(text="alpha " * 30), score=None), NodeWithScore(node=TextNode(text="beta"), score=3.0)]
    post = ThriftNodePostprocessor(max_tokens=5)
    assert post.postprocess_nodes(nodes, query_str="q") == [nodes[1]]
    assert asyncio.run(post.apostprocess_nodes(nodes))[0] is nodes[1]
    with pytest.raises(AdapterFitError):
        ThriftNodePostprocessor(max_tokens=-1).postprocess_nodes(nodes)



def test_render_nodes_defaults_to_a_third_party_tier() -> None:
    from thrift_fp.adapters.llamaindex import render_nodes

    nodes = [NodeWithScore(node=TextNode(text="body", metadata={"file_name": "a.md"}), score=0.4)]
    done = render_nodes(nodes, 10**6).unwrap()
    assert "third-party-private" in done.text and "a.md" in done.text and done.nodes[0] is nodes[0]
