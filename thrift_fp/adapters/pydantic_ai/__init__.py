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
for the encoding (``o200k_base`` unless ``encoding=`` or a known ``model=`` says otherwise, or
your ``token_counter=``: a callable, or a `TokenCounter` declaring its counts' precision), except
what is priced rather than encoded: a non-text user content item (image, audio, document, video)
costs ``media_tokens`` (default `MEDIA_TOKENS`, ``estimated``), and a part of a kind not listed
in `thrift_fp.adapters.pydantic_ai._read` (or a value Pydantic AI cannot serialise) costs its
size in bytes, an over-count.

What is shed, and what never is. A ``ToolCallPart`` and the parts answering it (same
``tool_call_id``) leave together: the response holding the call and the requests answering it.
Never shed: ``SystemPromptPart``\\ s, the instructions in force, the newest request, and with
``whole_turns`` (default) the opening request of the newest turn. Otherwise the oldest messages go
first (message order stands for age): with ``whole_turns``, a whole turn at a time, and within the
newest turn a tool round at a time (a response and the requests after it), so the newest turn
alone never overruns; with ``whole_turns=False``, message by message (tool pairs still whole).
A request that answers a call also keeps the response holding it: with an output tool (a
structured ``output_type``), Pydantic AI puts the previous run's final-result return in the next
run's first request, so with whole turns the turn before the newest stays too.

What comes back is valid for Pydantic AI and within budget. Every message is the caller's own
object, in order, except one case: a request holding a ``SystemPromptPart`` and a user prompt
whose user prompt was shed keeps its system parts, which go at the front of the next kept request
(a new ``ModelRequest`` made with ``dataclasses.replace`` of it, as Pydantic AI itself would merge
the two) or, before a response, stand as a new request of their own. So no two requests end up
adjacent (Pydantic AI would merge them) unless they were adjacent in what you passed. When the
parts that are never shed alone exceed the budget, the fit is the error value `OverBudget` (the
processors raise `HistoryFitError` holding it): never a history over budget. Every other problem
is an error value too, naming the message and part (``messages[3].parts[1].content``) or the
argument (a ``str`` budget is an `InvalidArgument`).

Agent loops. A processor carries what it measured to its next call: each message's reading and
price, the plan's rows, the core's groups and priced messages, and the token counts of the texts
it saw. The next step (one more response and request) reads, prices and tokenizes only what is new
or was edited in place since (a message, part, parts list or field replaced; a container mutated
in place inside a part, such as a tool call's ``args`` dict changed key by key, is not noticed:
replace it instead), and the result is the same as a fresh fit's.
"""

from thrift_fp.adapters._core import (
    AdapterError,
    CountFailed,
    DuplicateToolCall,
    FitFailed,
    InvalidArgument,
    MalformedMessage,
    OverBudget,
    PricingFailed,
    TokenCounter,
    ToolResultWithoutCall,
    UnknownModel,
)
from thrift_fp.adapters.pydantic_ai._fit import (
    AsyncThriftHistory,
    HistoryFitError,
    ModelMessagesFit,
    ThriftHistory,
    count_model_messages,
    fit_model_messages,
)
from thrift_fp.adapters.pydantic_ai._price import (
    DEFAULT_ENCODING,
    REPLY_PRIMING,
)
from thrift_fp.adapters.pydantic_ai._read import (
    MEDIA_TOKENS,
    TOKENS_PER_PART,
    MediaPricer,
)

__all__ = [
    "AsyncThriftHistory",
    "HistoryFitError",
    "MediaPricer",
    "ModelMessagesFit",
    "ThriftHistory",
    "count_model_messages",
    "fit_model_messages",
]
