"""Fit LlamaIndex nodes (scored, rescaled and unscored) with the node postprocessor, and a chat
history with nodes, offline, and print what was kept and shed.

    python examples/adapter_llamaindex.py
"""

from __future__ import annotations

from llama_index.core.llms import ChatMessage
from llama_index.core.schema import NodeWithScore, TextNode

from thrift_fp.adapters.llamaindex import ThriftNodePostprocessor, fit_chat_messages


def main() -> None:
    nodes = [
        NodeWithScore(node=TextNode(text="Refunds take five working days.", id_="refunds"), score=7.5),
        NodeWithScore(node=TextNode(text="No score came with this node. " * 5, id_="unscored"), score=None),
        NodeWithScore(node=TextNode(text="Shipping is free over 50 EUR.", id_="shipping"), score=-2.0),
    ]
    kept = ThriftNodePostprocessor(max_tokens=20).postprocess_nodes(nodes)
    print(f"postprocessor kept {[n.node.node_id for n in kept]} of {[n.node.node_id for n in nodes]}")
    history = [
        ChatMessage(role="system", content="Be brief."),
        ChatMessage(role="user", content="Tell me about every policy you have. " * 20),
        ChatMessage(role="assistant", content="We have refund and shipping policies."),
        ChatMessage(role="user", content="How long do refunds take?"),
    ]
    fitted = fit_chat_messages(history, 300, output_reserve=0, nodes=nodes, model="gpt-4o").unwrap()
    shed = [index for index, message in enumerate(history) if not any(message is kept for kept in fitted.messages)]
    print(f"chat kept {len(fitted.messages)} messages and nodes {[n.node.node_id for n in fitted.nodes]} "
          f"({fitted.tokens.tokens} tokens of {fitted.trace.budget}), shed messages {shed}")


if __name__ == "__main__":
    main()
