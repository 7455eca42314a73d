"""Fit a LangChain history (messages, a tuple and a dict, a tool round, retrieved documents) into a
small window, offline, and print what was kept and shed.

    python examples/adapter_langchain.py
"""

from __future__ import annotations

import secrets

from langchain_core.documents import Document
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from thrift_fp.adapters.langchain import fit_messages
from thrift_fp.thrift import RAG
from thrift_fp.render import KeyedNonce


def main() -> None:
    history: list[object] = [
        SystemMessage("Answer in one line."),
        ("human", "Tell me everything about the Norwegian coast. " * 20),
        AIMessage("", tool_calls=[{"name": "weather", "args": {"city": "Bergen"}, "id": "c1"}]),
        ToolMessage("Bergen: 6 C, rain", tool_call_id="c1"),
        {"role": "user", "content": "Is Bergen worth a visit?"},
    ]
    documents = [
        Document("Bergen is a harbour city, gateway to the fjords.", metadata={"relevance_score": 0.9, "source": "kb"}),
        Document("Our office dog is called Rex. " * 30, metadata={"relevance_score": 0.1}),
    ]
    # RAG order: old turns give way before the documents (the default, AGENT, sheds documents first).
    fitted = fit_messages(history, 400, output_reserve=100, model="gpt-4o", documents=documents, shed_order=RAG,
                          nonce=KeyedNonce(secrets.token_bytes(32))).unwrap()
    shed = [index for index, message in enumerate(history) if not any(message is kept for kept in fitted.messages)]
    print(f"kept {len(fitted.messages)} messages ({fitted.tokens.tokens} tokens of {fitted.trace.budget}), shed messages {shed}")
    print(f"documents kept: {[document.page_content[:30] for document in fitted.documents]}")


if __name__ == "__main__":
    main()
