"""Workload: the OpenAI adapter on 2,000 messages, against tokenizing their texts once, and
against langchain-core's ``trim_messages`` on the same conversation.

The conversation is the peer workload's (`benchmarks.peer.history`: a system prompt, user turns,
answers, assistant turns issuing 1-3 tool calls and their results), written as Chat Completions
dicts. Three contenders, interleaved A-B-B-A, CPU time primary, medians beside bests, every one on
one thread (thrift_fp's batch counter held to 1):

- **tokenize**: ``encode_ordinary`` of every *distinct* text the cookbook counts (role, content,
  tool call id/name/arguments, tool_call_id), once, on the very ``tiktoken.Encoding`` thrift_fp
  uses (``cl100k_base``; the model named is ``gpt-4``). Equal work: the fit counts each distinct
  text of its batch once (every message repeats its role, every tool call its name), so the
  contender does too, finding the distinct texts (``dict.fromkeys``) inside its timed run;
- **fit**: ``fit_openai_messages(messages, BUDGET, model="gpt-4", output_reserve=0)``, which reads,
  validates, prices, pairs, fits and maps back;
- **trim_messages**: the same conversation as LangChain messages, trimmed to the same budget with a
  plain per-message tiktoken counter (the peer workload's).

Targets: fit / tokenize <= 1.2 (CPU median), and fit no slower than trim_messages (trim / fit
>= 1.0, CPU median).

    python -m benchmarks.adapters
"""

from __future__ import annotations

import json
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, SystemMessage, ToolMessage

from benchmarks._harness import Report, Row, at_least, at_most, interleaved, ratio_text, run_and_print
from benchmarks._sets import raw_tiktoken
from benchmarks.peer import counting_threads, history, trim
from thrift_fp.adapters.openai import fit_openai_messages

MESSAGES = 2_000
BUDGET = 8_000
REPEATS = 8
TARGET_TOKENIZE = 1.2
TARGET_PEER = 1.0


def openai_messages(messages: list[BaseMessage]) -> list[dict[str, Any]]:
    """The LangChain conversation as Chat Completions dicts."""
    out: list[dict[str, Any]] = []
    for message in messages:
        content = message.content if isinstance(message.content, str) else str(message.content)
        if isinstance(message, SystemMessage):
            out.append({"role": "system", "content": content})
        elif isinstance(message, ToolMessage):
            out.append({"role": "tool", "tool_call_id": message.tool_call_id, "content": content})
        elif isinstance(message, AIMessage) and message.tool_calls:
            out.append({"role": "assistant", "content": content or None, "tool_calls": [
                {"id": call["id"], "type": "function",
                 "function": {"name": call["name"], "arguments": json.dumps(call["args"])}}
                for call in message.tool_calls]})
        elif isinstance(message, AIMessage):
            out.append({"role": "assistant", "content": content})
        else:
            out.append({"role": "user", "content": content})
    return out


def texts_of(messages: list[dict[str, Any]]) -> list[str]:
    """Every text the cookbook framing counts, as a user's own counter would gather them."""
    texts: list[str] = []
    for message in messages:
        texts.append(message["role"])
        if message.get("content") is not None:
            texts.append(message["content"])
        for call in message.get("tool_calls") or ():
            texts += [call["id"], call["function"]["name"], call["function"]["arguments"]]
        if "tool_call_id" in message:
            texts.append(message["tool_call_id"])
    return texts


def run(repeats: int = REPEATS) -> Report:
    """Time the three contenders and check the fit's promise on the way."""
    conversation = history(MESSAGES)
    messages = openai_messages(conversation)
    texts = texts_of(messages)
    encode = raw_tiktoken().encode_ordinary

    def tokenize() -> int:
        return sum(len(encode(text)) for text in dict.fromkeys(texts))

    def fit() -> object:
        return fit_openai_messages(messages, BUDGET, model="gpt-4", output_reserve=0).unwrap()

    def peer() -> object:
        return trim(conversation, BUDGET)

    with counting_threads(1):
        fitted = fit_openai_messages(messages, BUDGET, model="gpt-4", output_reserve=0).unwrap()
        timings = interleaved({"tokenize": tokenize, "fit": fit, "trim_messages": peer}, repeats)
    ours, once, trimmed = timings["fit"], timings["tokenize"], timings["trim_messages"]
    versus_tokenize = ours.median_cpu / once.median_cpu
    versus_peer = trimmed.median_cpu / ours.median_cpu
    return Report(
        workload="adapters (the OpenAI adapter on 2,000 messages vs tokenizing once and vs trim_messages)",
        headline="fit_openai_messages / tokenizing the texts once, CPU median, 1 thread",
        **at_most(versus_tokenize, TARGET_TOKENIZE),
        inputs=(
            ("messages", f"{len(messages):,} Chat Completions dicts ({sum('tool_calls' in m for m in messages)} with tool calls)"),
            ("texts", f"{len(texts):,} texts, {len(dict.fromkeys(texts)):,} distinct ({tokenize():,} cl100k_base tokens): "
                      "both the fit and the tokenize contender count each distinct text once"),
            ("budget", f"{BUDGET:,} tokens, output_reserve=0, model gpt-4 (cl100k_base)"),
            ("repeats", f"{repeats} per contender, A-B-B-A, 1 thread"),
        ),
        figures=(
            ("tokenize", once.text()),
            ("fit", ours.text()),
            ("trim_messages", trimmed.text()),
            ("fit / tokenize", ratio_text(ours, once)),
            ("trim_messages / fit", ratio_text(trimmed, ours)),
            ("kept", f"{len(fitted.messages)} messages, {fitted.tokens.tokens:,} tokens as sent (budget {BUDGET:,})"),
        ),
        rows=(Row("trim_messages / fit_openai_messages, CPU median, 1 thread",
                  **at_least(versus_peer, TARGET_PEER, " (no slower)")),),
    )


def main() -> None:
    run_and_print(run)


if __name__ == "__main__":
    main()
