"""Pydantic AI histories for the adapter's properties, and what the model is sent, counted afresh.

A history is drawn as turns: a user request (with ``instructions``, sometimes a system prompt,
sometimes an image or binary content), then rounds of tool calls (parallel calls, retries as
``RetryPromptPart`` or ``ToolReturnPart(outcome="retried")``, thinking), output retries as
``RetryFeedbackPart``, and a final text reply; the newest turn may stop mid-round (the history
ends with a request, as it does when Pydantic AI calls a history processor).

`sent_tokens` counts what the model receives with the encoding directly, without the adapter: each
part's framing and texts, the instructions Pydantic AI's own ``get_instructions_source`` picks
(or those the caller says were sent), and the reply priming.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

from hypothesis import strategies as st
from pydantic_ai._instrumentation import get_instructions_source
from pydantic_ai.messages import (
    BinaryContent,
    ImageUrl,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryFeedbackPart,
    RetryInfo,
    RetryPromptPart,
    SystemPromptPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from thrift_fp.tokens import TokenEncoding, get_encoding

MEDIA = 1600
_WORDS = ("the", "disk", "filled", "up", "at", "noon", "é", "数据", "ok", "<|endoftext|>", "  ", "\n", "refund")

text = st.lists(st.sampled_from(_WORDS), min_size=1, max_size=12).map(" ".join)
long_text = st.integers(min_value=1, max_value=60).flatmap(lambda n: st.just("instructions stay brief " * n))


@dataclass(frozen=True)
class Round:
    """Tool calls answered by returns (a retried call answered by a retry)."""

    calls: tuple[tuple[str, str], ...]
    retried: tuple[bool, ...]
    legacy_retry: bool
    thinking: str


@dataclass(frozen=True)
class Turn:
    """A user prompt (maybe with a system prompt and media), its rounds, and how it ends."""

    system: str | None
    prompt: str
    media: int  # 0 none, 1 an image URL, 2 binary content
    instructions: str | None
    rounds: tuple[Round, ...]
    feedback: bool
    reply: str | None


rounds = st.builds(
    Round,
    st.lists(st.tuples(text, text), min_size=1, max_size=3).map(tuple),
    st.lists(st.booleans(), min_size=3, max_size=3).map(tuple),
    st.booleans(),
    text,
)
turns = st.builds(
    Turn,
    st.none() | text,
    text,
    st.integers(min_value=0, max_value=2),
    st.none() | long_text,
    st.lists(rounds, max_size=3).map(tuple),
    st.booleans(),
    st.none() | text,
)
histories = st.lists(turns, min_size=1, max_size=6)


def written(drawn: Sequence[Turn]) -> list[ModelMessage]:
    """The history of the drawn turns, alternating requests and responses, ending with a request."""
    messages: list[ModelMessage] = []
    for number, turn in enumerate(drawn):
        content: list[object] = [turn.prompt]
        if turn.media == 1:
            content.append(ImageUrl("https://example.com/a.png"))
        elif turn.media == 2:
            content.append(BinaryContent(b"\x89PNG....", media_type="image/png"))
        parts: list[object] = [] if turn.system is None else [SystemPromptPart(turn.system)]
        parts.append(UserPromptPart(content if turn.media else turn.prompt))  # type: ignore[arg-type]
        messages.append(ModelRequest(parts, instructions=turn.instructions))  # type: ignore[arg-type]
        last = number == len(drawn) - 1
        for at, tool_round in enumerate(turn.rounds):
            ids = [f"c{number}-{at}-{k}" for k in range(len(tool_round.calls))]
            calls = [ToolCallPart("lookup", {"q": args}, call_id) for (args, _), call_id in zip(tool_round.calls, ids)]
            messages.append(ModelResponse([ThinkingPart(tool_round.thinking), *calls]))
            answers: list[object] = []
            for k, ((_, result), call_id) in enumerate(zip(tool_round.calls, ids)):
                if not tool_round.retried[k]:
                    answers.append(ToolReturnPart("lookup", result, call_id))
                elif tool_round.legacy_retry:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        answers.append(RetryPromptPart(f"bad q: {result}", tool_name="lookup", tool_call_id=call_id))
                else:
                    answers.append(ToolReturnPart("lookup", f"bad q: {result}", call_id, outcome="retried"))
            messages.append(ModelRequest(answers, instructions=turn.instructions))  # type: ignore[arg-type]
        if turn.feedback:
            messages.append(ModelResponse([TextPart("not json")]))
            feedback = RetryFeedbackPart("answer in JSON", retry=RetryInfo(cause="model_retry"))
            messages.append(ModelRequest([feedback], instructions=turn.instructions))
        if not last and turn.reply is not None:
            messages.append(ModelResponse([TextPart(turn.reply)]))
        elif not last:
            messages.append(ModelResponse([TextPart("ok")]))
    return messages


def _encoder(encoding: str) -> TokenEncoding:
    return get_encoding(encoding).unwrap()


def sent_tokens(messages: Sequence[ModelMessage], encoding: str = "o200k_base", instructions: object = ...) -> int:
    """What the model receives, counted here without the adapter: 3 tokens of framing per part
    and per instructions, the parts' texts, media at 1600, reply priming 3. ``instructions``:
    what was sent (default: what Pydantic AI's ``get_instructions_source`` picks)."""
    enc = _encoder(encoding)

    def n(value: str) -> int:
        return enc.count(value).unwrap()

    total = 3
    if instructions is ...:
        source = get_instructions_source(messages)
        instructions = None if source is None else source.instructions
    if isinstance(instructions, str):
        total += 3 + n(instructions)
    for message in messages:
        for part in message.parts:
            total += 3
            if isinstance(part, SystemPromptPart | TextPart | ThinkingPart):
                total += n(part.content)
            elif isinstance(part, UserPromptPart):
                items = [part.content] if isinstance(part.content, str) else list(part.content)
                total += sum(n(item) if isinstance(item, str) else MEDIA for item in items)
            elif isinstance(part, ToolCallPart):
                total += n(part.tool_name) + n(part.tool_call_id) + n(part.args_as_json_str())
            elif isinstance(part, ToolReturnPart):
                total += n(part.tool_name) + n(part.tool_call_id) + n(part.model_response_str())
            elif isinstance(part, RetryPromptPart):
                total += n(part.tool_name or "") + n(part.tool_call_id) + n(part.model_response())
            elif isinstance(part, RetryFeedbackPart):
                total += n(part.model_response())
            else:
                raise AssertionError(f"a part this oracle does not know: {part!r}")
    return total


def orphans(messages: Sequence[ModelMessage]) -> set[str]:
    """Tool call ids answered without a call, or called without an answer."""
    calls = {part.tool_call_id for message in messages for part in message.parts if isinstance(part, ToolCallPart)}
    answers = {
        part.tool_call_id
        for message in messages
        for part in message.parts
        if isinstance(part, ToolReturnPart) or (isinstance(part, RetryPromptPart) and part.tool_name is not None)
    }
    return calls ^ answers


def adjacent_requests(messages: Sequence[ModelMessage]) -> list[int]:
    """Positions where a request follows a request."""
    return [at for at in range(1, len(messages))
            if isinstance(messages[at], ModelRequest) and isinstance(messages[at - 1], ModelRequest)]


def system_parts(messages: Sequence[ModelMessage]) -> list[SystemPromptPart]:
    """Every system prompt part, in order (compared by identity)."""
    return [part for message in messages for part in message.parts if isinstance(part, SystemPromptPart)]
