"""Pydantic AI: a history processor that fits ``list[ModelMessage]`` into a model's window.

Needs the ``[pydantic-ai]`` extra (``pydantic-ai-slim``); ``import thrift_fp`` never imports it.
`ThriftHistory` (sync) and `AsyncThriftHistory` (async) are history processors: pass one as
``Agent(..., capabilities=[ProcessHistory(processor)])`` (Pydantic AI 2 replaced the
``history_processors=`` argument with this capability; the processor is the same). Each returns the same message objects, in the same order, minus what was shed;
`fit_model_messages` does the same and also returns the trace.

What is shed, and what never is. A ``ToolCallPart`` and the ``ToolReturnPart`` or
``RetryPromptPart`` answering it (same ``tool_call_id``) leave together: the response holding
the call and the requests holding its answers form one group, kept or shed whole. Never shed: a
request holding a ``SystemPromptPart`` (the system prompt would be lost), the newest request and
the newest message. Otherwise the oldest messages go first (message order stands for age), a
whole turn at a time by default (see `fit_model_messages`).

Counting (exact for the encoding, ``o200k_base`` unless ``encoding=`` or a known ``model=`` says
otherwise): 3 tokens of framing per part (most providers send each part as its own message or
block) and 3 tokens of reply priming, plus the encoded texts: system and user prompt text, a
request's ``instructions``, text and thinking content, a tool call's name, id and JSON arguments,
a tool return's name, id and ``model_response_str()``, a retry prompt's name, id and
``model_response()``. A non-text user content item (image, audio, document, video) costs
``media_tokens`` (default 1600, making the count ``estimated``); a part of any other kind costs
the tokens of its ``repr`` (an over-count, never an under-count of what it holds).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    SystemPromptPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from returns.result import Failure, Result, Success

from thrift_fp.adapters._a_errors import (
    AdapterError,
    CountFailed,
    FitFailed,
    MalformedMessage,
    PricingFailed,
    ToolResultWithoutCall,
)
from thrift_fp.adapters._a_fit import Budgeting, Groups, Priced, fit_priced
from thrift_fp.adapters._models import UnknownModel, resolve_model
from thrift_fp.thrift import ThriftTrace
from thrift_fp.tokens import Precision, TokenCount, TokenEncoding, get_encoding

__all__ = [
    "DEFAULT_ENCODING",
    "MEDIA_TOKENS",
    "REPLY_PRIMING",
    "TOKENS_PER_PART",
    "AdapterError",
    "AsyncThriftHistory",
    "CountFailed",
    "FitFailed",
    "HistoryFitError",
    "MalformedMessage",
    "MediaPricer",
    "ModelMessagesFit",
    "PricingFailed",
    "ThriftHistory",
    "ToolResultWithoutCall",
    "UnknownModel",
    "count_model_messages",
    "fit_model_messages",
]

TOKENS_PER_PART: Final = 3
REPLY_PRIMING: Final = 3
MEDIA_TOKENS: Final = 1600
DEFAULT_ENCODING: Final = "o200k_base"
_FIT_ENCODING: Final = "cl100k_base"

MediaPricer = Callable[[object], int]
"""Prices one non-text user content item (an ``ImageUrl``, ``BinaryContent``, ...) in tokens."""


@dataclass(frozen=True, slots=True)
class ModelMessagesFit:
    """The fitted history: the caller's messages that stay (input order), the input indices
    shed, thrift's trace, and the count of the kept messages.

    >>> from pydantic_ai.messages import ModelRequest
    >>> fitted = fit_model_messages([ModelRequest.user_text_prompt("Hi")], 100).unwrap()
    >>> fitted.shed, fitted.tokens.tokens
    ((), 7)
    """

    messages: list[ModelMessage]
    shed: tuple[int, ...]
    trace: ThriftTrace
    tokens: TokenCount


class HistoryFitError(Exception):
    """A history processor could not fit the messages; ``error`` is the error value.

    Raised only by the processors: Pydantic AI gives a history processor no other way to fail.

    >>> from pydantic_ai.messages import ModelRequest
    >>> try:
    ...     ThriftHistory(100, encoding="nope")([ModelRequest.user_text_prompt("Hi")])
    ... except HistoryFitError as failed:
    ...     print(type(failed.error).__name__)
    CountFailed
    """

    def __init__(self, error: AdapterError) -> None:
        super().__init__(error.message)
        self.error = error


@dataclass(frozen=True, slots=True)
class _Bill:
    texts: tuple[str, ...]
    fixed: int
    estimated: bool
    calls: tuple[str, ...]
    answers: tuple[tuple[str, str], ...]
    pinned: bool
    prompt: bool


def count_model_messages(
    messages: Sequence[ModelMessage],
    *,
    encoding: str | None = None,
    model: str | None = None,
    media_tokens: MediaPricer | None = None,
) -> Result[TokenCount, AdapterError]:
    """The tokens of ``messages`` in the framing of the module docstring.

    >>> from pydantic_ai.messages import ModelRequest
    >>> count_model_messages([ModelRequest.user_text_prompt("Hello!")]).unwrap()
    TokenCount(tokens=8, encoding='o200k_base', precision='exact')
    """
    enc = _encoding(encoding, model)
    if isinstance(enc, Failure):
        return Failure(enc.failure())
    bills = _bills(messages, media_tokens)
    if isinstance(bills, Failure):
        return Failure(bills.failure())
    prices = _prices(bills.unwrap(), enc.unwrap())
    return prices.map(
        lambda counted: TokenCount(REPLY_PRIMING + sum(counted), enc.unwrap().name, _precision(enc.unwrap(), bills.unwrap()))
    )


def fit_model_messages(
    messages: Sequence[ModelMessage],
    context_window: int | float,
    *,
    encoding: str | None = None,
    model: str | None = None,
    output_reserve: int | float | None = None,
    reserve_fraction: float = 0.35,
    media_tokens: MediaPricer | None = None,
    whole_turns: bool = True,
) -> Result[ModelMessagesFit, AdapterError]:
    """Fit ``messages`` into ``context_window`` (see the module docstring).

    ``whole_turns`` (default) keeps or sheds each turn whole (a request with a user prompt and
    every message until the next), so the kept history never starts with a ``ModelResponse``,
    which Anthropic on Bedrock and Gemini refuse; ``whole_turns=False`` sheds message by message
    (tool pairs still whole).

    >>> from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart
    >>> history = [ModelRequest.user_text_prompt("Tell me a long story. " * 40),
    ...            ModelResponse([TextPart("Once upon a time. " * 40)]),
    ...            ModelRequest.user_text_prompt("Shorter, please.")]
    >>> fitted = fit_model_messages(history, 200, output_reserve=100).unwrap()
    >>> fitted.shed, fitted.messages[0] is history[2], fitted.tokens.tokens <= fitted.trace.budget
    ((0, 1), True, True)
    """
    enc = _encoding(encoding, model)
    if isinstance(enc, Failure):
        return Failure(enc.failure())
    bills = _bills(messages, media_tokens)
    if isinstance(bills, Failure):
        return Failure(bills.failure())
    groups = _groups(bills.unwrap(), whole_turns)
    if isinstance(groups, Failure):
        return Failure(groups.failure())
    prices = _prices(bills.unwrap(), enc.unwrap())
    if isinstance(prices, Failure):
        return Failure(prices.failure())
    units = [
        Priced(price, group, bill.pinned, "request" if isinstance(message, ModelRequest) else "response")
        for price, group, bill, message in zip(prices.unwrap(), groups.unwrap(), bills.unwrap(), messages, strict=True)
    ]
    fitted = fit_priced(units, REPLY_PRIMING, Budgeting(context_window, output_reserve, reserve_fraction), _FIT_ENCODING)
    if isinstance(fitted, Failure):
        return Failure(fitted.failure())
    core = fitted.unwrap()
    kept = set(core.kept)
    tokens = REPLY_PRIMING + sum(prices.unwrap()[index] for index in core.kept)
    precision = _precision(enc.unwrap(), [bills.unwrap()[index] for index in core.kept])
    return Success(
        ModelMessagesFit(
            [messages[index] for index in core.kept],
            tuple(index for index in range(len(messages)) if index not in kept),
            core.trace,
            TokenCount(tokens, enc.unwrap().name, precision),
        )
    )


@dataclass(frozen=True, slots=True)
class ThriftHistory:
    """A synchronous history processor fitting every model request into ``context_window``.

    ``on_fit`` (optional) receives each `ModelMessagesFit`, e.g. to log the trace; an exception
    it raises propagates. A failed fit raises `HistoryFitError`.

    >>> from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart
    >>> fit = ThriftHistory(200, output_reserve=100)
    >>> history = [ModelRequest.user_text_prompt("Hi. " * 200), ModelResponse([TextPart("Hello!")]),
    ...            ModelRequest.user_text_prompt("Again?")]
    >>> [message is history[2] for message in fit(history)]    # the first turn is shed whole
    [True]
    """

    context_window: int | float
    encoding: str | None = None
    model: str | None = None
    output_reserve: int | float | None = None
    reserve_fraction: float = 0.35
    media_tokens: MediaPricer | None = None
    on_fit: Callable[[ModelMessagesFit], object] | None = None
    whole_turns: bool = True

    def fit(self, messages: list[ModelMessage]) -> Result[ModelMessagesFit, AdapterError]:
        """`fit_model_messages` with this processor's settings."""
        return fit_model_messages(
            messages, self.context_window, encoding=self.encoding, model=self.model,
            output_reserve=self.output_reserve, reserve_fraction=self.reserve_fraction,
            media_tokens=self.media_tokens, whole_turns=self.whole_turns,
        )

    def __call__(self, messages: list[ModelMessage]) -> list[ModelMessage]:
        """The kept messages (raises `HistoryFitError` when the fit fails)."""
        return _deliver(self.fit(messages), self.on_fit)


@dataclass(frozen=True, slots=True)
class AsyncThriftHistory:
    """`ThriftHistory` as an async history processor: the fit runs in a worker thread, so a long
    history is counted without blocking the event loop.

    >>> import asyncio
    >>> from pydantic_ai.messages import ModelRequest
    >>> history = [ModelRequest.user_text_prompt("Hi")]
    >>> asyncio.run(AsyncThriftHistory(ThriftHistory(1000))(history))[0] is history[0]
    True
    """

    settings: ThriftHistory

    async def __call__(self, messages: list[ModelMessage]) -> list[ModelMessage]:
        """The kept messages (raises `HistoryFitError` when the fit fails)."""
        fitted = await asyncio.to_thread(self.settings.fit, messages)
        return _deliver(fitted, self.settings.on_fit)


def _deliver(
    fitted: Result[ModelMessagesFit, AdapterError], on_fit: Callable[[ModelMessagesFit], object] | None
) -> list[ModelMessage]:
    if isinstance(fitted, Failure):
        raise HistoryFitError(fitted.failure())
    done = fitted.unwrap()
    if on_fit is not None:
        on_fit(done)
    return done.messages


def _encoding(encoding: str | None, model: str | None) -> Result[TokenEncoding, AdapterError]:
    name = encoding
    if name is None and model is not None:
        profile = resolve_model(model)
        if isinstance(profile, Failure):
            return Failure(profile.failure())
        name = profile.unwrap().encoding
    resolved = get_encoding(name if name is not None else DEFAULT_ENCODING)
    if isinstance(resolved, Failure):
        return Failure(CountFailed(resolved.failure()))
    return Success(resolved.unwrap())


def _precision(enc: TokenEncoding, bills: Sequence[_Bill]) -> Precision:
    return "estimated" if enc.precision == "estimated" or any(bill.estimated for bill in bills) else "exact"


def _bills(messages: Sequence[ModelMessage], media_tokens: MediaPricer | None) -> Result[tuple[_Bill, ...], AdapterError]:
    newest_request = max((at for at, message in enumerate(messages) if isinstance(message, ModelRequest)), default=-1)
    bills: list[_Bill] = []
    items: Sequence[object] = messages  # each is checked: the annotation is a promise, not a guarantee
    for index, message in enumerate(items):
        if not isinstance(message, ModelRequest | ModelResponse):
            return Failure(MalformedMessage(index, "(message)", type(message).__name__, "expected a ModelRequest or ModelResponse"))
        # The newest message is never shed anyway; pinning it too would also protect the one before.
        pin = index == newest_request and index != len(messages) - 1
        bill = _bill(index, message, media_tokens, pin)
        if isinstance(bill, Failure):
            return Failure(bill.failure())
        bills.append(bill.unwrap())
    return Success(tuple(bills))


def _bill(
    index: int, message: ModelRequest | ModelResponse, media_tokens: MediaPricer | None, newest_request: bool
) -> Result[_Bill, AdapterError]:
    texts: list[str] = []
    fixed = 0
    estimated = False
    calls: list[str] = []
    answers: list[tuple[str, str]] = []
    pinned = newest_request
    prompt = False
    instructions = getattr(message, "instructions", None)
    if isinstance(instructions, str):
        texts.append(instructions)
    parts: Sequence[object] = message.parts
    for at, part in enumerate(parts):
        fixed += TOKENS_PER_PART
        field = f"parts[{at}]"
        if isinstance(part, SystemPromptPart):
            pinned = True
            texts.append(part.content)
        elif isinstance(part, UserPromptPart):
            prompt = True
            read = _user_content(index, field, part.content, media_tokens)
            if isinstance(read, Failure):
                return Failure(read.failure())
            part_texts, part_fixed, part_estimated = read.unwrap()
            texts += part_texts
            fixed += part_fixed
            estimated = estimated or part_estimated
        elif isinstance(part, TextPart | ThinkingPart):
            texts.append(part.content)
        elif isinstance(part, ToolCallPart):
            texts += (part.tool_name, part.tool_call_id, part.args_as_json_str())
            calls.append(part.tool_call_id)
        elif isinstance(part, ToolReturnPart):
            texts += (part.tool_name, part.tool_call_id, part.model_response_str())
            answers.append((f"{field}.tool_call_id", part.tool_call_id))
        elif isinstance(part, RetryPromptPart):
            texts += (part.tool_name or "", part.tool_call_id, part.model_response())
            if part.tool_name is not None:
                answers.append((f"{field}.tool_call_id", part.tool_call_id))
        else:
            texts.append(repr(part))
    return Success(_Bill(tuple(texts), fixed, estimated, tuple(calls), tuple(answers), pinned, prompt))


def _user_content(
    index: int, field: str, content: object, media_tokens: MediaPricer | None
) -> Result[tuple[list[str], int, bool], AdapterError]:
    if isinstance(content, str):
        return Success(([content], 0, False))
    texts: list[str] = []
    fixed = 0
    estimated = False
    items: Sequence[object] = content if isinstance(content, Sequence) else (content,)
    for at, item in enumerate(items):
        if isinstance(item, str):
            texts.append(item)
            continue
        if media_tokens is None:
            fixed += MEDIA_TOKENS
            estimated = True
            continue
        try:
            tokens: object = media_tokens(item)
        except Exception as exc:  # noqa: BLE001 - the caller's pricing callback; keep the cause
            return Failure(PricingFailed(index, f"{field}.content[{at}]", f"raised {type(exc).__name__}: {exc}", exc))
        if isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 0:
            return Failure(PricingFailed(index, f"{field}.content[{at}]", f"returned {tokens!r}; expected an int >= 0"))
        fixed += tokens
    return Success((texts, fixed, estimated))


def _groups(bills: Sequence[_Bill], whole_turns: bool) -> Result[tuple[str | None, ...], AdapterError]:
    """Each message's group: the response holding a call and the requests answering it, and,
    with ``whole_turns``, the messages of one turn (from a request with a user prompt)."""
    groups = Groups()
    if whole_turns:
        groups.link_turns([bill.prompt for bill in bills], [bill.pinned for bill in bills])
    calls: dict[str, int] = {}
    for index, bill in enumerate(bills):
        for field, call_id in bill.answers:
            if call_id not in calls:
                return Failure(ToolResultWithoutCall(index, field, call_id))
            groups.link(calls[call_id], index)
        for call_id in bill.calls:
            calls[call_id] = index
    return Success(groups.ids(len(bills)))


def _prices(bills: Sequence[_Bill], enc: TokenEncoding) -> Result[tuple[int, ...], AdapterError]:
    counted = enc.count_many([text for bill in bills for text in bill.texts])
    if isinstance(counted, Failure):
        return Failure(CountFailed(counted.failure()))
    counts = counted.unwrap()
    prices: list[int] = []
    at = 0
    for bill in bills:
        prices.append(bill.fixed + sum(counts[at : at + len(bill.texts)]))
        at += len(bill.texts)
    return Success(tuple(prices))
