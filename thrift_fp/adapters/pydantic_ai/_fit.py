"""The Pydantic AI adapter's entry points: the fit, the count and the history processors."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import field, replace
from itertools import count
from operator import attrgetter, ne
from typing import Final

from pydantic_ai.messages import ModelMessage
from returns.result import Failure, Result, Success

from thrift_fp._value import value
from thrift_fp.adapters._core import CoreFit, Pairing, fit_rows
from thrift_fp.adapters._core import Budgeting, Checked, CounterArg, Counting, checked_budget, checked_counting
from thrift_fp.adapters._core import Pictured
from thrift_fp.adapters._core import (
    AdapterError,
    CountFailed,
    InvalidArgument,
    MalformedMessage,
    PricingFailed,
    UnreadableField,
)
from thrift_fp.adapters.pydantic_ai._price import DEFAULT_ENCODING, REPLY_PRIMING, Step, TextCounts, price, price_step, read_step
from thrift_fp.adapters.pydantic_ai._plan import plan_rows, rebuild
from thrift_fp.adapters.pydantic_ai._read import (
    MediaPricer,
    Mispriced,
    Misread,
    Read,
    instructions_source,
    read_message,
)
from thrift_fp.thrift import ThriftTrace
from thrift_fp.tokens import Precision, TokenCount


# A Pydantic AI tool call may be answered more than once (a retry, then its result), and the
# newest response's calls may still be unanswered (the run executes them next).
_PAIRING = Pairing(answer_once=False, require_answers=False, whole_turns=False)
_estimated: Final = attrgetter("estimated")


@value
class ModelMessagesFit(Pictured):
    """The fitted history and how it was fitted.

    ``messages``: what to send (see the module docstring for the one kind of new object);
    ``shed``: the input indices whose parts other than ``SystemPromptPart``\\ s were shed (their
    system parts are in ``messages``); ``trace``: thrift's trace (message ``i`` is
    ``messages[i]``; ``request`` is the request-wide cost); ``tokens``: the count as sent.

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
    messages: Checked[Sequence[ModelMessage]],
    *,
    encoding: Checked[str | None] = None,
    model: Checked[str | None] = None,
    token_counter: Checked[CounterArg | None] = None,
    media_tokens: Checked[MediaPricer | None] = None,
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
    read = _read_all(messages, encoding, model, token_counter, media_tokens)
    if isinstance(read, Failure):
        return Failure(read.failure())
    _, reads, prices, fixed, counting = read.unwrap()
    return Success(TokenCount(fixed + sum(prices), counting.name, _precision(counting, reads)))


def fit_model_messages(
    messages: Checked[Sequence[ModelMessage]],
    context_window: Checked[int | float],
    *,
    encoding: Checked[str | None] = None,
    model: Checked[str | None] = None,
    token_counter: Checked[CounterArg | None] = None,
    output_reserve: Checked[int | float | None] = None,
    reserve_fraction: Checked[float] = 0.35,
    media_tokens: Checked[MediaPricer | None] = None,
    whole_turns: Checked[bool] = True,
) -> Result[ModelMessagesFit, AdapterError]:
    """Fit ``messages`` into ``context_window`` (see the module docstring).

    ``whole_turns`` (default) keeps or sheds each turn before the newest whole (a request with
    a user prompt and every message until the next), so the kept history never starts with a
    ``ModelResponse``, which Anthropic on Bedrock and Gemini refuse; within the newest turn it
    sheds the oldest tool rounds. A history with no user prompt is one turn: kept whole, or
    `OverBudget` naming its cost. ``whole_turns=False`` sheds message by message (tool pairs
    still whole).

    >>> from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart
    >>> history = [ModelRequest.user_text_prompt("Tell me a long story. " * 40),
    ...            ModelResponse([TextPart("Once upon a time. " * 40)]),
    ...            ModelRequest.user_text_prompt("Shorter, please.")]
    >>> fitted = fit_model_messages(history, 200, output_reserve=100).unwrap()
    >>> fitted.shed, fitted.messages[0] is history[2], fitted.tokens.tokens <= fitted.trace.budget
    ((0, 1), True, True)
    """
    return _fit(messages, context_window, encoding, model, token_counter, output_reserve, reserve_fraction,
                media_tokens, whole_turns, None)


def _fit(
    messages: object, context_window: object, encoding: object, model: object, token_counter: object,
    output_reserve: object, reserve_fraction: object, media_tokens: object, whole_turns: object,
    memo: TextCounts | None,
) -> Result[ModelMessagesFit, AdapterError]:
    budget = checked_budget(context_window, output_reserve, reserve_fraction)
    if isinstance(budget, Failure):
        return Failure(budget.failure())
    if not isinstance(whole_turns, bool):
        return Failure(InvalidArgument("whole_turns", whole_turns, "expected a bool"))
    if memo is not None:
        return _carried_fit(messages, budget.unwrap(), encoding, model, token_counter, media_tokens, whole_turns, memo)
    read = _read_all(messages, encoding, model, token_counter, media_tokens)
    if isinstance(read, Failure):
        return Failure(read.failure())
    items, reads, prices, fixed, counting = read.unwrap()
    rows, _ = plan_rows(reads, prices, whole_turns)
    fitted = fit_rows(rows, fixed, budget.unwrap(), counting, _PAIRING)
    if isinstance(fitted, Failure):
        return Failure(fitted.failure())
    return Success(_fitted(items, reads, fitted.unwrap(), counting))


def _fitted(items: Sequence[ModelMessage], reads: Sequence[Read], done: CoreFit, counting: Counting) -> ModelMessagesFit:
    return ModelMessagesFit(
        rebuild(items, done.kept, reads), done.shed, done.trace,
        TokenCount(done.tokens, counting.name, _precision(counting, list(map(reads.__getitem__, done.kept)))),
    )


def _carried_fit(
    messages: object, budget: Budgeting, encoding: object, model: object, token_counter: object,
    media_tokens: object, whole_turns: bool, memo: TextCounts,
) -> Result[ModelMessagesFit, AdapterError]:
    """A processor's fit: what the previous step measured is reused where it still holds (see
    `thrift_fp.adapters.pydantic_ai._step`); the result is the same as a fresh fit's."""
    checked = _checked_inputs(messages, media_tokens)
    if isinstance(checked, Failure):
        return Failure(checked.failure())
    items, pricer = checked.unwrap()
    counting = memo.counting(model, encoding, token_counter)
    if isinstance(counting, Failure):
        return Failure(counting.failure())
    ready = counting.unwrap()
    previous = memo.step
    read = read_step(items, pricer, previous)
    if isinstance(read, Misread | Mispriced | UnreadableField):
        return Failure(_read_error(read))
    taken, reads, found = read
    priced = price_step(reads, found, previous, ready, memo)
    if isinstance(priced, Failure):
        return Failure(priced.failure())
    systems, rests, extra = priced.unwrap()
    step = Step(taken, pricer, ready, reads, systems, rests)
    # The first message whose row may differ from the previous plan's: where a read is new.
    first = found.first() if previous is not None and previous.counting is ready else 0
    rows, plan = plan_rows(reads, rests, whole_turns, None if previous is None else previous.plan, first)
    fitted = fit_rows(rows, REPLY_PRIMING + sum(systems) + extra, budget, ready, _PAIRING,
                      carry=None if previous is None else previous.core, checkpoint=plan.resume)
    if isinstance(fitted, Failure):
        memo.keep(step)
        return Failure(fitted.failure())
    done = fitted.unwrap()
    memo.keep(replace(step, plan=plan, core=done.carry))
    return Success(_fitted(items, reads, done, ready))


@value
class ThriftHistory:
    """A synchronous history processor fitting every model request into ``context_window``.

    ``on_fit`` (optional) receives each `ModelMessagesFit`, e.g. to log the trace; an exception
    it raises propagates. A failed fit raises `HistoryFitError`. The processor keeps its checked
    counting choice and the token counts of the texts it saw last, so an agent loop's next step
    tokenizes only what is new.

    >>> from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart
    >>> fit = ThriftHistory(200, output_reserve=100)
    >>> history = [ModelRequest.user_text_prompt("Hi. " * 200), ModelResponse([TextPart("Hello!")]),
    ...            ModelRequest.user_text_prompt("Again?")]
    >>> [message is history[2] for message in fit(history)]    # the first turn is shed whole
    [True]
    """

    context_window: Checked[int | float]
    encoding: Checked[str | None] = None
    model: Checked[str | None] = None
    token_counter: Checked[CounterArg | None] = None
    output_reserve: Checked[int | float | None] = None
    reserve_fraction: Checked[float] = 0.35
    media_tokens: Checked[MediaPricer | None] = None
    on_fit: Callable[[ModelMessagesFit], object] | None = None
    whole_turns: Checked[bool] = True
    _memo: TextCounts = field(default_factory=TextCounts, repr=False, compare=False)

    def fit(self, messages: Checked[list[ModelMessage]]) -> Result[ModelMessagesFit, AdapterError]:
        """`fit_model_messages` with this processor's settings (and what it carries)."""
        return _fit(messages, self.context_window, self.encoding, self.model, self.token_counter,
                    self.output_reserve, self.reserve_fraction, self.media_tokens, self.whole_turns, self._memo)

    def __call__(self, messages: list[ModelMessage]) -> list[ModelMessage]:
        """The kept messages (raises `HistoryFitError` when the fit fails)."""
        return _deliver(self.fit(messages), self.on_fit)


@value
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


_Read = tuple[Sequence[ModelMessage], tuple[Read, ...], tuple[int, ...], int, Counting]


def _checked_inputs(messages: object, media_tokens: object) -> Result[tuple[Sequence[ModelMessage], MediaPricer | None], AdapterError]:
    if not isinstance(messages, Sequence) or isinstance(messages, str | bytes):
        return Failure(InvalidArgument("messages", messages, "expected a list of ModelRequest and ModelResponse"))
    if media_tokens is not None and not callable(media_tokens):
        return Failure(InvalidArgument("media_tokens", media_tokens, "expected a callable (content item -> int) or None"))
    items: Sequence[ModelMessage] = messages
    return Success((items, media_tokens if callable(media_tokens) else None))


def _read_error(read: Misread | Mispriced | UnreadableField) -> AdapterError:
    if isinstance(read, UnreadableField):
        return read
    if isinstance(read, Misread):
        return MalformedMessage(read.index, read.field, read.value, read.reason)
    return PricingFailed(read.index, read.field, read.reason, read.cause, callback="media_tokens")


def _read_all(
    messages: object, encoding: object, model: object, token_counter: object, media_tokens: object,
) -> Result[_Read, AdapterError]:
    checked = _checked_inputs(messages, media_tokens)
    if isinstance(checked, Failure):
        return Failure(checked.failure())
    items, pricer = checked.unwrap()
    counting = checked_counting(model, encoding, token_counter, DEFAULT_ENCODING)
    if isinstance(counting, Failure):
        return Failure(counting.failure())
    reads: list[Read] = []
    for index, message in enumerate(items):
        read = read_message(index, message, pricer)
        if isinstance(read, Misread | Mispriced | UnreadableField):
            return Failure(_read_error(read))
        reads.append(read)
    source = instructions_source(reads)
    priced = price(reads, None if source is None else reads[source].instructions, counting.unwrap())
    if isinstance(priced, Failure):
        return Failure(priced.failure())
    prices, fixed = priced.unwrap()
    return Success((items, tuple(reads), prices, fixed, counting.unwrap()))


def _precision(counting: Counting, reads: Sequence[Read]) -> Precision:
    return "estimated" if counting.precision == "estimated" or any(map(_estimated, reads)) else "exact"
