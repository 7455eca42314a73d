"""OpenAI Chat Completions: fit a ``messages`` list (and its ``tools``) into a model's window.

`fit_openai_messages` takes what you would pass to ``client.chat.completions.create`` — plain
dicts, or the SDK's own objects such as ``response.choices[0].message`` (a
``ChatCompletionMessage``, read through ``model_dump``) — and returns the same objects, in the
same order, minus what was shed, plus thrift's trace. No third-party package is needed.

What is shed, and what never is. System and developer messages are never shed, nor is the newest
message. Otherwise the oldest messages go first (message order stands for age). An assistant
message with ``tool_calls`` and every ``tool`` message answering it form one group that is kept or
shed whole (likewise a legacy ``function_call`` and the ``function`` message answering it), so no
call or result is ever orphaned. Retrieved ``documents`` (defaults in
`thrift_fp.adapters._core._documents`) are rendered in trust-tier envelopes (`thrift_fp.render`)
into one message placed where the caller chooses. ``shed_order=AGENT`` (default) sheds the
lowest-scored documents before any old turn, ``RAG`` old turns first; with ``refill`` (on by
default) a shed document comes back whenever it fits in what the shedding left. In the trace,
messages are ``messages[i]`` (input index), request framing ``request``, documents their ids.

The budget is a promise: the count of what is returned, as sent, is within the budget, or the
result is `OverBudget` (what cannot be shed alone is too big).

Counting, exact for the model's encoding (the table in `thrift_fp.adapters._core._models`), follows
OpenAI's cookbook: per message ``tokens_per_message`` plus the encoded role, content and other
string values, ``tokens_per_name`` more for a ``name``, 3 tokens of reply priming, and the
cookbook's per-function framing for ``tools``. Beyond the cookbook, which covers only strings:
content parts count their text (``type`` tags are not counted), each tool call counts its id,
function name and arguments, and a property schema's keys other than ``type``, ``description``
and ``enum`` count their JSON text. Images are priced by ``image_tokens`` when given, else at the
most their detail level can cost (the count is then flagged ``estimated``). ``encoding=``
overrides the model's; ``token_counter=`` counts the texts with the caller's counter (the
model still gives the framing; gpt-4o's when no model is named).

A value no request could carry (an int of more than 4,300 digits, nesting 100 levels deep, a
wrongly typed argument) is an error value naming the message index and field, or the argument.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

from itertools import accumulate, chain
from operator import add, sub
from typing import Any, Final, Generic, NamedTuple, TypeVar, ClassVar

from returns.result import Failure, Result, Success

from thrift_fp._shown import shown
from thrift_fp._value import value
from thrift_fp.adapters._core import CoreFit, Pairing, RowColumns, checked_shedding, fit_rows
from thrift_fp.adapters._core import Checked, CounterArg, Counting, TokenCounter, checked_budget, checked_counting
from thrift_fp.adapters._core import (
    DEFAULT_TIER,
    Document,
    content_id,
    documents_to_records,
    kept_inputs,
    normalised_scores,
    read_documents,
)
from thrift_fp.adapters._core import Pictured
from thrift_fp.adapters._core import (
    AdapterError,
    CountFailed,
    DuplicateToolCall,
    FitFailed,
    InvalidArgument,
    InvalidDocument,
    InvalidTool,
    MalformedMessage,
    OverBudget,
    PricingFailed,
    ToolCallWithoutResult,
    ToolResultWithoutCall,
    UnknownRole,
)
from thrift_fp.adapters._core import Unread, paused_collector, as_mapping, entries, exact_str, json_text, leaves, non_empty_str, unreadable
from thrift_fp.adapters._core import MODELS, ModelProfile, UnknownModel, resolve_model
from thrift_fp.records import Retrievable, TrustTier
from thrift_fp.render import NonceMode, RandomNonce
from thrift_fp.thrift import AGENT, RAG, ShedOrder, ThriftTrace
from thrift_fp.tokens import TokenCount

__all__ = [
    "Document",
    "ImagePricer",
    "OpenAIFit",
    "count_openai_tokens",
    "fit_openai_messages",
]

ROLES: Final = ("system", "developer", "user", "assistant", "tool", "function")
PINNED_ROLES: Final = frozenset({"system", "developer"})
_CONTENT_PART_TAG: Final = frozenset({"type"})
_SCHEMA_COUNTED: Final = frozenset({"type", "description", "enum"})

_Message = TypeVar("_Message")


ImagePricer = Callable[[Mapping[str, Any]], int]
"""Prices one ``image_url`` content part in tokens (``detail`` and size are yours to read)."""


@value
class OpenAIFit(Generic[_Message], Pictured):
    """The fitted request: the caller's message objects that stay (in input order, with the
    documents message inserted when a document survives), the input indices that were shed,
    thrift's trace, the count of ``messages`` plus ``tools`` as sent in OpenAI's framing, the
    caller's own documents that survived (input order) and their records (the trace's ids).

    >>> fitted = fit_openai_messages([{"role": "user", "content": "Hi"}], 100, model="gpt-4o").unwrap()
    >>> fitted.shed, fitted.tokens.tokens, fitted.trace.fits
    ((), 8, True)
    """

    messages: list[_Message | dict[str, str]]
    shed: tuple[int, ...]
    trace: ThriftTrace
    tokens: TokenCount
    documents: tuple[Document, ...] = ()
    records: tuple[Retrievable, ...] = ()

    pictured: ClassVar[str | None] = "records"


class _Bill(NamedTuple):
    """One message's price before counting: texts to encode, fixed tokens, tool links (a named
    tuple: one is built per message)."""

    role: str
    texts: tuple[str, ...]
    fixed: int
    estimated: bool
    call_ids: tuple[tuple[str, str], ...]
    answers: tuple[tuple[str, str], ...]


def count_openai_tokens(
    messages: Checked[Sequence[object]],
    *,
    model: Checked[str | None] = None,
    encoding: Checked[str | None] = None,
    token_counter: Checked[CounterArg | None] = None,
    tools: Checked[Sequence[Mapping[str, Any]]] = (),
    image_tokens: ImagePricer | None = None,
) -> Result[TokenCount, AdapterError]:
    """The tokens of a Chat Completions request (``messages`` and ``tools``) as sent.

    >>> count_openai_tokens([{"role": "user", "content": "Hello!"}], model="gpt-4o").unwrap()
    TokenCount(tokens=9, encoding='o200k_base', precision='exact')
    """
    counting = checked_counting(model, encoding, token_counter)
    if isinstance(counting, Failure):
        return Failure(counting.failure())
    ready = counting.unwrap()
    priced = _priced(messages, tools, ready, image_tokens)
    if isinstance(priced, Failure):
        return Failure(priced.failure())
    fixed, rows = priced.unwrap()
    estimated = ready.precision == "estimated" or any(rows.estimated)
    return Success(TokenCount(fixed + sum(rows.tokens), ready.name, "estimated" if estimated else "exact"))


def fit_openai_messages(
    messages: Checked[Sequence[_Message]],
    context_window: Checked[int | float],
    *,
    model: Checked[str | None] = None,
    encoding: Checked[str | None] = None,
    token_counter: Checked[CounterArg | None] = None,
    tools: Checked[Sequence[Mapping[str, Any]]] = (),
    output_reserve: Checked[int | float | None] = None,
    reserve_fraction: Checked[float] = 0.35,
    documents: Checked[Sequence[Document]] = (),
    documents_at: Checked[int | None] = None,
    documents_role: Checked[str] = "user",
    shed_order: Checked[ShedOrder] = AGENT,
    refill: Checked[bool] = True,
    nonce: NonceMode = RandomNonce(),
    tier: Checked[TrustTier | None] = None,
    image_tokens: ImagePricer | None = None,
    whole_turns: Checked[bool] = True,
) -> Result[OpenAIFit[_Message], AdapterError]:
    """Fit ``messages`` (with ``tools`` and any ``documents``) into ``context_window`` for ``model``.

    ``documents_at`` is where the documents message goes, as an index into ``messages`` like
    ``list.insert`` (default: after the leading system and developer messages);
    ``documents_role`` is its role; ``tier`` the documents' trust tier when they name none.

    ``whole_turns`` (default) keeps or sheds each turn before the newest whole (a ``user``
    message and every message until the next), so the kept history never opens on an answer
    or a tool call whose question was shed: after the system and developer messages, the first
    kept message is a user message. The newest turn keeps its user message and sheds its
    oldest tool rounds first; a history with no user message is kept whole or is `OverBudget`.
    ``whole_turns=False`` sheds message by message (tool pairs still whole).

    >>> history = [
    ...     {"role": "system", "content": "You are terse."},
    ...     {"role": "user", "content": "Weather in Paris? " * 30},
    ...     {"role": "assistant", "tool_calls": [
    ...         {"id": "c1", "type": "function", "function": {"name": "weather", "arguments": '{"city": "Paris"}'}},
    ...         {"id": "c2", "type": "function", "function": {"name": "weather", "arguments": '{"city": "Lyon"}'}}]},
    ...     {"role": "tool", "tool_call_id": "c1", "content": "18C, sunny"},
    ...     {"role": "tool", "tool_call_id": "c2", "content": "21C, cloudy"},
    ...     {"role": "user", "content": "And tomorrow?"},
    ... ]
    >>> fitted = fit_openai_messages(history, 160, model="gpt-4o", output_reserve=60).unwrap()
    >>> [message["role"] for message in fitted.messages], fitted.shed   # the old turn goes whole
    (['system', 'user'], (1, 2, 3, 4))
    >>> piecemeal = fit_openai_messages(history, 160, model="gpt-4o", output_reserve=60, whole_turns=False).unwrap()
    >>> [message["role"] for message in piecemeal.messages], piecemeal.shed
    (['system', 'assistant', 'tool', 'tool', 'user'], (1,))
    >>> piecemeal.messages[1] is history[2], fitted.tokens.tokens <= fitted.trace.budget
    (True, True)
    >>> fit_openai_messages(history, "160", model="gpt-4o").failure().message
    "invalid context_window '160': expected a finite number >= 0"
    """
    budget = checked_budget(context_window, output_reserve, reserve_fraction)
    if isinstance(budget, Failure):
        return Failure(budget.failure())
    turns: object = whole_turns  # checked here, whatever the caller passed
    if not isinstance(turns, bool):
        return Failure(InvalidArgument("whole_turns", turns, "expected a bool"))
    counting = checked_counting(model, encoding, token_counter)
    if isinstance(counting, Failure):
        return Failure(counting.failure())
    choice = checked_shedding(shed_order, refill, nonce)
    if isinstance(choice, Failure):
        return Failure(choice.failure())
    # The collector held off while the fit makes its per-message objects (`paused_collector`).
    with paused_collector():
        ready = counting.unwrap()
        priced = _priced(messages, tools, ready, image_tokens)
        if isinstance(priced, Failure):
            return Failure(priced.failure())
        fixed, rows = priced.unwrap()
        records = read_documents(documents).bind(lambda rows: documents_to_records(rows, tier))
        if isinstance(records, Failure):
            return Failure(records.failure())
        place = _placement(documents_at, rows)
        if isinstance(place, Failure):
            return Failure(place.failure())
        if exact_str(documents_role) not in ("system", "developer", "user"):
            return Failure(InvalidArgument("documents_role", documents_role, "expected system, developer or user"))
        frame = ready.profile.tokens_per_message + ready.count(documents_role)
        fitted = fit_rows(
            rows, fixed, budget.unwrap(), ready, Pairing(whole_turns=turns), documents=records.unwrap(), documents_frame=frame,
            shedding=choice.unwrap(),
        )
        if isinstance(fitted, Failure):
            return Failure(fitted.failure())
        return Success(_output(messages, documents, records.unwrap(), fitted.unwrap(), documents_role, place.unwrap(), ready.name))


def _output(
    messages: Sequence[_Message], documents: Sequence[Document], records: Sequence[Retrievable], core: CoreFit,
    role: str, place: int, encoding: str,
) -> OpenAIFit[_Message]:
    """The kept messages (the caller's own objects), the documents message, and the caller's kept documents."""
    out: list[_Message | dict[str, str]] = [messages[index] for index in core.kept]
    rendered = core.documents
    if rendered is not None and rendered.records:
        at = sum(1 for index in core.kept if index < place)
        out.insert(at, {"role": role, "content": rendered.text})
    count = TokenCount(core.tokens, encoding, core.precision)
    return OpenAIFit(out, core.shed, core.trace, count, kept_inputs(documents, records, core.records), core.records)


def _priced(
    messages: object, tools: object, counting: Counting, image_tokens: ImagePricer | None
) -> Result[tuple[int, RowColumns], AdapterError]:
    """The request framing (reply priming and tools) and the messages' rows, priced as sent, in
    columns (no object per message)."""
    if isinstance(messages, str | bytes | Mapping) or not isinstance(messages, Sequence):
        return Failure(InvalidArgument("messages", messages, "expected a list of messages"))
    if isinstance(tools, str | bytes | Mapping) or not isinstance(tools, Sequence):
        return Failure(InvalidArgument("tools", tools, "expected a list of tool definitions"))
    profile = counting.profile
    bills = _bills(messages, profile, image_tokens)
    if isinstance(bills, Failure):
        return Failure(bills.failure())
    tool_tokens = _tool_tokens(tools, profile, counting)
    if isinstance(tool_tokens, Failure):
        return Failure(tool_tokens.failure())
    columns = bills.unwrap()
    prices = _message_tokens(columns, counting)
    if isinstance(prices, Failure):
        return Failure(prices.failure())
    roles = columns.roles
    rows = RowColumns(
        prices.unwrap(), columns.calls, columns.answers, list(map(_USER.__eq__, roles)),
        list(map(PINNED_ROLES.__contains__, roles)), roles, columns.estimated, [None] * len(roles),
    )
    return Success((profile.reply_priming + tool_tokens.unwrap(), rows))


class _Bills(NamedTuple):
    """Every message's price before counting, column by column (no object per message): its
    role, its other texts (the run ``texts[ends[i - 1]:ends[i]]`` of one flat batch), its fixed
    tokens and its tool links."""

    roles: list[str]
    texts: list[str]
    ends: list[int]
    fixed: list[int]
    estimated: list[bool]
    calls: list[tuple[tuple[str, str], ...]]
    answers: list[tuple[tuple[str, str], ...]]


def _bills(
    messages: Sequence[object], profile: ModelProfile, image_tokens: ImagePricer | None
) -> Result[_Bills, AdapterError]:
    roles: list[str] = []
    texts: list[str] = []
    ends: list[int] = []
    # Most messages are plain (fixed framing, exact, no tool links): the other columns are filled
    # in bulk at the end. Only what differs is noted by index: the ids a plain tool result
    # answers or a plain assistant message calls (no object per message), and the bill of any
    # message the general read (`_bill`) took.
    answered: dict[int, str] = {}
    issuing: dict[int, tuple[tuple[str, str], ...]] = {}
    special: dict[int, _Bill] = {}
    open_function: list[tuple[int, str]] = []
    # (A message's role is counted from the roles column: its other texts go in the batch.)
    add_role, add_end, add_text, add_texts = roles.append, ends.append, texts.append, texts.extend
    for index, message in enumerate(messages):
        if type(message) is dict:
            # The commonest shapes of a plain dict, read inline: role and str content; a tool
            # result; an assistant message of function tool calls. They price exactly as `_bill`
            # would (properties/test_adapters_openai_read.py); anything else takes `_bill`.
            role = message.get("role")
            content = message.get("content")
            size = len(message)
            if type(role) is not str:
                pass  # any other role (a caller's object, a str subclass): the general read
            elif size == 2 and type(content) is str and role in _PLAIN_ROLES:
                add_role(role)
                add_text(content)
                add_end(len(texts))
                continue
            elif size == 3 and type(content) is str and role == "tool" and type(answer := message.get("tool_call_id")) is str and answer:
                add_role(role)
                add_texts((content, answer))
                add_end(len(texts))
                answered[index] = answer
                continue
            elif size == 3 and role == "assistant" and (content is None or type(content) is str) and "content" in message:
                read = _plain_calls(message.get("tool_calls"), [] if content is None else [content])
                if read is not None:
                    add_role(role)
                    add_texts(read[0])
                    add_end(len(texts))
                    issuing[index] = read[1]
                    continue
        try:
            bill = _bill(index, message, profile, image_tokens)
        except Unread as unread:
            return Failure(unreadable(unread, index, message))
        if isinstance(bill, Failure):
            return Failure(bill.failure())
        made = bill.unwrap()
        if made.role == "function":
            # A legacy function result answers the latest function_call still open.
            if not open_function:
                return Failure(ToolResultWithoutCall(index, "name", "function_call"))
            made = _Bill(made.role, made.texts, made.fixed, made.estimated, (), (("name", open_function.pop()[1]),))
        elif any(field == "function_call" for field, _ in made.call_ids):
            open_function.append((index, f"function_call@{index}"))
            issued = tuple((field, f"function_call@{index}" if field == "function_call" else ident) for field, ident in made.call_ids)
            made = _Bill(made.role, made.texts, made.fixed, made.estimated, issued, made.answers)
        add_role(made.role)
        # (Its role, the first text `_bill` gives, is counted from the roles column.)
        add_texts(made.texts[1:])
        add_end(len(texts))
        special[index] = made
    size = len(roles)
    fixed, estimated = [profile.tokens_per_message] * size, [False] * size
    calls: list[tuple[tuple[str, str], ...]] = [()] * size
    answers: list[tuple[tuple[str, str], ...]] = [()] * size
    for index, answer in answered.items():
        answers[index] = (("tool_call_id", answer),)
    for index, issued_ids in issuing.items():
        calls[index] = issued_ids
    for index, made in special.items():
        fixed[index], estimated[index], calls[index], answers[index] = made.fixed, made.estimated, made.call_ids, made.answers
    return Success(_Bills(roles, texts, ends, fixed, estimated, calls, answers))


_PLAIN_ROLES: Final = frozenset({"system", "developer", "user", "assistant"})
_USER: Final = "user"
# The field naming each of the first tool calls' ids (built once, not per call).
_CALL_ID_FIELDS: Final = tuple(f"tool_calls[{at}].id" for at in range(64))


def _plain_calls(calls: object, texts: list[str]) -> tuple[list[str], tuple[tuple[str, str], ...]] | None:
    """``texts`` with the texts of ``calls`` when it is a non-empty list of plain function tool
    calls (dicts of exactly ``id``, ``type`` "function" and ``function``, itself exactly a
    non-empty str ``name`` and str ``arguments``), with the ids they issue; else ``None``."""
    if type(calls) is not list or not calls:
        return None
    issues: list[tuple[str, str]] = []
    for at, call in enumerate(calls):
        # Three keys, of which these three are present: exactly these.
        if type(call) is not dict or len(call) != 3 or type(kind := call.get("type")) is not str or kind != "function":
            return None
        ident, function = call.get("id"), call.get("function")
        if type(ident) is not str or not ident or type(function) is not dict or len(function) != 2:
            return None
        name, arguments = function.get("name"), function.get("arguments")
        if type(name) is not str or not name or type(arguments) is not str:
            return None
        texts += (ident, name, arguments)
        issues.append((_CALL_ID_FIELDS[at] if at < 64 else f"tool_calls[{at}].id", ident))
    return texts, tuple(issues)


def _bill(
    index: int, raw: object, profile: ModelProfile, image_tokens: ImagePricer | None
) -> Result[_Bill, AdapterError]:
    given = as_mapping(raw)
    if given is None:
        return Failure(MalformedMessage(index, "(message)", raw, "expected a mapping or an SDK message object"))
    # Read once, key by key (a read that raises is named by its key); a plain dict from here on.
    message = dict(entries(given, ""))
    given_role = message.get("role")
    # Compared as an exact str: a caller's object (or str subclass) whose __eq__ raises is never asked.
    role = exact_str(given_role)
    if role is None or role not in ROLES:
        if given_role is None:
            return Failure(MalformedMessage(index, "role", None, "is required"))
        return Failure(UnknownRole(index, given_role, ROLES))
    texts: list[str] = [role]
    fixed = profile.tokens_per_message
    estimated = False
    calls: tuple[tuple[str, str], ...] = ()
    answers: tuple[tuple[str, str], ...] = ()
    for given_key, value in list(message.items()):
        # A key compared as an exact str (any other key is an extra field, counted as such).
        key = exact_str(given_key)
        if key == "role" or value is None:
            continue
        if key == "content":
            read = _content(index, role, value, profile, image_tokens)
            if isinstance(read, Failure):
                return Failure(read.failure())
            part_texts, part_tokens, part_estimated = read.unwrap()
            texts += part_texts
            fixed += part_tokens
            estimated = estimated or part_estimated
        elif key == "name":
            name = exact_str(value)
            if name is None:
                return Failure(MalformedMessage(index, "name", value, "expected a str"))
            texts.append(name)
            fixed += profile.tokens_per_name
        elif key == "tool_calls":
            read_calls = _tool_calls(index, role, value)
            if isinstance(read_calls, Failure):
                return Failure(read_calls.failure())
            calls = read_calls.unwrap()
            found = leaves(value, _CONTENT_PART_TAG)
            if isinstance(found, str):
                return Failure(MalformedMessage(index, "tool_calls", value, found))
            texts += found
        elif key == "tool_call_id":
            answer = exact_str(value)
            if not answer or role != "tool":
                return Failure(MalformedMessage(index, "tool_call_id", value, "expected a non-empty str on a tool message"))
            answers = (("tool_call_id", answer),)
            texts.append(answer)
        else:
            found = leaves(value)
            if isinstance(found, str):
                label: object = given_key  # a caller's mapping may have any keys
                return Failure(MalformedMessage(index, label if isinstance(label, str) else shown(label), value, found))
            texts += found
            if key == "function_call" and role == "assistant":
                calls += (("function_call", ""),)
    missing = _missing(index, role, message, calls, answers)
    if missing is not None:
        return Failure(missing)
    return Success(_Bill(role, tuple(texts), fixed, estimated, calls, answers))


def _message_tokens(bills: _Bills, counting: Counting) -> Result[tuple[int, ...], AdapterError]:
    """Every message's tokens, from one batch count of all their texts and roles. A real encoding
    counts each distinct text once (every message repeats its role, tool names recur, and a
    ``str``'s count never changes); a caller's ``token_counter`` sees every text, as it always has."""
    texts, roles = bills.texts, bills.roles
    if counting.custom:
        counted = counting.count_many([*texts, *roles])
        if isinstance(counted, Failure):
            return Failure(counted.failure())
        every = counted.unwrap()
        counts: Iterable[int] = every[:len(texts)]
        role_tokens: Iterable[int] = every[len(texts):]
    else:
        # Each distinct text counted once, then each text's count looked up by the text itself
        # (one C-level pass; a str keeps its hash, so no text is hashed twice).
        distinct = tuple(dict.fromkeys(chain(texts, roles)))
        counted = counting.count_many(distinct)
        if isinstance(counted, Failure):
            return Failure(counted.failure())
        value = dict(zip(distinct, counted.unwrap()))
        counts, role_tokens = map(value.__getitem__, texts), map(value.__getitem__, roles)
    # Each message's texts are a run of the batch: its price is its fixed tokens and its role's
    # plus the difference of the running totals at the run's ends (C-level passes, no slice
    # per message).
    totals = list(accumulate(counts, initial=0))
    at_ends = list(map(totals.__getitem__, bills.ends))
    runs = map(sub, at_ends, [0, *at_ends[:-1]])
    return Success(tuple(map(add, map(add, bills.fixed, role_tokens), runs)))


def _placement(documents_at: object, rows: RowColumns) -> Result[int, AdapterError]:
    """Where the documents message goes, as an input index; it may not split a tool group."""
    size = len(rows)
    if documents_at is None:
        return Success(next((at for at, pinned in enumerate(rows.pinned) if not pinned), size))
    if isinstance(documents_at, bool) or not isinstance(documents_at, int) or not -size <= documents_at <= size:
        return Failure(InvalidArgument("documents_at", documents_at, f"must be an int within [{-size}, {size}]"))
    place = documents_at + size if documents_at < 0 else documents_at
    before = {ident for issues in rows.issues[:place] for _, ident in issues}
    if any(ident in before for answers in rows.answers[place:] for _, ident in answers):
        return Failure(InvalidArgument("documents_at", documents_at, "falls between a tool call and its results"))
    return Success(place)


def _missing(
    index: int, role: str, message: Mapping[str, Any], calls: tuple[tuple[str, str], ...], answers: tuple[tuple[str, str], ...]
) -> AdapterError | None:
    """The required field this message lacks, if any."""
    if role == "tool" and not answers:
        return MalformedMessage(index, "tool_call_id", None, "is required on a tool message")
    has_content = message.get("content") is not None
    if role == "assistant":
        if not has_content and not calls and message.get("function_call") is None and message.get("refusal") is None:
            return MalformedMessage(index, "content", None, "an assistant message needs content, tool_calls or a refusal")
    elif not has_content:
        return MalformedMessage(index, "content", None, f"is required on a {role} message")
    return None


def _content(
    index: int, role: str, content: object, profile: ModelProfile, image_tokens: ImagePricer | None
) -> Result[tuple[list[str], int, bool], AdapterError]:
    """The texts and fixed tokens of a message's content: a str or a list of content parts."""
    text = exact_str(content)
    if text is not None:
        return Success(([text], 0, False))
    if not isinstance(content, list | tuple):
        return Failure(MalformedMessage(index, "content", content, "expected a str or a list of content parts"))
    texts: list[str] = []
    fixed = 0
    estimated = False
    for at, given in enumerate(content):
        field = f"content[{at}]"
        part = dict(entries(given, field)) if isinstance(given, Mapping) else given
        kind = exact_str(part.get("type")) if isinstance(part, Mapping) else None
        if not isinstance(part, Mapping) or kind is None:
            return Failure(MalformedMessage(index, field, part, "expected a content part with a str 'type'"))
        if kind == "text":
            text = exact_str(part.get("text"))
            if text is None:
                return Failure(MalformedMessage(index, f"{field}.text", part.get("text"), "expected a str"))
            texts.append(text)
        elif kind == "image_url":
            if role != "user":
                return Failure(MalformedMessage(index, field, kind, "image parts belong to user messages"))
            priced = _image(index, field, part, profile, image_tokens)
            if isinstance(priced, Failure):
                return Failure(priced.failure())
            tokens, default = priced.unwrap()
            fixed += tokens
            estimated = estimated or default
        else:
            found = leaves(part, _CONTENT_PART_TAG)
            if isinstance(found, str):
                return Failure(MalformedMessage(index, field, part, found))
            texts += found
    return Success((texts, fixed, estimated))


def _image(
    index: int, field: str, part: Mapping[str, Any], profile: ModelProfile, image_tokens: ImagePricer | None
) -> Result[tuple[int, bool], AdapterError]:
    """An image part's tokens, and whether they are the default (estimated) price."""
    given = part.get("image_url")
    image = dict(entries(given, f"{field}.image_url")) if isinstance(given, Mapping) else given
    if not isinstance(image, Mapping) or not non_empty_str(image.get("url")):
        return Failure(MalformedMessage(index, f"{field}.image_url", image, "expected an object with a str 'url'"))
    detail = image.get("detail", "auto")
    if exact_str(detail) not in ("low", "high", "auto"):
        return Failure(MalformedMessage(index, f"{field}.image_url.detail", detail, "expected low, high or auto"))
    if image_tokens is None:
        return Success((profile.image_low if detail == "low" else profile.image_high, True))
    try:
        tokens: object = image_tokens(part)
    except Exception as exc:  # noqa: BLE001 - the caller's pricing callback; keep the cause
        return Failure(PricingFailed(index, field, f"raised {type(exc).__name__}: {exc}", exc))
    if isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 0:
        return Failure(PricingFailed(index, field, f"returned {tokens!r}; expected an int >= 0"))
    return Success((tokens, False))


def _tool_calls(index: int, role: str, value: object) -> Result[tuple[tuple[str, str], ...], AdapterError]:
    """The ids of an assistant message's tool calls, each with its field path."""
    if role != "assistant":
        return Failure(MalformedMessage(index, "tool_calls", value, "only assistant messages make tool calls"))
    if not isinstance(value, list | tuple):
        return Failure(MalformedMessage(index, "tool_calls", value, "expected a list of tool calls"))
    ids: list[tuple[str, str]] = []
    for at, given in enumerate(value):
        field = f"tool_calls[{at}]"
        if not isinstance(given, Mapping):
            return Failure(MalformedMessage(index, field, given, "expected a tool call object"))
        call = dict(entries(given, field))
        ident = exact_str(call.get("id"))
        if not ident:
            return Failure(MalformedMessage(index, f"{field}.id", call.get("id"), "expected a non-empty str"))
        given_kind = call.get("type", "function")
        kind = exact_str(given_kind)
        inner = call.get(kind) if kind is not None else None
        body = dict(entries(inner, f"{field}.{kind}")) if isinstance(inner, Mapping) else inner
        if kind not in ("function", "custom") or not isinstance(body, Mapping) or not non_empty_str(body.get("name")):
            where = f"{field}.{kind}" if kind is not None else f"{field}.type"
            return Failure(MalformedMessage(index, where, body if kind is not None else given_kind,
                                            "expected a function (or custom) call with a str 'name'"))
        ids.append((f"{field}.id", ident))
    return Success(tuple(ids))


def _tool_tokens(tools: Sequence[object], profile: ModelProfile, counting: Counting) -> Result[int, AdapterError]:
    """The cookbook's framing of function tools, plus the JSON of schema keys it leaves out."""
    if not tools:
        return Success(0)
    texts: list[str] = []
    fixed = profile.func_end
    for index, tool in enumerate(tools):
        try:
            read = _tool(index, tool, profile)
        except Unread as unread:
            return Failure(unreadable(unread, index, tool, "tools"))
        if isinstance(read, Failure):
            return Failure(read.failure())
        tool_texts, tool_fixed = read.unwrap()
        texts += tool_texts
        fixed += tool_fixed
    counted = counting.count_many(texts)
    if isinstance(counted, Failure):
        return Failure(counted.failure())
    return Success(fixed + sum(counted.unwrap()))


def _tool(index: int, given: object, profile: ModelProfile) -> Result[tuple[list[str], int], AdapterError]:
    tool = dict(entries(given, "")) if isinstance(given, Mapping) else given
    if not isinstance(tool, Mapping) or tool.get("type", "function") != "function":
        return Failure(InvalidTool(index, "type", given, "expected a function tool"))
    inner = tool.get("function")
    function = dict(entries(inner, "function")) if isinstance(inner, Mapping) else inner
    if not isinstance(function, Mapping) or not non_empty_str(function.get("name")):
        return Failure(InvalidTool(index, "function.name", function, "expected a function with a non-empty str name"))
    description = function.get("description") or ""
    parameters = function.get("parameters") or {}
    if not isinstance(description, str):
        return Failure(InvalidTool(index, "function.description", description, "expected a str"))
    schema_of = dict(entries(parameters, "function.parameters")) if isinstance(parameters, Mapping) else None
    found = schema_of.get("properties") or {} if schema_of is not None else None
    properties = dict(entries(found, "function.parameters.properties")) if isinstance(found, Mapping) else found
    if not isinstance(properties, Mapping):
        return Failure(InvalidTool(index, "function.parameters", parameters, "expected a JSON schema object"))
    texts = [f"{function['name']}:{_strip_period(description)}"]
    fixed = profile.func_init + (profile.prop_init if properties else 0)
    for key, given_schema in properties.items():
        if not isinstance(key, str):
            return Failure(InvalidTool(index, "function.parameters.properties", shown(key), "expected str property names"))
        field = f"function.parameters.properties.{key}"
        if not isinstance(given_schema, Mapping):
            return Failure(InvalidTool(index, field, given_schema, "expected a schema object"))
        schema = dict(entries(given_schema, field))
        problem = leaves(schema)
        if isinstance(problem, str):
            return Failure(InvalidTool(index, field, schema, problem))
        fixed += profile.prop_key
        kind = schema.get("type", "")
        described = schema.get("description") or ""
        texts.append(f"{key}:{_text(kind)}:{_strip_period(_text(described))}")
        enum = schema.get("enum")
        if isinstance(enum, list | tuple):
            fixed += profile.enum_init + profile.enum_item * len(enum)
            texts += map(_text, enum)
        rest = {name: value for name, value in schema.items() if name not in _SCHEMA_COUNTED}
        if rest:
            texts.append(_text(rest))
    return Success((texts, fixed))


def _text(value: object) -> str:
    # Only called on values `leaves` accepted, so the JSON text always exists.
    if isinstance(value, str):
        return value
    text = json_text(value)
    return text if text is not None else ""


def _strip_period(text: str) -> str:
    return text[:-1] if text.endswith(".") else text
