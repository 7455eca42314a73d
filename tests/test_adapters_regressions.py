"""Regressions of the adapters' budget promise: the best document is not dropped while budget is
left, and an unscored document sheds before every scored one (each failed on the old adapters)."""

from __future__ import annotations

from typing import Any

import pytest

from thrift_fp.adapters.langchain import fit_messages
from thrift_fp.adapters.llamaindex import ThriftNodePostprocessor
from thrift_fp.adapters.openai import fit_openai_messages
from thrift_fp.render import KeyedNonce

NONCE = KeyedNonce(bytes(32))


def test_openai_takes_the_best_document_back_once_an_old_turn_made_room() -> None:
    history: list[dict[str, Any]] = [
        {"role": "system", "content": "Answer from the documents."},
        {"role": "user", "content": "Tell me about our old shipping policy in detail. " * 40},
        {"role": "assistant", "content": "It changed in 2024."},
        {"role": "user", "content": "How long do refunds take?"},
    ]
    refunds = {"content": "Refunds are paid within 30 days of the return arriving at our warehouse. " * 4, "score": 0.9}
    fitted = fit_openai_messages(history, 400, model="gpt-4o", output_reserve=100, documents=[refunds], nonce=NONCE).unwrap()
    # The old turn (its question and answer) had to go; the document fits in what that left, so it
    # comes back (refill).
    assert fitted.shed == (1, 2) and len(fitted.documents) == 1
    assert fitted.tokens.tokens <= fitted.trace.budget == 300
    assert "Refunds are paid" in fitted.messages[1]["content"]
    off = fit_openai_messages(history, 400, model="gpt-4o", output_reserve=100, documents=[refunds], nonce=NONCE,
                              refill=False).unwrap()
    assert off.documents == ()


def test_langchain_takes_the_best_document_back_once_an_old_turn_made_room() -> None:
    from langchain_core.documents import Document
    from langchain_core.messages import AIMessage, HumanMessage

    history = [HumanMessage("Plan a week in Norway with every detail you can think of. " * 12),
               AIMessage("Start in Oslo."), HumanMessage("What is Bergen like?")]
    bergen = Document("Bergen is a rainy harbour city on Norway's west coast, gateway to the fjords.",
                      metadata={"relevance_score": 0.9})
    fitted = fit_messages(history, 150, output_reserve=0, documents=[bergen], nonce=NONCE).unwrap()
    assert fitted.documents == (bergen,) and fitted.messages == (history[2],)  # the old turn went whole
    assert fitted.tokens.tokens <= 150 and "rainy harbour" in fitted.text


def test_llamaindex_sheds_an_unscored_node_before_every_scored_one() -> None:
    from llama_index.core.schema import NodeWithScore, TextNode

    nodes = [NodeWithScore(node=TextNode(text="the", id_="a"), score=2.0),
             NodeWithScore(node=TextNode(text="the the the the", id_="unscored"), score=None),
             NodeWithScore(node=TextNode(text="the", id_="b"), score=1.0)]
    kept = ThriftNodePostprocessor(max_tokens=5).postprocess_nodes(nodes)
    assert [n.node.node_id for n in kept] == ["a", "b"]
