"""OpenAI Chat Completions: fit a ``messages`` list (and its ``tools``) into a model's window.

`fit_openai_messages` takes the plain dicts you would pass to ``client.chat.completions.create``
and returns the same dict objects, in the same order, minus what was shed, plus thrift's trace.
No third-party package is needed.

What is shed, and what never is. System and developer messages are never shed, nor is the newest
message. Otherwise the oldest messages go first (message order stands for age). An assistant
message with ``tool_calls`` and every ``tool`` message answering it form one group that is kept or
shed whole: an assistant message keeps all of its tool results or leaves with them, and no result
is ever kept without its call. Retrieved ``documents`` (see `thrift_fp.adapters._a_documents` for
their defaults) are rendered in trust-tier envelopes (`thrift_fp.render`) into one message placed
where the caller chooses; the lowest-scored shed first, before any message. The documents
message's own framing (``tokens_per_message`` and its role) is charged whenever documents are
passed, so when none survives up to that many tokens of the budget stay unused. In the trace,
messages are named by their input index (``"3"``), documents by their record id.

Counting, exact for the model's encoding (the table in `thrift_fp.adapters._models`), follows
OpenAI's cookbook: per message ``tokens_per_message`` plus the encoded role, content and other
string values, ``tokens_per_name`` more for a ``name``, 3 tokens of reply priming, and the
cookbook's per-function framing for ``tools``. Beyond the cookbook, which covers only strings:
content parts count their text (``type`` tags are not counted), each tool call counts its id,
function name and arguments, and a property schema's keys other than ``type``, ``description``
and ``enum`` count their JSON text. Images are priced by ``image_tokens`` when given, else at the
most their detail level can cost (the count is then flagged ``estimated``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Generic, TypeVar

from returns.result import Failure, Result, Success

from thrift_fp.adapters._a_documents import (
    DEFAULT_DOCUMENT_TIER,
    Document,
    content_id,
    documents_to_records,
    normalised_scores,
)
from thrift_fp.adapters._a_errors import (
    AdapterError,
    CountFailed,
    DuplicateToolCall,
    FitFailed,
    InvalidArgument,
    InvalidDocument,
    InvalidTool,
    MalformedMessage,
    PricingFailed,
    ToolCallWithoutResult,
    ToolResultWithoutCall,
    UnknownRole,
)
from thrift_fp.adapters._a_fit import Budgeting, CoreFit, Groups, Priced, fit_priced
from thrift_fp.adapters._a_values import non_empty_str, string_leaves
from thrift_fp.adapters._models import MODELS, ModelProfile, UnknownModel, resolve_model
from thrift_fp.records import Retrievable, TrustTier
from thrift_fp.render import NonceMode, RandomNonce
from thrift_fp.thrift import ThriftTrace
from thrift_fp.tokens import Precision, TokenCount, TokenEncoding, get_encoding

__all__ = [
    "DEFAULT_DOCUMENT_TIER",
    "MODELS",
    "PINNED_ROLES",
    "ROLES",
    "AdapterError",
    "CountFailed",
    "Document",
    "DuplicateToolCall",
    "FitFailed",
    "ImagePricer",
    "InvalidArgument",
    "InvalidDocument",
    "InvalidTool",
    "MalformedMessage",
    "ModelProfile",
    "OpenAIFit",
    "PricingFailed",
    "ToolCallWithoutResult",
    "ToolResultWithoutCall",
    "UnknownModel",
    "UnknownRole",
    "content_id",
    "count_openai_tokens",
    "documents_to_records",
    "fit_openai_messages",
    "normalised_scores",
    "resolve_model",
]

ROLES: Final = ("system", "developer", "user", "assistant", "tool")
PINNED_ROLES: Final = frozenset({"system", "developer"})
_CONTENT_PART_TAG: Final = frozenset({"type"})
_SCHEMA_COUNTED: Final = frozenset({"type", "description", "enum"})

_Message = TypeVar("_Message", bound=Mapping[str, Any])

ImagePricer = Callable[[Mapping[str, Any]], int]
"""Prices one ``image_url`` content part in tokens (``detail`` and size are yours to read)."""


@dataclass(frozen=True, slots=True)
class OpenAIFit(Generic[_Message]):
    """The fitted request: the caller's message objects that stay (in input order, with the
    documents message inserted when documents were passed and some survive), the input indices
    that were shed, the surviving document records, thrift's trace, and the exact count of
    ``messages`` plus ``tools`` in OpenAI's framing.

    >>> fitted = fit_openai_messages([{"role": "user", "content": "Hi"}], 100, model="gpt-4o").unwrap()
    >>> fitted.shed, fitted.tokens.tokens, fitted.trace.fits
    ((), 8, True)
    """

    messages: list[_Message | dict[str, str]]
    shed: tuple[int, ...]
    documents: tuple[Retrievable, ...]
    trace: ThriftTrace
    tokens: TokenCount


@dataclass(frozen=True, slots=True)
class _Bill:
    """One message's price before counting: texts to encode, fixed tokens, tool links."""

    role: str
    texts: tuple[str, ...]
    fixed: int
    estimated: bool
    call_ids: tuple[tuple[str, str], ...]
    answers: str | None


def count_openai_tokens(
    messages: Sequence[Mapping[str, Any]],
    *,
    model: str | None = None,
    encoding: str | None = None,
    tools: Sequence[Mapping[str, Any]] = (),
    image_tokens: ImagePricer | None = None,
) -> Result[TokenCount, AdapterError]:
    """The tokens of a Chat Completions request (``messages`` and ``tools``) in OpenAI's framing.

    >>> count_openai_tokens([{"role": "user", "content": "Hello!"}], model="gpt-4o").unwrap()
    TokenCount(tokens=9, encoding='o200k_base', precision='exact')
    """
    return _setup(model, encoding).bind(
        lambda ready: _bills(messages, ready[0], image_tokens).bind(
            lambda bills: _tool_tokens(tools, ready[0], ready[1]).bind(
                lambda tool_tokens: _message_tokens(bills, ready[1]).map(
                    lambda prices: TokenCount(
                        ready[0].reply_priming + tool_tokens + sum(prices),
                        ready[1].name,
                        "estimated" if any(bill.estimated for bill in bills) else "exact",
                    )
                )
            )
        )
    )


def fit_openai_messages(
    messages: Sequence[_Message],
    context_window: int | float,
    *,
    model: str | None = None,
    encoding: str | None = None,
    tools: Sequence[Mapping[str, Any]] = (),
    output_reserve: int | float | None = None,
    reserve_fraction: float = 0.35,
    documents: Sequence[Document] = (),
    documents_at: int | None = None,
    documents_role: str = "user",
    trust_tier: TrustTier | None = None,
    nonce: NonceMode = RandomNonce(),
    image_tokens: ImagePricer | None = None,
) -> Result[OpenAIFit[_Message], AdapterError]:
    """Fit ``messages`` (with ``tools`` and any ``documents``) into ``context_window`` for ``model``.

    ``encoding`` overrides the model's encoding. ``documents_at`` is where the documents message
    goes, as an index into ``messages`` like ``list.insert`` (default: after the leading system
    and developer messages); ``documents_role`` is its role.

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
    >>> [message["role"] for message in fitted.messages], fitted.shed
    (['system', 'assistant', 'tool', 'tool', 'user'], (1,))
    >>> fitted.messages[1] is history[2], fitted.tokens.tokens <= fitted.trace.budget
    (True, True)
    """
    setup = _setup(model, encoding)
    if isinstance(setup, Failure):
        return Failure(setup.failure())
    profile, enc = setup.unwrap()
    bills = _bills(messages, profile, image_tokens)
    if isinstance(bills, Failure):
        return Failure(bills.failure())
    groups = _groups(bills.unwrap())
    if isinstance(groups, Failure):
        return Failure(groups.failure())
    priced = _message_tokens(bills.unwrap(), enc)
    if isinstance(priced, Failure):
        return Failure(priced.failure())
    tool_tokens = _tool_tokens(tools, profile, enc)
    if isinstance(tool_tokens, Failure):
        return Failure(tool_tokens.failure())
    records = documents_to_records(documents, trust_tier)
    if isinstance(records, Failure):
        return Failure(records.failure())
    place = _placement(documents_at, bills.unwrap(), groups.unwrap())
    if isinstance(place, Failure):
        return Failure(place.failure())
    if documents_role not in ROLES[:3]:
        return Failure(InvalidArgument("documents_role", documents_role, "expected system, developer or user"))
    role_tokens = enc.count(documents_role)
    if isinstance(role_tokens, Failure):
        return Failure(CountFailed(role_tokens.failure()))
    docs = records.unwrap()
    frame = profile.tokens_per_message + role_tokens.unwrap() if docs else 0
    fixed = profile.reply_priming + tool_tokens.unwrap() + frame
    units = [
        Priced(price, group, bill.role in PINNED_ROLES, bill.role)
        for price, group, bill in zip(priced.unwrap(), groups.unwrap(), bills.unwrap(), strict=True)
    ]
    fitted = fit_priced(
        units, fixed, Budgeting(context_window, output_reserve, reserve_fraction), enc.name,
        documents=docs, nonce=nonce,
    )
    if isinstance(fitted, Failure):
        return Failure(fitted.failure())
    core = fitted.unwrap()
    insert = _DocumentsMessage(documents_role, place.unwrap(), frame)
    return Success(_output(messages, bills.unwrap(), priced.unwrap(), fixed - frame, core, insert, enc.name))


@dataclass(frozen=True, slots=True)
class _DocumentsMessage:
    role: str
    place: int
    frame: int


def _output(
    messages: Sequence[_Message],
    bills: Sequence[_Bill],
    prices: Sequence[int],
    request_tokens: int,
    core: CoreFit,
    documents: _DocumentsMessage,
    encoding: str,
) -> OpenAIFit[_Message]:
    """The kept messages (and the documents message) and their exact count."""
    out: list[_Message | dict[str, str]] = [messages[index] for index in core.kept]
    records: tuple[Retrievable, ...] = ()
    tokens = request_tokens + sum(prices[index] for index in core.kept)
    rendered = core.documents
    if rendered is not None and rendered.records:
        at = sum(1 for index in core.kept if index < documents.place)
        out.insert(at, {"role": documents.role, "content": rendered.text})
        records = rendered.records
        tokens += documents.frame + rendered.tokens
    kept = set(core.kept)
    shed = tuple(index for index in range(len(messages)) if index not in kept)
    precision: Precision = "estimated" if any(bills[index].estimated for index in kept) else "exact"
    return OpenAIFit(out, shed, records, core.trace, TokenCount(tokens, encoding, precision))


def _setup(model: str | None, encoding: str | None) -> Result[tuple[ModelProfile, TokenEncoding], AdapterError]:
    profile = resolve_model(model, encoding)
    if isinstance(profile, Failure):
        return Failure(profile.failure())
    enc = get_encoding(profile.unwrap().encoding)
    if isinstance(enc, Failure):
        return Failure(CountFailed(enc.failure()))
    if enc.unwrap().precision != "exact":
        reason = "the OpenAI adapter counts with a tiktoken encoding, not a custom estimator"
        return Failure(InvalidArgument("encoding", enc.unwrap().name, reason))
    return Success((profile.unwrap(), enc.unwrap()))


def _bills(
    messages: Sequence[Mapping[str, Any]], profile: ModelProfile, image_tokens: ImagePricer | None
) -> Result[tuple[_Bill, ...], AdapterError]:
    bills: list[_Bill] = []
    for index, message in enumerate(messages):
        bill = _bill(index, message, profile, image_tokens)
        if isinstance(bill, Failure):
            return Failure(bill.failure())
        bills.append(bill.unwrap())
    return Success(tuple(bills))


def _bill(
    index: int, message: object, profile: ModelProfile, image_tokens: ImagePricer | None
) -> Result[_Bill, AdapterError]:
    if not isinstance(message, Mapping):
        return Failure(MalformedMessage(index, "(message)", message, "expected a mapping"))
    role = message.get("role")
    if role not in ROLES:
        if role is None:
            return Failure(MalformedMessage(index, "role", None, "is required"))
        return Failure(UnknownRole(index, role, ROLES))
    texts: list[str] = [role]
    fixed = profile.tokens_per_message
    estimated = False
    calls: tuple[tuple[str, str], ...] = ()
    answers: str | None = None
    for key, value in message.items():
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
            if not isinstance(value, str):
                return Failure(MalformedMessage(index, "name", value, "expected a str"))
            texts.append(value)
            fixed += profile.tokens_per_name
        elif key == "tool_calls":
            read_calls = _tool_calls(index, role, value)
            if isinstance(read_calls, Failure):
                return Failure(read_calls.failure())
            calls = read_calls.unwrap()
            texts += string_leaves(value, _CONTENT_PART_TAG)
        elif key == "tool_call_id":
            if not non_empty_str(value) or role != "tool":
                return Failure(MalformedMessage(index, "tool_call_id", value, "expected a non-empty str on a tool message"))
            answers = value
            texts.append(value)
        else:
            texts += string_leaves(value)
    missing = _missing(index, role, message, calls, answers)
    if missing is not None:
        return Failure(missing)
    return Success(_Bill(role, tuple(texts), fixed, estimated, calls, answers))


def _missing(
    index: int, role: str, message: Mapping[str, Any], calls: tuple[tuple[str, str], ...], answers: str | None
) -> AdapterError | None:
    """The required field this message lacks, if any."""
    if role == "tool" and answers is None:
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
    if isinstance(content, str):
        return Success(([content], 0, False))
    if not isinstance(content, list | tuple):
        return Failure(MalformedMessage(index, "content", content, "expected a str or a list of content parts"))
    texts: list[str] = []
    fixed = 0
    estimated = False
    for at, part in enumerate(content):
        field = f"content[{at}]"
        if not isinstance(part, Mapping) or not isinstance(part.get("type"), str):
            return Failure(MalformedMessage(index, field, part, "expected a content part with a str 'type'"))
        kind = part["type"]
        if kind == "text":
            if not isinstance(part.get("text"), str):
                return Failure(MalformedMessage(index, f"{field}.text", part.get("text"), "expected a str"))
            texts.append(part["text"])
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
            texts += string_leaves(part, _CONTENT_PART_TAG)
    return Success((texts, fixed, estimated))


def _image(
    index: int, field: str, part: Mapping[str, Any], profile: ModelProfile, image_tokens: ImagePricer | None
) -> Result[tuple[int, bool], AdapterError]:
    """An image part's tokens, and whether they are the default (estimated) price."""
    image = part.get("image_url")
    if not isinstance(image, Mapping) or not non_empty_str(image.get("url")):
        return Failure(MalformedMessage(index, f"{field}.image_url", image, "expected an object with a str 'url'"))
    detail = image.get("detail", "auto")
    if detail not in ("low", "high", "auto"):
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
    for at, call in enumerate(value):
        field = f"tool_calls[{at}]"
        if not isinstance(call, Mapping):
            return Failure(MalformedMessage(index, field, call, "expected a tool call object"))
        if not non_empty_str(call.get("id")):
            return Failure(MalformedMessage(index, f"{field}.id", call.get("id"), "expected a non-empty str"))
        kind = call.get("type", "function")
        body = call.get(kind) if isinstance(kind, str) else None
        if kind not in ("function", "custom") or not isinstance(body, Mapping) or not non_empty_str(body.get("name")):
            return Failure(MalformedMessage(index, f"{field}.{kind}", body, "expected a function (or custom) call with a str 'name'"))
        ids.append((f"{field}.id", call["id"]))
    return Success(tuple(ids))


def _groups(bills: Sequence[_Bill]) -> Result[tuple[str | None, ...], AdapterError]:
    """Each message's tool group: an assistant message with calls and the tool messages answering them."""
    groups = Groups()
    open_calls: dict[str, tuple[int, str]] = {}
    seen: set[str] = set()
    for index, bill in enumerate(bills):
        for field, call_id in bill.call_ids:
            if call_id in seen:
                return Failure(DuplicateToolCall(index, field, call_id))
            seen.add(call_id)
            open_calls[call_id] = (index, field)
        if bill.answers is not None:
            call = open_calls.pop(bill.answers, None)
            if call is None:
                return Failure(ToolResultWithoutCall(index, "tool_call_id", bill.answers))
            groups.link(call[0], index)
    if open_calls:
        call_id, (index, field) = next(iter(open_calls.items()))
        return Failure(ToolCallWithoutResult(index, field, call_id))
    return Success(groups.ids(len(bills)))


def _message_tokens(bills: Sequence[_Bill], enc: TokenEncoding) -> Result[tuple[int, ...], AdapterError]:
    """Every message's tokens, from one batch count of all their texts."""
    texts = [text for bill in bills for text in bill.texts]
    counted = enc.count_many(texts)
    if isinstance(counted, Failure):
        return Failure(CountFailed(counted.failure()))
    counts = counted.unwrap()
    prices: list[int] = []
    at = 0
    for bill in bills:
        prices.append(bill.fixed + sum(counts[at : at + len(bill.texts)]))
        at += len(bill.texts)
    return Success(tuple(prices))


def _placement(
    documents_at: int | None, bills: Sequence[_Bill], groups: Sequence[str | None]
) -> Result[int, AdapterError]:
    """Where the documents message goes, as an input index; it may not split a tool group."""
    size = len(bills)
    if documents_at is None:
        return Success(next((at for at, bill in enumerate(bills) if bill.role not in PINNED_ROLES), size))
    if isinstance(documents_at, bool) or not -size <= documents_at <= size:
        return Failure(InvalidArgument("documents_at", documents_at, f"must be an int within [{-size}, {size}]"))
    place = documents_at + size if documents_at < 0 else documents_at
    before = {group for group in groups[:place] if group is not None}
    if any(group in before for group in groups[place:]):
        return Failure(InvalidArgument("documents_at", documents_at, "falls between a tool call and its results"))
    return Success(place)


def _tool_tokens(tools: Sequence[Mapping[str, Any]], profile: ModelProfile, enc: TokenEncoding) -> Result[int, AdapterError]:
    """The cookbook's framing of function tools, plus the JSON of schema keys it leaves out."""
    if not tools:
        return Success(0)
    texts: list[str] = []
    fixed = profile.func_end
    for index, tool in enumerate(tools):
        read = _tool(index, tool, profile)
        if isinstance(read, Failure):
            return Failure(read.failure())
        tool_texts, tool_fixed = read.unwrap()
        texts += tool_texts
        fixed += tool_fixed
    counted = enc.count_many(texts)
    if isinstance(counted, Failure):
        return Failure(CountFailed(counted.failure()))
    return Success(fixed + sum(counted.unwrap()))


def _tool(index: int, tool: object, profile: ModelProfile) -> Result[tuple[list[str], int], AdapterError]:
    if not isinstance(tool, Mapping) or tool.get("type", "function") != "function":
        return Failure(InvalidTool(index, "type", tool, "expected a function tool"))
    function = tool.get("function")
    if not isinstance(function, Mapping) or not non_empty_str(function.get("name")):
        return Failure(InvalidTool(index, "function.name", function, "expected a function with a non-empty str name"))
    description = function.get("description") or ""
    parameters = function.get("parameters") or {}
    if not isinstance(description, str):
        return Failure(InvalidTool(index, "function.description", description, "expected a str"))
    properties = parameters.get("properties") or {} if isinstance(parameters, Mapping) else None
    if not isinstance(properties, Mapping):
        return Failure(InvalidTool(index, "function.parameters", parameters, "expected a JSON schema object"))
    texts = [f"{function['name']}:{_strip_period(description)}"]
    fixed = profile.func_init + (profile.prop_init if properties else 0)
    for key, schema in properties.items():
        if not isinstance(schema, Mapping):
            return Failure(InvalidTool(index, f"function.parameters.properties.{key}", schema, "expected a schema object"))
        fixed += profile.prop_key
        kind = schema.get("type", "")
        kind_text = kind if isinstance(kind, str) else json.dumps(kind)
        described = schema.get("description") or ""
        texts.append(f"{key}:{kind_text}:{_strip_period(str(described))}")
        enum = schema.get("enum")
        if isinstance(enum, list | tuple):
            fixed += profile.enum_init + profile.enum_item * len(enum)
            texts += (item if isinstance(item, str) else json.dumps(item) for item in enum)
        rest = {name: value for name, value in schema.items() if name not in _SCHEMA_COUNTED}
        if rest:
            texts.append(json.dumps(rest, sort_keys=True, default=str))
    return Success((texts, fixed))


def _strip_period(text: str) -> str:
    return text[:-1] if text.endswith(".") else text
