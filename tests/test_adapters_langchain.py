"""Example tests of the LangChain adapter: pairing groups, errors, LCEL, the compressor, defaults."""

from __future__ import annotations

import asyncio
import subprocess
import sys

import pytest
from langchain_core.documents import Document
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    ChatMessage,
    FunctionMessage,
    HumanMessage,
    RemoveMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
from langchain_core.runnables import Runnable, RunnableLambda

from thrift_fp.adapters._b_passages import content_id
from thrift_fp.adapters.langchain import (
    AdapterFitError,
    DuplicateToolCall,
    FitRejected,
    MalformedItem,
    MissingToolCall,
    ThriftDocumentCompressor,
    UnknownRole,
    count_messages,
    fit_documents,
    fit_messages,
    fitting_runnable,
    message_text,
)


def _three_calls() -> list[AIMessage | HumanMessage | ToolMessage]:
    calls = [{"name": "lookup", "args": {"n": n}, "id": f"c{n}"} for n in range(3)]
    return [
        HumanMessage("look three things up"),
        AIMessage("", tool_calls=calls),
        ToolMessage("one " * 30, tool_call_id="c0"),
        ToolMessage("two " * 30, tool_call_id="c1"),
        ToolMessage("three " * 30, tool_call_id="c2"),
        HumanMessage("thanks, now summarise"),
    ]


def test_an_ai_message_with_several_calls_leaves_with_all_its_results() -> None:
    history = _three_calls()
    total = count_messages(history).unwrap()
    last = count_messages(history[-1:]).unwrap()
    first = count_messages(history[:1]).unwrap()
    # Shedding message 0 leaves one token too many: the next unit is the call with all 3 results.
    fitted = fit_messages(history, total - first - 1).unwrap()
    assert fitted.messages == (history[-1],)
    assert fitted.trace.fits and fitted.trace.total_after == last
    assert fitted.trace.buckets[8].ids == tuple(f"message[{i}]" for i in range(5))


def test_trim_messages_would_orphan_here_and_fit_messages_does_not() -> None:
    from langchain_core.messages import trim_messages

    history = _three_calls()
    budget = count_messages(history[3:]).unwrap()

    def counter(messages: list[BaseMessage]) -> int:
        return count_messages(messages).unwrap()

    trimmed = trim_messages(history, max_tokens=budget, token_counter=counter, strategy="last")
    assert isinstance(trimmed[0], ToolMessage)  # the peer keeps results whose call is gone
    assert all(not isinstance(m, ToolMessage) for m in fit_messages(history, budget).unwrap().messages)


def test_system_messages_stay_unless_keep_system_is_false() -> None:
    history = [SystemMessage("rules " * 40), HumanMessage("old " * 40), HumanMessage("new")]
    kept = fit_messages(history, 30).unwrap()
    assert kept.messages == (history[0], history[2]) and not kept.trace.fits and kept.trace.refused
    assert fit_messages(history, 30, keep_system=False).unwrap().messages == (history[2],)


def test_documents_share_the_budget_and_shed_before_messages() -> None:
    history = [HumanMessage("question " * 10), HumanMessage("latest")]
    docs = [Document("weak " * 30, metadata={"relevance_score": 0.1}), Document("strong", metadata={"relevance_score": 0.9})]
    fitted = fit_messages(history, count_messages(history).unwrap() + 1, documents=docs).unwrap()
    assert fitted.messages == tuple(history) and fitted.documents == (docs[1],)


def test_scores_outside_unit_interval_are_rescaled_and_missing_ones_shed_first() -> None:
    docs = [
        Document("logit high", metadata={"relevance_score": 7.5}),
        Document("no score"),
        Document("logit low", metadata={"relevance_score": -3.0}),
    ]
    fitted = fit_documents(docs, 4).unwrap()
    assert [d.page_content for d in fitted.documents] == ["logit high"]
    # Missing score (0) and the rescaled minimum (0.0) tie; the later input sheds first.
    assert fitted.trace.buckets[5].ids == (content_id("logit low"), content_id("no score"))


def test_documents_without_id_get_content_hash_ids_and_repeats_stay_apart() -> None:
    docs = [Document("same text"), Document("same text"), Document("other", id="kb-1")]
    fitted = fit_documents(docs, 0).unwrap()
    assert set(fitted.trace.buckets[5].ids) == {content_id("same text"), content_id("same text") + "#2", "kb-1"}


def test_bad_input_names_the_index_and_field() -> None:
    # A wrong type is caught by mypy and beartype; a message built past pydantic's checks is an
    # error value.
    not_text = HumanMessage.model_construct(content=3, type="human", name=None)
    assert fit_messages([HumanMessage("a"), not_text], 10).failure() == MalformedItem(
        "message", 1, "content", "expected a str or a list, got int"
    )
    unknown = fit_messages([HumanMessage("a"), RemoveMessage(id="x")], 10).failure()
    assert isinstance(unknown, UnknownRole) and (unknown.index, unknown.field, unknown.role) == (1, "type", "remove")
    missing = fit_messages([HumanMessage("a"), ToolMessage("r", tool_call_id="c1")], 10).failure()
    assert missing == MissingToolCall(1, "tool_call_id", "c1")
    call = [{"name": "f", "args": {}, "id": "c1"}]
    twice = fit_messages([AIMessage("", tool_calls=call), AIMessage("", tool_calls=call)], 10).failure()
    assert twice == DuplicateToolCall(1, "tool_calls", "c1", 0)
    bad_block = HumanMessage.model_construct(content=["ok", 3], type="human", name=None)
    assert fit_messages([bad_block], 10).failure() == MalformedItem(
        "message", 0, "content[1]", "expected a str or a dict block, got int"
    )
    nan = fit_documents([Document("x"), Document("y", metadata={"relevance_score": float("nan")})], 10).failure()
    assert nan == MalformedItem("document", 1, "metadata['relevance_score']", "expected a finite number, got nan")
    assert isinstance(fit_messages([HumanMessage("a")], -1).failure(), FitRejected)
    assert "unknown encoding 'nope'" in fit_messages([HumanMessage("a")], 10, encoding="nope").failure().message


def test_framing_covers_every_role_and_content_blocks() -> None:
    assert message_text(ChatMessage(role="critic", content="meh")).unwrap() == "critic\nmeh"
    assert message_text(FunctionMessage(name="f", content="1")).unwrap() == "function f\n1"
    assert message_text(ToolMessage("4", tool_call_id="c1")).unwrap() == "tool c1\n4"
    blocks = HumanMessage([{"type": "text", "text": "see"}, {"type": "image_url", "image_url": {"url": "x"}}, "raw"])
    assert message_text(blocks).unwrap() == "user\nsee\n[image_url]\nraw"
    assert count_messages([HumanMessage("hi")], "o200k_base").unwrap() == count_messages([HumanMessage("hi")]).unwrap()


def test_runnable_drops_into_an_lcel_chain_and_raises_the_error_value() -> None:
    prompt = ChatPromptTemplate.from_messages([("system", "Be brief."), MessagesPlaceholder("history"), ("human", "{q}")])
    def names(messages: list[BaseMessage]) -> list[str]:
        return [type(m).__name__ for m in messages]

    chain: Runnable[dict[str, object], list[str]] = prompt | fitting_runnable(20) | RunnableLambda(names)
    history = [HumanMessage("old " * 50), AIMessage("older answer " * 20)]
    assert chain.invoke({"history": history, "q": "now?"}) == ["SystemMessage", "HumanMessage"]
    with pytest.raises(AdapterFitError) as raised:
        fitting_runnable(20).invoke([ToolMessage("r", tool_call_id="c1")])
    assert raised.value.error == MissingToolCall(0, "tool_call_id", "c1")


def test_compressor_sync_and_async_return_the_same_documents() -> None:
    docs = [Document("alpha " * 30, metadata={"relevance_score": 0.3}), Document("beta", metadata={"relevance_score": 0.6})]
    compressor = ThriftDocumentCompressor(max_tokens=5)
    assert compressor.compress_documents(docs, "q") == [docs[1]]
    assert asyncio.run(compressor.acompress_documents(docs, "q"))[0] is docs[1]
    with pytest.raises(AdapterFitError):
        compressor.compress_documents([Document("x", metadata={"relevance_score": "high"})], "q")


def test_importing_thrift_fp_imports_neither_langchain_nor_llama_index() -> None:
    code = "import sys, thrift_fp, thrift_fp.adapters; print([m for m in ('langchain_core', 'llama_index') if m in sys.modules])"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "[]", done.stderr


def test_render_documents_uses_the_named_tier_and_the_source() -> None:
    from thrift_fp.adapters.langchain import render_documents
    from thrift_fp.render import KeyedNonce

    docs = [Document("Paris is in France.", metadata={"source": "https://example.org/paris"})]
    public = render_documents(docs, 10**6, trust_tier="third-party-public", nonce=KeyedNonce(bytes(32))).unwrap()
    assert "third-party-public" in public.text and "https://example.org/paris" in public.text
    assert public.documents[0] is docs[0]
    assert "third-party" not in render_documents(docs, 10**6, trust_tier="first-party").unwrap().text
    empty = render_documents([Document("x"), Document("")], 10**6).failure()
    assert empty == MalformedItem("document", 1, "content", "must not be an empty string")
