"""Fit an OpenAI Chat Completions history (with a parallel tool call and one retrieved document)
into a small window, offline, and print what was kept and shed.

    python examples/adapter_openai.py
"""

from __future__ import annotations

import secrets
from typing import Any

from thrift_fp.adapters.openai import fit_openai_messages
from thrift_fp.render import KeyedNonce


def main() -> None:
    history: list[dict[str, Any]] = [
        {"role": "system", "content": "You answer travel questions from the documents."},
        {"role": "user", "content": "Plan me a week in Norway, every detail please. " * 30},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "weather", "arguments": '{"city": "Oslo"}'}},
            {"id": "c2", "type": "function", "function": {"name": "weather", "arguments": '{"city": "Bergen"}'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "Oslo: 4 C, rain"},
        {"role": "tool", "tool_call_id": "c2", "content": "Bergen: 6 C, rain"},
        {"role": "user", "content": "Which city is warmer, and is Bergen worth it?"},
    ]
    documents = [{"content": "Bergen is a harbour city on the west coast, gateway to the fjords.", "score": 0.9,
                  "source": "kb/bergen.md"}]
    fitted = fit_openai_messages(
        history, 600, model="gpt-4o", output_reserve=250, documents=documents, nonce=KeyedNonce(secrets.token_bytes(32)),
    ).unwrap()
    print(f"kept {len(fitted.messages)} messages ({fitted.tokens.tokens} tokens of {fitted.trace.budget}), "
          f"shed messages {list(fitted.shed)}")
    print(f"documents kept: {[record.source for record in fitted.records]}")
    for message in fitted.messages:
        print(f"  {message['role']}: {str(message.get('content'))[:60]!r}")


if __name__ == "__main__":
    main()
