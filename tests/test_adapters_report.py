"""Every adapter's result pictures its fit: ``_repr_html_`` is the self-contained report page,
naming what was shed (the adapter's trace ids) and the kept documents."""

from __future__ import annotations

from typing import Any

from langchain_core.documents import Document
from langchain_core.messages import AIMessage, HumanMessage
from llama_index.core.schema import NodeWithScore, TextNode
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, UserPromptPart

from thrift_fp.adapters.anthropic import fit_anthropic_messages
from thrift_fp.adapters.langchain import fit_documents, fit_messages
from thrift_fp.adapters.llamaindex import fit_nodes
from thrift_fp.adapters.openai import fit_openai_messages
from thrift_fp.adapters.pydantic_ai import fit_model_messages

LONG = "An old question about shipping and everything around it. " * 30


def _page_names(page: str, *names: str) -> None:
    assert page.startswith("<!DOCTYPE html>")
    for name in names:
        assert name in page, name


def test_openai_fit_pictures_its_shed_message_and_kept_document() -> None:
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": LONG}, {"role": "assistant", "content": "ok"},
        {"role": "user", "content": "How long do refunds take?"},
    ]
    documents = [{"id": "kb-refunds", "content": "Refunds take 30 days.", "score": 0.9}]
    fitted = fit_openai_messages(messages, 300, model="gpt-4o", output_reserve=100, documents=documents).unwrap()
    assert fitted.shed and fitted.documents
    _page_names(fitted._repr_html_(), "messages[0]", "kb-refunds")


def test_anthropic_fit_pictures_its_shed_turn() -> None:
    conversation: list[dict[str, Any]] = [
        {"role": "user", "content": LONG}, {"role": "assistant", "content": "ok"},
        {"role": "user", "content": "What now?"},
    ]
    fitted = fit_anthropic_messages(conversation, 200, output_reserve=50).unwrap()
    assert fitted.shed == (0, 1)
    _page_names(fitted._repr_html_(), "messages[0]", "messages[1]")


def test_langchain_fits_picture_their_shed_messages_and_documents() -> None:
    history = [HumanMessage(LONG), AIMessage("ok"), HumanMessage("What now?")]
    fitted = fit_messages(history, 200, output_reserve=0).unwrap()
    assert fitted.messages == (history[2],)  # the old turn, question and answer, went whole
    _page_names(fitted._repr_html_(), "messages[0]", "messages[1]")
    documents = fit_documents([Document("Refunds take five days.", id="kb-1"), Document(LONG, id="kb-2")], 200,
                              output_reserve=0).unwrap()
    assert [document.id for document in documents.documents] == ["kb-1"]
    _page_names(documents._repr_html_(), "kb-2")


def test_llamaindex_fit_pictures_its_shed_node() -> None:
    nodes = [NodeWithScore(node=TextNode(text="Refunds take five days.", id_="kb-1"), score=0.9),
             NodeWithScore(node=TextNode(text=LONG, id_="kb-2"), score=0.1)]
    fitted = fit_nodes(nodes, 200, output_reserve=0).unwrap()
    assert [node.node.node_id for node in fitted.nodes] == ["kb-1"]
    _page_names(fitted._repr_html_(), "kb-2")


def test_pydantic_ai_fit_pictures_its_shed_messages() -> None:
    history: list[ModelMessage] = [ModelRequest([UserPromptPart(LONG)]), ModelResponse([TextPart("ok")]),
               ModelRequest([UserPromptPart("What now?")])]
    fitted = fit_model_messages(history, 200, output_reserve=0).unwrap()
    assert fitted.shed == (0, 1)
    _page_names(fitted._repr_html_(), "messages[0]", "messages[1]")
