"""Conversations for the OpenAI, Anthropic and Pydantic AI adapter properties.

A conversation is drawn once as format-free events, then written in each format together with
what the test knows independently of the adapter: each message's tool round (``None`` outside
one) and whether it is an instruction message.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

_WORDS = ("the", "disk", "filled", "up", "at", "noon", "é", "数据", "ok", "<|endoftext|>", "  ", "\n", "refund")

text = st.lists(st.sampled_from(_WORDS), min_size=1, max_size=12).map(" ".join)


@dataclass(frozen=True)
class Say:
    """A plain message: ``who`` is system, user or assistant."""

    who: str
    text: str


@dataclass(frozen=True)
class Round:
    """An assistant turn with tool calls (and thinking), then one result per call."""

    calls: tuple[tuple[str, str], ...]
    thinking: str


event = st.one_of(
    st.builds(Say, st.sampled_from(("user", "assistant")), text),
    st.builds(Round, st.lists(st.tuples(text, text), min_size=1, max_size=3).map(tuple), text),
)
conversations = st.tuples(
    st.lists(st.builds(Say, st.just("system"), text), max_size=2),
    st.lists(event, min_size=1, max_size=10),
).map(lambda parts: [*parts[0], *parts[1]])


@dataclass(frozen=True)
class Written:
    """A conversation in one format: the messages, each one's tool round, and its instruction flag."""

    messages: list[Any]
    rounds: list[int | None]
    instructions: list[bool]


def openai(events: list[Say | Round]) -> Written:
    """Chat Completions dicts: a round is an assistant message with ``tool_calls`` then one
    ``tool`` message per call."""
    messages: list[Any] = []
    rounds: list[int | None] = []
    instructions: list[bool] = []
    for number, item in enumerate(events):
        if isinstance(item, Say):
            messages.append({"role": item.who, "content": item.text})
            rounds.append(None)
            instructions.append(item.who == "system")
            continue
        calls = [
            {"id": f"call_{number}_{at}", "type": "function", "function": {"name": "lookup", "arguments": args}}
            for at, (args, _) in enumerate(item.calls)
        ]
        messages.append({"role": "assistant", "content": None, "tool_calls": calls})
        messages += [
            {"role": "tool", "tool_call_id": f"call_{number}_{at}", "content": result}
            for at, (_, result) in enumerate(item.calls)
        ]
        rounds += [number] * (1 + len(item.calls))
        instructions += [False] * (1 + len(item.calls))
    return Written(messages, rounds, instructions)


def anthropic(events: list[Say | Round]) -> Written:
    """Messages dicts (system events dropped: the system prompt is separate): a round is an
    assistant message with a thinking block and ``tool_use`` blocks, then one user message of
    ``tool_result`` blocks."""
    messages: list[Any] = []
    rounds: list[int | None] = []
    for number, item in enumerate(events):
        if isinstance(item, Say):
            if item.who != "system":
                messages.append({"role": item.who, "content": item.text})
                rounds.append(None)
            continue
        uses = [
            {"type": "tool_use", "id": f"tu_{number}_{at}", "name": "lookup", "input": {"q": args}}
            for at, (args, _) in enumerate(item.calls)
        ]
        results = [
            {"type": "tool_result", "tool_use_id": f"tu_{number}_{at}", "content": result}
            for at, (_, result) in enumerate(item.calls)
        ]
        thinking = {"type": "thinking", "thinking": item.thinking, "signature": "sig"}
        messages += [{"role": "assistant", "content": [thinking, *uses]}, {"role": "user", "content": results}]
        rounds += [number, number]
    return Written(messages, rounds, [False] * len(messages))
