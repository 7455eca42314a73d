"""Pydantic AI: a history processor that fits ``list[ModelMessage]`` into a model's window.

Needs the ``[pydantic-ai]`` extra (``pydantic-ai-slim``); ``import thrift_fp`` never imports it.
`ThriftHistory` (sync) and `AsyncThriftHistory` (async) are history processors: pass one as
``Agent(..., capabilities=[ProcessHistory(processor)])`` (Pydantic AI 2 replaced the
``history_processors=`` argument with this capability; the processor is the same).
`fit_model_messages` does the same and also returns the trace.

What is charged is what the model receives. Pydantic AI stores the agent's ``instructions`` on
every ``ModelRequest`` but sends only the ones in force, once: the newest request's (or, when the
newest request has none and only answers tool calls, the request's before it). Each part costs 3
tokens of framing (`TOKENS_PER_PART`) plus its encoded texts; every request 3 tokens of reply
priming (`REPLY_PRIMING`); the instructions in force one part's framing plus their tokens. Exact
for the encoding (``o200k_base`` unless ``encoding=`` or a known ``model=`` says otherwise; or
your ``token_counter=``), except what is priced rather than encoded: a non-text user content item
(image, audio, document, video) costs ``media_tokens`` (default `MEDIA_TOKENS`, ``estimated``), and
a part of a kind not listed in `thrift_fp.adapters._pydantic_ai_read` (or a value Pydantic AI
cannot serialise) costs its size in bytes, an over-count.

What is shed, and what never is. A ``ToolCallPart`` and the parts answering it (same
``tool_call_id``) leave together: the response holding the call and the requests answering it.
Never shed: ``SystemPromptPart``\\ s, the instructions in force, the newest request, and with
``whole_turns`` (default) the opening request of the newest turn. Otherwise the oldest messages go
first (message order stands for age): with ``whole_turns``, a whole turn at a time, and within the
newest turn a tool round at a time (a response and the requests after it), so the newest turn
alone never overruns; with ``whole_turns=False``, message by message (tool pairs still whole).

What comes back is valid for Pydantic AI and within budget. Every message is the caller's own
object, in order, except one case: a request holding a ``SystemPromptPart`` and a user prompt
whose user prompt was shed keeps its system parts, which go at the front of the next kept request
(a new ``ModelRequest`` made with ``dataclasses.replace`` of it, as Pydantic AI itself would merge
the two) or, before a response, stand as a new request of their own. So no two requests end up
adjacent (Pydantic AI would merge them) unless they were adjacent in what you passed. When the
parts that are never shed alone exceed the budget, the fit is the error value `HistoryTooLarge`
(the processors raise `HistoryFitError` holding it): never a history over budget.

Agent loops. A processor keeps the token counts of the texts it saw last, so the next step (one
more response and request) tokenizes only the new texts.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final, TypeAlias

from pydantic_ai.messages import ModelMessage
from returns.result import Failure, Result, Success

from thrift_fp._errors import ThriftFpError
from thrift_fp.adapters._a_errors import (
    AdapterError as _CoreAdapterError,
    CountFailed,
    FitFailed,
    InvalidArgument,
    MalformedMessage,
    PricingFailed,
    ToolResultWithoutCall,
)
from thrift_fp.adapters._models import UnknownModel, resolve_model
from thrift_fp.adapters._pydantic_ai_fit import REPLY_PRIMING, TextCounts, fit_rows, price
from thrift_fp.adapters._pydantic_ai_plan import plan_rows, rebuild
from thrift_fp.adapters._pydantic_ai_read import (
    MEDIA_TOKENS,
    TOKENS_PER_PART,
    MediaPricer,
    Mispriced,
    Misread,
    Read,
    instructions_source,
    read_message,
)
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
    "HistoryTooLarge",
    "InvalidArgument",
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

DEFAULT_ENCODING: Final = "o200k_base"

if TYPE_CHECKING:
    _Number: TypeAlias = int | float
else:
    # At run time any value reaches the boundary's own check, which returns an error value naming
    # the argument (a type checker still sees the number it must be).
    _Number = object


@dataclass(frozen=True, slots=True)
class HistoryTooLarge(ThriftFpError):
    """What is never shed (system prompt, instructions in force, the newest request and, with
    whole turns, the newest turn's opening request) alone exceeds the budget.

    >>> HistoryTooLarge(345, 195).message
    'the history cannot fit: what is never shed (system prompt, instructions, newest request) needs 345 tokens; the budget is 195'
    """

    floor: int
    budget: int

    @property
    def message(self) -> str:
        return (
            "the history cannot fit: what is never shed (system prompt, instructions, newest request) "
            f"needs {self.floor} tokens; the budget is {self.budget}"
        )


AdapterError = _CoreAdapterError | HistoryTooLarge


@dataclass(frozen=True, slots=True)
class ModelMessagesFit:
    """The fitted history and how it was fitted.

    ``messages``: what to send (see the module docstring for the one kind of new object);
    ``shed``: the input indices whose content was shed (a request among them that held a
    ``SystemPromptPart`` left only its user and other parts; its system parts are in
    ``messages``); ``trace``: thrift's trace; ``tokens``: the count of ``messages`` as sent.

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


def count_model_messages(
    messages: Sequence[ModelMessage],
    *,
    encoding: str | None = None,
    model: str | None = None,
    media_tokens: MediaPricer | None = None,
) -> Result[TokenCount, AdapterError]:
    """The tokens of ``messages`` as Pydantic AI sends them (see the module docstring).

    >>> from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart
    >>> count_model_messages([ModelRequest.user_text_prompt("Hello!")]).unwrap()
    TokenCount(tokens=8, encoding='o200k_base', precision='exact')
    >>> stale = [ModelRequest([UserPromptPart("Hi")], instructions="Be brief. " * 50),
    ...          ModelResponse([TextPart("ok")]), ModelRequest([UserPromptPart("Again")], instructions="Be brief.")]
    >>> count_model_messages(stale).unwrap().tokens   # only the newest request's instructions
    21
    """
    read = _read_all(messages, encoding, model, media_tokens, None)
    if isinstance(read, Failure):
        return Failure(read.failure())
    _, reads, prices, fixed, enc = read.unwrap()
    tokens = fixed + sum(system + rest for system, rest in prices)
    return Success(TokenCount(tokens, enc.name, _precision(enc, reads)))


def fit_model_messages(
    messages: Sequence[ModelMessage],
    context_window: _Number,
    *,
    encoding: str | None = None,
    model: str | None = None,
    output_reserve: _Number | None = None,
    reserve_fraction: _Number = 0.35,
    media_tokens: MediaPricer | None = None,
    whole_turns: bool = True,
) -> Result[ModelMessagesFit, AdapterError]:
    """Fit ``messages`` into ``context_window`` (see the module docstring).

    ``whole_turns`` (default) keeps or sheds each turn before the newest whole (a request with
    a user prompt and every message until the next), so the kept history never starts with a
    ``ModelResponse``, which Anthropic on Bedrock and Gemini refuse; within the newest turn it
    sheds the oldest tool rounds. ``whole_turns=False`` sheds message by message (tool pairs
    still whole).

    >>> from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart
    >>> history = [ModelRequest.user_text_prompt("Tell me a long story. " * 40),
    ...            ModelResponse([TextPart("Once upon a time. " * 40)]),
    ...            ModelRequest.user_text_prompt("Shorter, please.")]
    >>> fitted = fit_model_messages(history, 200, output_reserve=100).unwrap()
    >>> fitted.shed, fitted.messages[0] is history[2], fitted.tokens.tokens <= fitted.trace.budget
    ((0, 1), True, True)
    """
    return _fit(messages, context_window, encoding, model, output_reserve, reserve_fraction, media_tokens,
                whole_turns, None)


def _fit(
    messages: Sequence[ModelMessage], context_window: object, encoding: str | None, model: str | None,
    output_reserve: object, reserve_fraction: object, media_tokens: MediaPricer | None, whole_turns: bool,
    memo: TextCounts | None,
) -> Result[ModelMessagesFit, AdapterError]:
    checked = _budget_arguments(context_window, output_reserve, reserve_fraction)
    if checked is not None:
        return Failure(checked)
    read = _read_all(messages, encoding, model, media_tokens, memo)
    if isinstance(read, Failure):
        return Failure(read.failure())
    items, reads, prices, fixed, enc = read.unwrap()
    unanswered = _unanswered(reads)
    if unanswered is not None:
        return Failure(unanswered)
    plan = plan_rows(reads, prices, whole_turns)
    assert isinstance(context_window, int | float) and isinstance(reserve_fraction, int | float)
    assert output_reserve is None or isinstance(output_reserve, int | float)
    fitted = fit_rows(plan, fixed, context_window, output_reserve, reserve_fraction, enc.name)
    if isinstance(fitted, Failure):
        return Failure(FitFailed(fitted.failure()))
    core = fitted.unwrap()
    tokens = fixed + sum(row.tokens for at, row in enumerate(plan.rows) if at in core.kept)
    if not core.trace.fits or tokens > core.trace.budget:
        floor = fixed + sum(row.tokens for row in plan.rows if row.pinned)
        return Failure(HistoryTooLarge(max(floor, tokens), core.trace.budget))
    shed = tuple(at for at, row in enumerate(plan.main_row) if row is not None and row not in core.kept)
    kept_reads = [reads[at] for at in range(len(reads)) if at not in set(shed)]
    return Success(
        ModelMessagesFit(
            rebuild(items, plan, core.kept), shed, core.trace, TokenCount(tokens, enc.name, _precision(enc, kept_reads))
        )
    )


@dataclass(frozen=True, slots=True)
class ThriftHistory:
    """A synchronous history processor fitting every model request into ``context_window``.

    ``on_fit`` (optional) receives each `ModelMessagesFit`, e.g. to log the trace; an exception
    it raises propagates. A failed fit raises `HistoryFitError`. The processor keeps the token
    counts of the texts it saw last, so an agent loop's next step tokenizes only what is new.

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
    _memo: TextCounts = field(default_factory=TextCounts, repr=False, compare=False)

    def fit(self, messages: list[ModelMessage]) -> Result[ModelMessagesFit, AdapterError]:
        """`fit_model_messages` with this processor's settings (and its carried counts)."""
        return _fit(messages, self.context_window, self.encoding, self.model, self.output_reserve,
                    self.reserve_fraction, self.media_tokens, self.whole_turns, self._memo)

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


def _budget_arguments(context_window: object, output_reserve: object, reserve_fraction: object) -> AdapterError | None:
    for name, value, optional in (("context_window", context_window, False), ("output_reserve", output_reserve, True),
                                  ("reserve_fraction", reserve_fraction, False)):
        if value is None and optional:
            continue
        if isinstance(value, bool) or not isinstance(value, int | float):
            return InvalidArgument(name, value, "expected a number")
        if isinstance(value, float) and not math.isfinite(value):
            return InvalidArgument(name, value, "expected a finite number")
    return None


_Read = tuple[Sequence[ModelMessage], tuple[Read, ...], tuple[tuple[int, int], ...], int, TokenEncoding]


def _read_all(
    messages: object, encoding: str | None, model: str | None, media_tokens: MediaPricer | None,
    memo: TextCounts | None,
) -> Result[_Read, AdapterError]:
    if not isinstance(messages, Sequence) or isinstance(messages, str | bytes):
        return Failure(InvalidArgument("messages", messages, "expected a list of ModelRequest and ModelResponse"))
    enc = _encoding(encoding, model)
    if isinstance(enc, Failure):
        return Failure(enc.failure())
    items: Sequence[ModelMessage] = messages
    reads: list[Read] = []
    for index, message in enumerate(items):
        read = read_message(index, message, media_tokens)
        if isinstance(read, Misread):
            return Failure(MalformedMessage(read.index, read.field, read.value, read.reason))
        if isinstance(read, Mispriced):
            return Failure(PricingFailed(read.index, read.field, read.reason, read.cause))
        reads.append(read)
    source = instructions_source(reads)
    priced = price(reads, None if source is None else reads[source].instructions, enc.unwrap(), memo)
    if isinstance(priced, Failure):
        return Failure(CountFailed(priced.failure()))
    prices, fixed = priced.unwrap()
    return Success((items, tuple(reads), prices, fixed, enc.unwrap()))


def _unanswered(reads: Sequence[Read]) -> AdapterError | None:
    calls: set[str] = set()
    for index, read in enumerate(reads):
        for field_path, call_id in read.answers:
            if call_id not in calls:
                return ToolResultWithoutCall(index, field_path, call_id)
        calls.update(read.calls)
    return None


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


def _precision(enc: TokenEncoding, reads: Sequence[Read]) -> Precision:
    return "estimated" if enc.precision == "estimated" or any(read.estimated for read in reads) else "exact"
