"""Anthropic Messages: fit ``system`` plus ``messages`` (and ``tools``) into a Claude model's window.

`fit_anthropic_messages` takes the plain dicts you would pass to ``client.messages.create`` and
returns the same message objects, in the same order, minus what was shed, plus thrift's trace. No
third-party package is needed.

Pairs. A ``tool_use`` block and the ``tool_result`` block answering it (by ``tool_use_id``) are a
pair; an assistant message with several ``tool_use`` blocks and the user messages holding their
results form one group, kept or shed whole. By default whole turns are (see
`fit_anthropic_messages`), so the kept messages start with a user message. The ``system`` prompt is never shed, nor is the newest
message; otherwise the oldest messages go first (message order stands for age).

Thinking blocks are thoughts. Anthropic's API strips ``thinking`` and ``redacted_thinking`` blocks
of earlier turns from the context, so they cost nothing: they enter thrift as prior-turn thoughts,
which its first pass strips (the trace's ``thoughts`` bucket names them as
``thinking@<message>.<block>``), while the message objects that hold them are returned untouched.
The current turn (the messages after the last user message that is not only tool results) keeps
its thinking, charged as part of its messages.

Counting is an estimate, flagged ``estimated``: no Claude tokenizer is available offline. Every
text is charged ``ceil(len(text) / 3.5)`` tokens (Anthropic's "about 3.5 characters per token",
`thrift_fp.tokens.estimate_by_length`): block texts, a ``tool_use`` block's name and JSON input,
other blocks' string values; plus 3 tokens of framing per message and for the system prompt, an
image's ``image_tokens`` (default 1600, the most an image costs after Anthropic resizes it to about
1.15 megapixels), and, when tools are given, 346 tokens of tool-use system prompt plus the
estimate of each tool definition's JSON.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Generic, TypeVar

from returns.result import Failure, Result, Success

from thrift_fp.adapters._a_errors import (
    AdapterError,
    CountFailed,
    DuplicateToolCall,
    FitFailed,
    InvalidArgument,
    InvalidTool,
    MalformedMessage,
    PricingFailed,
    ToolCallWithoutResult,
    ToolResultWithoutCall,
    UnknownRole,
)
from thrift_fp.adapters._a_fit import Budgeting, Groups, Priced, StrippedThought, fit_priced
from thrift_fp.adapters._a_values import non_empty_str, string_leaves
from thrift_fp.thrift import ThriftTrace
from thrift_fp.tokens import TokenCount, estimate_by_length

__all__ = [
    "ESTIMATE",
    "IMAGE_TOKENS",
    "ROLES",
    "TOKENS_PER_MESSAGE",
    "TOOL_USE_SYSTEM_PROMPT",
    "AdapterError",
    "AnthropicFit",
    "CountFailed",
    "DuplicateToolCall",
    "FitFailed",
    "ImagePricer",
    "InvalidArgument",
    "InvalidTool",
    "MalformedMessage",
    "PricingFailed",
    "System",
    "ToolCallWithoutResult",
    "ToolResultWithoutCall",
    "UnknownRole",
    "count_anthropic_tokens",
    "fit_anthropic_messages",
]

ROLES: Final = ("user", "assistant")
ESTIMATE: Final = "chars/3.5"
"""The ``encoding`` named by every Anthropic count: ``ceil(len(text) / 3.5)`` per text."""
TOKENS_PER_MESSAGE: Final = 3
IMAGE_TOKENS: Final = 1600
TOOL_USE_SYSTEM_PROMPT: Final = 346
_THINKING: Final = frozenset({"thinking", "redacted_thinking"})
_TAG: Final = frozenset({"type"})
# The fit's own encoding only counts the priced stand-ins, which are exact in it.
_FIT_ENCODING: Final = "cl100k_base"

_Message = TypeVar("_Message", bound=Mapping[str, Any])

ImagePricer = Callable[[Mapping[str, Any]], int]
"""Prices one ``image`` block in tokens."""

System = str | Sequence[Mapping[str, Any]] | None


@dataclass(frozen=True, slots=True)
class AnthropicFit(Generic[_Message]):
    """The fitted request: the system prompt (unchanged), the caller's message objects that stay
    (input order), the input indices shed, thrift's trace, and the estimated count of the request.

    >>> fitted = fit_anthropic_messages([{"role": "user", "content": "Hi"}], 100, system="Be brief.").unwrap()
    >>> fitted.shed, fitted.tokens
    ((), TokenCount(tokens=10, encoding='chars/3.5', precision='estimated'))
    """

    system: System
    messages: list[_Message]
    shed: tuple[int, ...]
    trace: ThriftTrace
    tokens: TokenCount


@dataclass(frozen=True, slots=True)
class _Bill:
    role: str
    tokens: int
    thoughts: tuple[tuple[int, int], ...]
    call_ids: tuple[tuple[str, str], ...]
    answers: tuple[tuple[str, str], ...]
    genuine_user: bool


def count_anthropic_tokens(
    messages: Sequence[Mapping[str, Any]],
    *,
    system: System = None,
    tools: Sequence[Mapping[str, Any]] = (),
    image_tokens: ImagePricer | None = None,
) -> Result[TokenCount, AdapterError]:
    """The estimated tokens of a Messages request, as the module docstring says.

    >>> count_anthropic_tokens([{"role": "user", "content": "Hello, Claude"}], system="Be brief.").unwrap()
    TokenCount(tokens=13, encoding='chars/3.5', precision='estimated')
    """
    return _request(system, messages, tools, image_tokens).map(
        lambda priced: TokenCount(
            priced[0] + sum(bill.tokens for bill in priced[1]), ESTIMATE, "estimated"
        )
    )


def fit_anthropic_messages(
    messages: Sequence[_Message],
    context_window: int | float,
    *,
    system: System = None,
    tools: Sequence[Mapping[str, Any]] = (),
    output_reserve: int | float | None = None,
    reserve_fraction: float = 0.35,
    image_tokens: ImagePricer | None = None,
    whole_turns: bool = True,
) -> Result[AnthropicFit[_Message], AdapterError]:
    """Fit ``messages`` (with ``system`` and ``tools``) into ``context_window``.

    ``whole_turns`` (default) keeps or sheds each turn whole (a user message that holds no tool
    result, and every message until the next), so the kept messages start with a user message:
    Anthropic on Amazon Bedrock (and older API versions) refuses a conversation that starts with
    an assistant message. ``whole_turns=False`` sheds message by message (tool pairs still whole).

    >>> conversation = [
    ...     {"role": "user", "content": "Summarise the incident report. " * 20},
    ...     {"role": "assistant", "content": [
    ...         {"type": "thinking", "thinking": "I should read the log first. " * 20, "signature": "s1"},
    ...         {"type": "tool_use", "id": "tu1", "name": "read_log", "input": {"path": "incident.log"}}]},
    ...     {"role": "user", "content": [
    ...         {"type": "tool_result", "tool_use_id": "tu1", "content": "disk full at 09:12"}]},
    ...     {"role": "assistant", "content": "The disk filled up at 09:12."},
    ...     {"role": "user", "content": "What should we change?"},
    ... ]
    >>> fitted = fit_anthropic_messages(conversation, 200, system="Be brief.", output_reserve=100).unwrap()
    >>> fitted.shed, fitted.messages[0] is conversation[4]
    ((0, 1, 2, 3), True)
    >>> fit_anthropic_messages(conversation, 200, system="Be brief.", output_reserve=100, whole_turns=False).unwrap().shed
    (0,)
    >>> fitted.trace.buckets[1].ids, fitted.tokens.precision
    (('thinking@1.0',), 'estimated')
    """
    priced = _request(system, messages, tools, image_tokens)
    if isinstance(priced, Failure):
        return Failure(priced.failure())
    fixed, bills = priced.unwrap()
    groups = _groups(bills, whole_turns)
    if isinstance(groups, Failure):
        return Failure(groups.failure())
    thoughts = _prior_thoughts(messages, bills)
    units = [Priced(bill.tokens, group, role=bill.role) for bill, group in zip(bills, groups.unwrap(), strict=True)]
    fitted = fit_priced(
        units, fixed, Budgeting(context_window, output_reserve, reserve_fraction), _FIT_ENCODING,
        thoughts=thoughts,
    )
    if isinstance(fitted, Failure):
        return Failure(fitted.failure())
    core = fitted.unwrap()
    kept = set(core.kept)
    tokens = fixed + sum(bills[index].tokens for index in core.kept)
    return Success(
        AnthropicFit(
            system,
            [messages[index] for index in core.kept],
            tuple(index for index in range(len(messages)) if index not in kept),
            core.trace,
            TokenCount(tokens, ESTIMATE, "estimated"),
        )
    )


def _estimate(texts: Sequence[str]) -> int:
    return sum(estimate_by_length(text) for text in texts)


def _request(
    system: System, messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]], image_tokens: ImagePricer | None
) -> Result[tuple[int, tuple[_Bill, ...]], AdapterError]:
    """The request-wide tokens (system prompt, tools) and every message's bill."""
    system_tokens = _system_tokens(system)
    if isinstance(system_tokens, Failure):
        return Failure(system_tokens.failure())
    tool_tokens = _tool_tokens(tools)
    if isinstance(tool_tokens, Failure):
        return Failure(tool_tokens.failure())
    boundary = _turn_start(messages)
    bills: list[_Bill] = []
    for index, message in enumerate(messages):
        bill = _bill(index, message, index < boundary, image_tokens)
        if isinstance(bill, Failure):
            return Failure(bill.failure())
        bills.append(bill.unwrap())
    return Success((system_tokens.unwrap() + tool_tokens.unwrap(), tuple(bills)))


def _system_tokens(system: System) -> Result[int, AdapterError]:
    if system is None:
        return Success(0)
    if isinstance(system, str):
        return Success(TOKENS_PER_MESSAGE + estimate_by_length(system))
    texts: list[str] = []
    blocks: Sequence[object] = system  # each is checked: the type is a promise, not a guarantee
    for at, block in enumerate(blocks):
        if not isinstance(block, Mapping) or block.get("type") != "text" or not isinstance(block.get("text"), str):
            return Failure(InvalidArgument(f"system[{at}]", block, "expected a text block"))
        texts.append(block["text"])
    return Success(TOKENS_PER_MESSAGE + _estimate(texts))


def _tool_tokens(tools: Sequence[Mapping[str, Any]]) -> Result[int, AdapterError]:
    if not tools:
        return Success(0)
    total = TOOL_USE_SYSTEM_PROMPT
    definitions: Sequence[object] = tools
    for index, tool in enumerate(definitions):
        if not isinstance(tool, Mapping) or not non_empty_str(tool.get("name")):
            return Failure(InvalidTool(index, "name", tool, "expected a tool with a non-empty str name"))
        total += estimate_by_length(json.dumps(tool, sort_keys=True, default=str))
    return Success(total)


def _genuine_user(message: Mapping[str, Any]) -> bool:
    """A user message holding no tool result: it starts a turn (one that answers a tool call
    continues the turn of that call, even when it also holds text)."""
    content = message.get("content")
    if message.get("role") != "user":
        return False
    if isinstance(content, str):
        return True
    return isinstance(content, list | tuple) and not any(
        isinstance(block, Mapping) and block.get("type") == "tool_result" for block in content
    )


def _turn_start(messages: Sequence[Mapping[str, Any]]) -> int:
    """The index of the last user message that starts a turn (0 when there is none): thinking
    before it is a prior turn's."""
    for index in range(len(messages) - 1, -1, -1):
        message: object = messages[index]
        if isinstance(message, Mapping) and _genuine_user(message):
            return index
    return 0


def _bill(index: int, message: object, prior_turn: bool, image_tokens: ImagePricer | None) -> Result[_Bill, AdapterError]:
    if not isinstance(message, Mapping):
        return Failure(MalformedMessage(index, "(message)", message, "expected a mapping"))
    role = message.get("role")
    if role not in ROLES:
        if role is None:
            return Failure(MalformedMessage(index, "role", None, "is required"))
        return Failure(UnknownRole(index, role, ROLES))
    content = message.get("content")
    if isinstance(content, str):
        return Success(_Bill(role, TOKENS_PER_MESSAGE + estimate_by_length(content), (), (), (), role == "user"))
    if not isinstance(content, list | tuple):
        return Failure(MalformedMessage(index, "content", content, "expected a str or a list of content blocks"))
    tokens = TOKENS_PER_MESSAGE
    thoughts: list[tuple[int, int]] = []
    calls: list[tuple[str, str]] = []
    answers: list[tuple[str, str]] = []
    for at, block in enumerate(content):
        field = f"content[{at}]"
        if not isinstance(block, Mapping) or not isinstance(block.get("type"), str):
            return Failure(MalformedMessage(index, field, block, "expected a content block with a str 'type'"))
        kind = block["type"]
        if kind in _THINKING and role != "assistant":
            return Failure(MalformedMessage(index, field, kind, "thinking blocks belong to assistant messages"))
        if kind in _THINKING and prior_turn:
            thoughts.append((index, at))
            continue
        priced = _block(index, field, role, block, image_tokens)
        if isinstance(priced, Failure):
            return Failure(priced.failure())
        tokens += priced.unwrap()
        if kind == "tool_use":
            calls.append((f"{field}.id", block["id"]))
        elif kind == "tool_result":
            answers.append((f"{field}.tool_use_id", block["tool_use_id"]))
    return Success(_Bill(role, tokens, tuple(thoughts), tuple(calls), tuple(answers), _genuine_user(message)))


def _block(
    index: int, field: str, role: str, block: Mapping[str, Any], image_tokens: ImagePricer | None
) -> Result[int, AdapterError]:
    """One block's estimated tokens, after checking the fields its type requires."""
    kind = block["type"]
    if kind == "text":
        if not isinstance(block.get("text"), str):
            return Failure(MalformedMessage(index, f"{field}.text", block.get("text"), "expected a str"))
        return Success(estimate_by_length(block["text"]))
    if kind == "image":
        return _image(index, field, block, image_tokens)
    if kind == "tool_use":
        if role != "assistant":
            return Failure(MalformedMessage(index, field, kind, "tool_use blocks belong to assistant messages"))
        for name in ("id", "name"):
            if not non_empty_str(block.get(name)):
                return Failure(MalformedMessage(index, f"{field}.{name}", block.get(name), "expected a non-empty str"))
        arguments = json.dumps(block.get("input", {}), sort_keys=True, default=str)
        return Success(_estimate([block["id"], block["name"], arguments]))
    if kind == "tool_result":
        if role != "user":
            return Failure(MalformedMessage(index, field, kind, "tool_result blocks belong to user messages"))
        if not non_empty_str(block.get("tool_use_id")):
            return Failure(MalformedMessage(index, f"{field}.tool_use_id", block.get("tool_use_id"), "expected a non-empty str"))
        return _tool_result(index, field, block, image_tokens)
    return Success(_estimate(list(string_leaves(block, _TAG))))


def _tool_result(
    index: int, field: str, block: Mapping[str, Any], image_tokens: ImagePricer | None
) -> Result[int, AdapterError]:
    content = block.get("content")
    tokens = estimate_by_length(block["tool_use_id"])
    if content is None or isinstance(content, str):
        return Success(tokens + estimate_by_length(content or ""))
    if not isinstance(content, list | tuple):
        return Failure(MalformedMessage(index, f"{field}.content", content, "expected a str or a list of blocks"))
    for at, inner in enumerate(content):
        inner_field = f"{field}.content[{at}]"
        if not isinstance(inner, Mapping) or not isinstance(inner.get("type"), str):
            return Failure(MalformedMessage(index, inner_field, inner, "expected a content block with a str 'type'"))
        if inner["type"] == "image":
            priced = _image(index, inner_field, inner, image_tokens)
            if isinstance(priced, Failure):
                return priced
            tokens += priced.unwrap()
        else:
            tokens += _estimate(list(string_leaves(inner, _TAG)))
    return Success(tokens)


def _image(index: int, field: str, block: Mapping[str, Any], image_tokens: ImagePricer | None) -> Result[int, AdapterError]:
    if not isinstance(block.get("source"), Mapping):
        return Failure(MalformedMessage(index, f"{field}.source", block.get("source"), "expected an image source object"))
    if image_tokens is None:
        return Success(IMAGE_TOKENS)
    try:
        tokens: object = image_tokens(block)
    except Exception as exc:  # noqa: BLE001 - the caller's pricing callback; keep the cause
        return Failure(PricingFailed(index, field, f"raised {type(exc).__name__}: {exc}", exc))
    if isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 0:
        return Failure(PricingFailed(index, field, f"returned {tokens!r}; expected an int >= 0"))
    return Success(tokens)


def _groups(bills: Sequence[_Bill], whole_turns: bool) -> Result[tuple[str | None, ...], AdapterError]:
    """Each message's group: messages linked by ``tool_use`` ids and the results naming them,
    and, with ``whole_turns``, the messages of one turn."""
    groups = Groups()
    if whole_turns:
        groups.link_turns([bill.genuine_user for bill in bills], [False] * len(bills))
    open_calls: dict[str, tuple[int, str]] = {}
    seen: set[str] = set()
    for index, bill in enumerate(bills):
        for field, call_id in bill.answers:
            call = open_calls.pop(call_id, None)
            if call is None:
                return Failure(ToolResultWithoutCall(index, field, call_id))
            groups.link(call[0], index)
        for field, call_id in bill.call_ids:
            if call_id in seen:
                return Failure(DuplicateToolCall(index, field, call_id))
            seen.add(call_id)
            open_calls[call_id] = (index, field)
    if open_calls:
        call_id, (index, field) = next(iter(open_calls.items()))
        return Failure(ToolCallWithoutResult(index, field, call_id))
    return Success(groups.ids(len(bills)))


def _prior_thoughts(messages: Sequence[Mapping[str, Any]], bills: Sequence[_Bill]) -> tuple[StrippedThought, ...]:
    """Prior-turn thinking blocks, priced as they would be if they were sent."""
    thoughts: list[StrippedThought] = []
    for bill in bills:
        for index, at in bill.thoughts:
            block = messages[index]["content"][at]
            thoughts.append(StrippedThought(f"thinking@{index}.{at}", _estimate(list(string_leaves(block, _TAG)))))
    return tuple(thoughts)
