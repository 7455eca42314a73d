"""Fit an Anthropic Messages history (thinking, a tool round, a newest turn) into a small window,
offline, and print what was kept and shed.

    python examples/adapter_anthropic.py
"""

from __future__ import annotations

from typing import Any

from thrift_fp.adapters.anthropic import fit_anthropic_messages


def main() -> None:
    history: list[dict[str, Any]] = [
        {"role": "user", "content": "Summarise last week's incident report. " * 20},
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "I should read the log first. " * 20, "signature": "s1"},
            {"type": "tool_use", "id": "tu1", "name": "read_log", "input": {"path": "incident.log"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu1", "content": "disk full at 09:12"}]},
        {"role": "assistant", "content": "The disk filled up at 09:12."},
        {"role": "user", "content": "What should we change?"},
    ]
    fitted = fit_anthropic_messages(history, 300, system="Be brief.", output_reserve=150).unwrap()
    print(f"kept {len(fitted.messages)} messages ({fitted.tokens.tokens} {fitted.tokens.precision} tokens "
          f"of {fitted.trace.budget}), shed messages {list(fitted.shed)}")
    print(f"stripped prior-turn thinking: {list(fitted.trace.buckets[1].ids)}")
    for message in fitted.messages:
        print(f"  {message['role']}: {str(message['content'])[:60]!r}")


if __name__ == "__main__":
    main()
