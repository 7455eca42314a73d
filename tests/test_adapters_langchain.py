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

from thrift_fp.adapters._core import content_id
from thrift_fp.render import KeyedNonce
from thrift_fp.adapters.langchain import ThriftDocumentCompressor, count_messages, fit_documents, fit_messages, fitting_runnable, message_text
from thrift_fp.adapters import AdapterFitError, DuplicateToolCall, InvalidArgument, InvalidDocument, MalformedMessage, OverBudget, ToolResultWithoutCall, UnknownRole


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
    total = count_messages(history).unwrap().tokens
    last = count_messages(history[-1:]).unwrap().tokens
    first = count_messages(history[:1]).unwrap().tokens
    # Shedding message 0 leaves one token too many: the next unit is the call with all 3 results.
    fitted = fit_messages(history, total - first - 1, output_reserve=0).unwrap()
    assert fitted.messages == (history[-1],)
    assert fitted.trace.fits and fitted.trace.total_after == last == fitted.tokens.tokens
    assert fitted.trace.buckets[8].ids == tuple(f"messages[{i}]" for i in range(5))


def test_trim_messages_would_orphan_here_and_fit_messages_does_not() -> None:
    from langchain_core.messages import trim_messages

    history = _three_calls()
    budget = count_messages(history[3:]).unwrap().tokens

    def counter(messages: list[BaseMessage]) -> int:
        return count_messages(messages).unwrap().tokens

    trimmed = trim_messages(history, max_tokens=budget, token_counter=counter, strategy="last")
    assert isinstance(trimmed[0], ToolMessage)  # the peer keeps results whose call is gone
    assert all(not isinstance(m, ToolMessage) for m in fit_messages(history, budget, output_reserve=0).unwrap().messages)


def test_system_messages_stay_unless_keep_system_is_false() -> None:
    history = [SystemMessage("rules " * 40), HumanMessage("old " * 40), HumanMessage("new")]
    assert isinstance(fit_messages(history, 30, output_reserve=0).failure(), OverBudget)
    floor = count_messages([history[0], history[2]]).unwrap().tokens
    kept = fit_messages(history, floor, output_reserve=0).unwrap()
    assert kept.messages == (history[0], history[2]) and kept.trace.fits
    assert fit_messages(history, 30, output_reserve=0, keep_system=False).unwrap().messages == (history[2],)


def test_documents_share_the_budget_and_shed_before_messages() -> None:
    history = [HumanMessage("question " * 10), HumanMessage("latest")]
    docs = [Document("weak " * 30, metadata={"relevance_score": 0.1}), Document("strong", metadata={"relevance_score": 0.9})]
    nonce = KeyedNonce(bytes(32))
    strong = fit_documents(docs[1:], 10**6, output_reserve=0, nonce=nonce).unwrap().tokens.tokens
    # The documents go as one more message ("system", fitted.text): its role line is charged too.
    frame = count_messages([("system", "")]).unwrap().tokens
    window = count_messages(history).unwrap().tokens + strong + frame
    fitted = fit_messages(history, window, output_reserve=0, documents=docs, nonce=nonce).unwrap()
    assert fitted.messages == tuple(history) and fitted.documents == (docs[1],)
    assert fitted.tokens.tokens == window and "strong" in fitted.text


def test_scores_outside_unit_interval_are_rescaled_and_missing_ones_shed_first() -> None:
    docs = [
        Document("logit high", metadata={"relevance_score": 7.5}),
        Document("no score"),
        Document("logit low", metadata={"relevance_score": -3.0}),
    ]
    fitted = fit_documents(docs, 4, output_reserve=0, render=False).unwrap()
    assert [d.page_content for d in fitted.documents] == ["logit high"]
    # The unscored document sheds before the rescaled minimum (0.0), although it came earlier.
    assert fitted.trace.buckets[5].ids == (content_id("no score"), content_id("logit low"))


def test_documents_without_id_get_content_hash_ids_and_repeats_stay_apart() -> None:
    docs = [Document("same text"), Document("same text"), Document("other", id="kb-1")]
    fitted = fit_documents(docs, 0, render=False).unwrap()
    assert set(fitted.trace.buckets[5].ids) == {content_id("same text"), content_id("same text") + "#2", "kb-1"}


def test_bad_input_names_the_index_and_field() -> None:
    # A wrong type is caught by mypy and beartype; a message built past pydantic's checks is an
    # error value.
    not_text = HumanMessage.model_construct(content=3, type="human", name=None)
    error = fit_messages([HumanMessage("a"), not_text], 10).failure()
    assert isinstance(error, MalformedMessage) and (error.index, error.field) == (1, "content")
    unknown = fit_messages([HumanMessage("a"), RemoveMessage(id="x")], 10).failure()
    assert isinstance(unknown, UnknownRole) and (unknown.index, unknown.role) == (1, "remove")
    missing = fit_messages([HumanMessage("a"), ToolMessage("r", tool_call_id="c1")], 10).failure()
    assert missing == ToolResultWithoutCall(1, "tool_call_id", "c1")
    call = [{"name": "f", "args": {}, "id": "c1"}]
    twice = fit_messages([AIMessage("", tool_calls=call), AIMessage("", tool_calls=call)], 10).failure()
    assert twice == DuplicateToolCall(1, "tool_calls[0].id", "c1")
    bad_block = HumanMessage.model_construct(content=["ok", 3], type="human", name=None)
    block_error = fit_messages([bad_block], 10).failure()
    assert isinstance(block_error, MalformedMessage) and block_error.field == "content[1]"
    nan = fit_documents([Document("x"), Document("y", metadata={"relevance_score": float("nan")})], 10).failure()
    assert nan == InvalidDocument(1, "score", "expected a finite number, got nan")
    for window in (-1, None, "10"):
        bad_window = fit_messages([HumanMessage("a")], window).failure()  # type: ignore[arg-type] # on purpose
        assert isinstance(bad_window, InvalidArgument) and bad_window.field == "context_window"
    assert "unknown encoding 'nope'" in fit_messages([HumanMessage("a")], 10, encoding="nope").failure().message
    assert isinstance(fit_messages(None, 10).failure(), InvalidArgument)  # type: ignore[arg-type] # on purpose
    nested: object = "x"
    for _ in range(5000):
        nested = [nested]
    deep = fit_messages([AIMessage("", tool_calls=[{"name": "f", "args": {"q": nested}, "id": "c"}])], 100).failure()
    assert isinstance(deep, MalformedMessage) and deep.field == "tool_calls[0].args"


def test_message_likes_are_read_as_trim_messages_reads_them_and_come_back_as_given() -> None:
    history: list[object] = [{"role": "system", "content": "Be brief."}, ("user", "old " * 40), ("ai", "ok"), "and now?"]
    fitted = fit_messages(history, 30, output_reserve=0, model="gpt-4o").unwrap()
    assert fitted.messages[0] is history[0] and fitted.messages[-1] is history[-1]
    assert fitted.tokens.encoding == "o200k_base" and fitted.tokens.tokens <= 30
    bad = fit_messages([{"role": "user"}], 30).failure()
    assert isinstance(bad, MalformedMessage) and bad.index == 0


def test_a_token_counter_counts_every_message() -> None:
    fitted = fit_messages([HumanMessage("hello")], 100, token_counter=len).unwrap()
    assert (fitted.tokens.tokens, fitted.tokens.precision) == (len("user\nhello"), "estimated")


def test_framing_covers_every_role_and_content_blocks() -> None:
    assert message_text(ChatMessage(role="critic", content="meh")).unwrap() == "critic\nmeh"
    assert message_text(FunctionMessage(name="f", content="1")).unwrap() == "function f\n1"
    assert message_text(ToolMessage("4", tool_call_id="c1")).unwrap() == "tool c1\n4"
    blocks = HumanMessage([{"type": "text", "text": "see"}, {"type": "image_url", "image_url": {"url": "x"}}, "raw"])
    assert message_text(blocks).unwrap() == "user\nsee\n[image_url]\nraw"
    assert count_messages([HumanMessage("hi")], encoding="o200k_base").unwrap().tokens == count_messages([HumanMessage("hi")]).unwrap().tokens


def test_runnable_drops_into_an_lcel_chain_and_raises_the_error_value() -> None:
    prompt = ChatPromptTemplate.from_messages([("system", "Be brief."), MessagesPlaceholder("history"), ("human", "{q}")])
    def names(messages: list[BaseMessage]) -> list[str]:
        return [type(m).__name__ for m in messages]

    chain: Runnable[dict[str, object], list[str]] = prompt | fitting_runnable(20, output_reserve=0) | RunnableLambda(names)
    history = [HumanMessage("old " * 50), AIMessage("older answer " * 20)]
    assert chain.invoke({"history": history, "q": "now?"}) == ["SystemMessage", "HumanMessage"]
    with pytest.raises(AdapterFitError) as raised:
        fitting_runnable(20).invoke([ToolMessage("r", tool_call_id="c1")])
    assert raised.value.error == ToolResultWithoutCall(0, "tool_call_id", "c1")


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


def test_fit_documents_renders_with_the_named_tier_and_the_source() -> None:
    from thrift_fp.render import KeyedNonce

    docs = [Document("Paris is in France.", metadata={"source": "https://example.org/paris"})]
    public = fit_documents(docs, 10**6, tier="third-party-public", nonce=KeyedNonce(bytes(32))).unwrap()
    assert "third-party-public" in public.text and "https://example.org/paris" in public.text
    assert public.documents[0] is docs[0]
    assert "third-party" not in fit_documents(docs, 10**6, tier="first-party").unwrap().text
    empty = fit_documents([Document("x"), Document("")], 10**6).failure()
    assert empty == InvalidDocument(1, "content", "expected a non-empty str")
