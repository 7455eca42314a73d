"""Anthropic Messages: fit ``system`` plus ``messages`` (and ``tools``) into a Claude model's window.

`fit_anthropic_messages` takes what you would pass to ``client.messages.create`` — plain dicts,
with content blocks as dicts or as the SDK's own objects (``response.content``: ``TextBlock``,
``ToolUseBlock``, ``ThinkingBlock``, ... read through ``model_dump``) — and returns the same
message objects, in the same order, minus what was shed, plus thrift's trace. No third-party
package is needed.

Pairs. A ``tool_use`` block and the ``tool_result`` block answering it (by ``tool_use_id``) are a
pair; an assistant message with several ``tool_use`` blocks and the user messages holding their
results form one group, kept or shed whole. By default whole turns are (see
`fit_anthropic_messages`), so the kept messages start with a user message; when the newest turn
alone is too big, its oldest tool rounds go (whole pairs) and its opening user message stays.
The ``system`` prompt is never shed, nor is the newest message; otherwise the oldest messages go
first (message order stands for age). Trace ids: ``messages[i]``, ``request`` for the system
prompt and tools, ``thinking@<message>.<block>`` for stripped thinking.

Documents. Retrieved ``documents`` (mappings with ``content`` and optional ``id``, ``score``,
``source``, ``trust_tier``, ... or `Retrievable` records; defaults in
`thrift_fp.adapters._core._documents`) share the budget with the conversation, as in the OpenAI
adapter: ``shed_order=AGENT`` (default) sheds the lowest-scored documents before any old turn,
``RAG`` old turns first; an unscored document sheds before every scored one; with ``refill`` (on
by default) a shed document comes back whenever it fits in what the shedding left. The survivors
are rendered in trust-tier envelopes (`thrift_fp.render`) and sent, like the OpenAI adapter's
documents message, inside the request: as one more text block at the end of ``system`` (the
returned `AnthropicFit.system`; a ``str`` system becomes a list of two text blocks). Anthropic
has no system role among the messages, and a user message of documents would break the
alternation of turns, so the system prompt is where they go: the kept messages, and every
``tool_use``/``tool_result`` pair, are untouched. `AnthropicFit.documents` are the caller's own
document objects that survived (input order); in the trace a document is its record id.

Thinking blocks. Anthropic's API strips ``thinking`` and ``redacted_thinking`` blocks of earlier
turns from the context, so they cost nothing as sent: they enter thrift as prior-turn thoughts,
which its first pass strips, while the message objects that hold them are returned untouched. The
current turn (the messages after the last user message that is not only tool results) keeps its
thinking, charged as part of its messages.

Counting is an estimate, flagged ``estimated``: no Claude tokenizer is available offline. Every
text is charged ``ceil(o200k_base count x ESTIMATE_FACTOR)`` tokens. The factor, 1.4, is measured
by ``python -m benchmarks.anthropic_estimate`` (BENCHMARKS.md): a tokenizer with a ~100k
vocabulary (``cl100k_base``) counts up to 1.38x what ``o200k_base`` does (CJK; code, JSON and
prose about 1.0x), so the estimate is never below the ``o200k_base`` count of the same text and
at least the ``cl100k_base`` count on every kind sampled; English prose is over-counted (safe:
never a 400 at the budget). The old ``len / 3.5`` undercounted code, JSON and CJK. Pass
``token_counter=`` (e.g. a `TokenCounter` wrapping the API's token-counting endpoint, declared
``exact``) or ``encoding=`` to count otherwise. On top: 3 tokens of framing per message and for
the system prompt, an image's ``image_tokens`` (default 1600, the most an image costs after
Anthropic resizes it to about 1.15 megapixels), and, when tools are given, 346 tokens of tool-use
system prompt plus the estimate of each tool definition's JSON. ``model=`` is accepted for the
shared vocabulary and does not change the estimate.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from typing import Any, Final, Generic, TypeVar, ClassVar

from returns.result import Failure, Result, Success

from thrift_fp._shown import shown
from thrift_fp._value import value
from thrift_fp.adapters._core import CoreFit, Pairing, Row, StrippedThought, checked_shedding, fit_rows
from thrift_fp.adapters._core import (
    Checked,
    CounterArg,
    Counting,
    TokenCounter,
    checked_budget,
    checked_counting,
)
from thrift_fp.adapters._core import DEFAULT_TIER, Document, documents_to_records, kept_inputs, read_documents
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
from thrift_fp.adapters._core import Unread, as_mapping, entries, exact_str, json_text, leaves, non_empty_str, read_each, unreadable
from thrift_fp.records import Retrievable, TrustTier
from thrift_fp.render import NonceMode, RandomNonce
from thrift_fp.thrift import AGENT, RAG, ShedOrder, ThriftTrace
from thrift_fp.tokens import TokenCount

__all__ = [
    "ESTIMATE_FACTOR",
    "AnthropicFit",
    "Document",
    "ImagePricer",
    "System",
    "count_anthropic_tokens",
    "fit_anthropic_messages",
]

ROLES: Final = ("user", "assistant")
ESTIMATE_FACTOR: Final = 1.4
"""The default estimate: ``ceil(o200k_base count x 1.4)`` per text (module docstring)."""
TOKENS_PER_MESSAGE: Final = 3
IMAGE_TOKENS: Final = 1600
TOOL_USE_SYSTEM_PROMPT: Final = 346
_THINKING: Final = frozenset({"thinking", "redacted_thinking"})
_TAG: Final = frozenset({"type"})

_Message = TypeVar("_Message")
_T = TypeVar("_T")

ImagePricer = Callable[[Mapping[str, Any]], int]
"""Prices one ``image`` block in tokens."""

System = str | Sequence[Mapping[str, Any]] | None
"""The Anthropic ``system`` argument: a string, a list of content blocks, or ``None``."""


@value
class AnthropicFit(Generic[_Message], Pictured):
    """The fitted request: the system prompt to send (the caller's, unchanged, or with the
    surviving documents' envelopes as a last text block), the caller's message objects that stay
    (input order), the input indices shed, thrift's trace, the estimated count as sent, the
    caller's own documents that survived (input order) and their records (the trace's ids).

    >>> fitted = fit_anthropic_messages([{"role": "user", "content": "Hi"}], 100, system="Be brief.").unwrap()
    >>> fitted.shed, fitted.tokens, fitted.documents
    ((), TokenCount(tokens=13, encoding='o200k_base', precision='estimated'), ())
    """

    system: System
    messages: list[_Message]
    shed: tuple[int, ...]
    trace: ThriftTrace
    tokens: TokenCount
    documents: tuple[Document, ...] = ()
    records: tuple[Retrievable, ...] = ()

    pictured: ClassVar[str | None] = "records"


@value
class _Bill:
    role: str
    texts: tuple[str, ...]
    fixed: int
    thoughts: tuple[tuple[int, int], ...]
    call_ids: tuple[tuple[str, str], ...]
    answers: tuple[tuple[str, str], ...]
    genuine_user: bool


def _counting(model: object, encoding: object, token_counter: object) -> Result[Counting, AdapterError]:
    """The counting choice: the caller's counter, an encoding (its counts flagged estimated: it is
    not Claude's tokenizer), else the default estimate."""
    if model is not None and not isinstance(model, str):
        return Failure(InvalidArgument("model", model, "expected a str or None"))
    if token_counter is not None:
        return checked_counting(None, None, token_counter)
    if encoding is not None:
        return checked_counting(None, encoding, None, scale=1.0).map(
            lambda counting: Counting(counting.profile, counting.encoding, "estimated")
        )
    return checked_counting(None, "o200k_base", None, scale=ESTIMATE_FACTOR)


def count_anthropic_tokens(
    messages: Checked[Sequence[object]],
    *,
    system: Checked[System] = None,
    tools: Checked[Sequence[Mapping[str, Any]]] = (),
    model: Checked[str | None] = None,
    encoding: Checked[str | None] = None,
    token_counter: Checked[CounterArg | None] = None,
    image_tokens: ImagePricer | None = None,
) -> Result[TokenCount, AdapterError]:
    """The estimated tokens of a Messages request as sent, as the module docstring says.

    >>> count_anthropic_tokens([{"role": "user", "content": "Hello, Claude"}], system="Be brief.").unwrap()
    TokenCount(tokens=16, encoding='o200k_base', precision='estimated')
    """
    return _counting(model, encoding, token_counter).bind(lambda ready: _request(system, messages, tools, image_tokens, ready).map(
        lambda priced: TokenCount(priced[0] + sum(priced[2]), ready.name, ready.precision)
    ))


def fit_anthropic_messages(
    messages: Checked[Sequence[_Message]],
    context_window: Checked[int | float],
    *,
    system: Checked[System] = None,
    tools: Checked[Sequence[Mapping[str, Any]]] = (),
    output_reserve: Checked[int | float | None] = None,
    reserve_fraction: Checked[float] = 0.35,
    model: Checked[str | None] = None,
    encoding: Checked[str | None] = None,
    token_counter: Checked[CounterArg | None] = None,
    image_tokens: ImagePricer | None = None,
    whole_turns: Checked[bool] = True,
    documents: Checked[Sequence[Document]] = (),
    shed_order: Checked[ShedOrder] = AGENT,
    refill: Checked[bool] = True,
    nonce: NonceMode = RandomNonce(),
    tier: Checked[TrustTier | None] = None,
) -> Result[AnthropicFit[_Message], AdapterError]:
    """Fit ``messages`` (with ``system`` and ``tools``) into ``context_window``.

    ``whole_turns`` (default) keeps or sheds each turn whole (a user message that holds no tool
    result, and every message until the next), so the kept messages start with a user message:
    Anthropic on Amazon Bedrock (and older API versions) refuses a conversation that starts with
    an assistant message. A history with no such user message (only tool rounds) is one turn:
    kept whole, or `OverBudget` naming its cost. ``whole_turns=False`` sheds message by message
    (tool pairs still whole).

    ``documents`` share the budget (module docstring): the survivors go, rendered in trust-tier
    envelopes, into the returned ``system`` as its last text block; ``shed_order``, ``refill``,
    ``nonce`` and ``tier`` (the documents' trust tier when they name none) are the OpenAI
    adapter's.

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
    >>> fit_anthropic_messages(conversation, 200, system=5).failure().message
    'invalid system 5: expected a str, a list of text blocks or None'

    With a document: under the default ``AGENT`` order it sheds before the old turn, and
    ``refill`` takes it back once shedding the old turn left room for it:

    >>> from thrift_fp.render import KeyedNonce
    >>> refunds = {"id": "kb-refunds", "content": "Refunds take 30 days.", "score": 0.9}
    >>> fitted = fit_anthropic_messages(conversation, 300, system="Be brief.", output_reserve=100,
    ...                                 documents=[refunds], nonce=KeyedNonce(bytes(32))).unwrap()
    >>> fitted.documents[0] is refunds, fitted.shed, fitted.system[1]["text"].count("Refunds take 30 days.")
    (True, (0, 1, 2, 3), 1)
    >>> fit_anthropic_messages(conversation, 300, system="Be brief.", output_reserve=100, documents=[refunds],
    ...                        refill=False).unwrap().documents
    ()
    >>> fit_anthropic_messages(conversation, 200, documents=[{"content": ""}]).failure().message
    'documents[0].content: expected a non-empty str'
    """
    budget = checked_budget(context_window, output_reserve, reserve_fraction)
    if isinstance(budget, Failure):
        return Failure(budget.failure())
    turns: object = whole_turns  # checked here, whatever the caller passed
    if not isinstance(turns, bool):
        return Failure(InvalidArgument("whole_turns", turns, "expected a bool"))
    counting = _counting(model, encoding, token_counter)
    if isinstance(counting, Failure):
        return Failure(counting.failure())
    choice = checked_shedding(shed_order, refill, nonce)
    if isinstance(choice, Failure):
        return Failure(choice.failure())
    ready = counting.unwrap()
    priced = _request(system, messages, tools, image_tokens, ready)
    if isinstance(priced, Failure):
        return Failure(priced.failure())
    fixed, bills, prices = priced.unwrap()
    records = read_documents(documents).bind(lambda rows: documents_to_records(rows, tier))
    if isinstance(records, Failure):
        return Failure(records.failure())
    rows = [
        Row(price, bill.call_ids, bill.answers, bill.genuine_user, False, bill.role)
        for bill, price in zip(bills, prices, strict=True)
    ]
    thoughts = [StrippedThought(f"thinking@{index}.{at}") for bill in bills for index, at in bill.thoughts]
    # The documents block joins the system prompt: it costs its text, plus the system prompt's
    # framing when there was none.
    frame = TOKENS_PER_MESSAGE if system is None else 0
    fitted = fit_rows(
        rows, fixed, budget.unwrap(), ready, Pairing(whole_turns=whole_turns), thoughts=thoughts,
        documents=records.unwrap(), documents_frame=frame, shedding=choice.unwrap(),
    )
    if isinstance(fitted, Failure):
        return Failure(fitted.failure())
    return Success(_output(system, messages, documents, records.unwrap(), fitted.unwrap(), ready.name))


def _output(
    system: System, messages: Sequence[_Message], documents: Sequence[Document], records: Sequence[Retrievable],
    core: CoreFit, encoding: str,
) -> AnthropicFit[_Message]:
    """The caller's kept messages and documents, and the system prompt carrying the documents."""
    kept: list[_Message] = [messages[index] for index in core.kept]
    rendered = core.documents
    count = TokenCount(core.tokens, encoding, core.precision)
    if rendered is None or not rendered.records:
        return AnthropicFit(system, kept, core.shed, core.trace, count)
    block = {"type": "text", "text": rendered.text}
    head: list[Mapping[str, Any]] = (
        [] if system is None else [{"type": "text", "text": system}] if isinstance(system, str) else list(system)
    )
    survivors = kept_inputs(documents, records, rendered.records)
    return AnthropicFit([*head, block], kept, core.shed, core.trace, count, survivors, rendered.records)


def _request(
    system: object, messages: object, tools: object, image_tokens: ImagePricer | None, counting: Counting
) -> Result[tuple[int, tuple[_Bill, ...], tuple[int, ...]], AdapterError]:
    """The request-wide tokens (system prompt, tools), every message's bill and its price."""
    if isinstance(messages, str | bytes | Mapping) or not isinstance(messages, Sequence):
        return Failure(InvalidArgument("messages", messages, "expected a list of messages"))
    if isinstance(tools, str | bytes | Mapping) or not isinstance(tools, Sequence):
        return Failure(InvalidArgument("tools", tools, "expected a list of tool definitions"))
    system_texts = _system_texts(system)
    if isinstance(system_texts, Failure):
        return Failure(system_texts.failure())
    tool_texts = _tool_texts(tools)
    if isinstance(tool_texts, Failure):
        return Failure(tool_texts.failure())
    read: list[Mapping[str, object] | None] = []
    for index, message in enumerate(messages):
        try:
            read.append(_plain(message))
        except Unread as unread:
            return Failure(unreadable(unread, index, message))
    boundary = _turn_start(read)
    bills: list[_Bill] = []
    for index, (message, raw) in enumerate(zip(read, messages, strict=True)):
        made = _bill(index, message, raw, index < boundary, image_tokens)
        if isinstance(made, Failure):
            return Failure(made.failure())
        bills.append(made.unwrap())
    head = [*system_texts.unwrap(), *tool_texts.unwrap()]
    counted = counting.count_many([*head, *(text for bill in bills for text in bill.texts)])
    if isinstance(counted, Failure):
        return Failure(counted.failure())
    counts = counted.unwrap()
    fixed = (TOKENS_PER_MESSAGE if system is not None else 0) + (TOOL_USE_SYSTEM_PROMPT if tools else 0)
    fixed += sum(counts[: len(head)])
    prices: list[int] = []
    at = len(head)
    for bill in bills:
        prices.append(bill.fixed + sum(counts[at : at + len(bill.texts)]))
        at += len(bill.texts)
    return Success((fixed, tuple(bills), tuple(prices)))


def _system_texts(system: object) -> Result[list[str], AdapterError]:
    if system is None:
        return Success([])
    if isinstance(system, str):
        return Success([system])
    if isinstance(system, bytes | Mapping) or not isinstance(system, Sequence):
        return Failure(InvalidArgument("system", system, "expected a str, a list of text blocks or None"))
    return read_each(system, "system", "text blocks", _system_text)


def _system_text(raw: object, at: int) -> str | AdapterError:
    block = _plain_block(raw, "")
    if block is None or exact_str(block.get("type")) != "text" or not isinstance(block.get("text"), str):
        return InvalidArgument(f"system[{at}]", raw, "expected a text block")
    return str(block["text"])


def _tool_texts(tools: Sequence[object]) -> Result[list[str], AdapterError]:
    return read_each(tools, "tools", "tool definitions", _tool_text)


def _tool_text(raw: object, index: int) -> str | AdapterError:
    tool = _plain_block(raw, "")
    if tool is None or not non_empty_str(tool.get("name")):
        return InvalidTool(index, "name", raw, "expected a tool with a non-empty str name")
    problem = leaves(tool)
    text = json_text(tool) if not isinstance(problem, str) else None
    if text is None:
        return InvalidTool(index, "(tool)", shown(raw), problem if isinstance(problem, str) else "not JSON")
    return text


def _plain(raw: object) -> dict[str, object] | None:
    """A message read once through the guards (`thrift_fp.adapters._core._reads`) into plain
    dicts and lists, its content blocks too (``None`` where one is not a mapping), so that every
    later read is of the copy; a read that raises raises `Unread` naming its field."""
    given = as_mapping(raw)
    if given is None:
        return None
    message = _fields(given, "")
    content = message.get("content")
    if isinstance(content, Sequence) and not isinstance(content, str | bytes):
        message["content"] = [_plain_block(block, f"content[{at}]") for at, block in enumerate(content)]
    return message


def _plain_block(raw: object, field: str) -> dict[str, object] | None:
    """A content block (or a system block, a tool) read through the guards, with the blocks of a
    tool result's content and an image's source."""
    given = as_mapping(raw, field)
    if given is None:
        return None
    block = _fields(given, field)
    inner = block.get("content")
    if exact_str(block.get("type")) == "tool_result" and isinstance(inner, Sequence) and not isinstance(inner, str | bytes):
        block["content"] = [_plain_block(item, f"{field}.content[{at}]") for at, item in enumerate(inner)]
    source = block.get("source")
    if isinstance(source, Mapping):
        block["source"] = _fields(source, f"{field}.source")
    return block


def _fields(mapping: Mapping[str, object], field: str) -> dict[str, object]:
    """The mapping's fields as a plain dict, its str keys and values as exact ``str`` copies (a
    caller's str subclass whose ``__eq__`` or ``__hash__`` raises is never asked); a key whose
    hashing raises raises `Unread` naming the mapping."""
    pairs = entries(mapping, field)
    try:
        return {_exact(key): _exact(value) for key, value in pairs}
    except Exception as exc:  # noqa: BLE001 - a caller's key may raise anything when hashed: named, never lost
        raise Unread(field or "(keys)", exc) from exc


def _exact(value: _T) -> _T | str:
    found = exact_str(value)
    return value if found is None else found


def _blocks(content: object) -> list[Mapping[str, object] | None] | None:
    if isinstance(content, str | bytes | Mapping) or not isinstance(content, Sequence):
        return None
    return [as_mapping(block) for block in content]


def _genuine_user(message: Mapping[str, object] | None) -> bool:
    """A user message holding no tool result: it starts a turn (one that answers a tool call
    continues the turn of that call, even when it also holds text)."""
    if message is None or exact_str(message.get("role")) != "user":
        return False
    content = message.get("content")
    if isinstance(content, str):
        return True
    blocks = _blocks(content)
    return blocks is not None and not any(block is not None and exact_str(block.get("type")) == "tool_result" for block in blocks)


def _turn_start(messages: Sequence[Mapping[str, object] | None]) -> int:
    """The index of the last user message that starts a turn (0 when there is none): thinking
    before it is a prior turn's."""
    for index in range(len(messages) - 1, -1, -1):
        if _genuine_user(messages[index]):
            return index
    return 0


def _bill(
    index: int, message: Mapping[str, object] | None, raw: object, prior_turn: bool, image_tokens: ImagePricer | None
) -> Result[_Bill, AdapterError]:
    if message is None:
        return Failure(MalformedMessage(index, "(message)", raw, "expected a mapping"))
    role = message.get("role")
    # Compared only as an exact str: a caller's object whose __eq__ raises is never asked.
    if type(role) is not str or role not in ROLES:
        if role is None:
            return Failure(MalformedMessage(index, "role", None, "is required"))
        return Failure(UnknownRole(index, role, ROLES))
    assert isinstance(role, str)
    content = message.get("content")
    if isinstance(content, str):
        return Success(_Bill(role, (content,), TOKENS_PER_MESSAGE, (), (), (), role == "user"))
    blocks = _blocks(content)
    if blocks is None:
        return Failure(MalformedMessage(index, "content", content, "expected a str or a list of content blocks"))
    texts: list[str] = []
    fixed = TOKENS_PER_MESSAGE
    thoughts: list[tuple[int, int]] = []
    calls: list[tuple[str, str]] = []
    answers: list[tuple[str, str]] = []
    for at, block in enumerate(blocks):
        field = f"content[{at}]"
        if block is None or not isinstance(block.get("type"), str):
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
        block_texts, block_fixed = priced.unwrap()
        texts += block_texts
        fixed += block_fixed
        if kind == "tool_use":
            calls.append((f"{field}.id", str(block["id"])))
        elif kind == "tool_result":
            answers.append((f"{field}.tool_use_id", str(block["tool_use_id"])))
    return Success(_Bill(role, tuple(texts), fixed, tuple(thoughts), tuple(calls), tuple(answers), _genuine_user(message)))


def _block(
    index: int, field: str, role: str, block: Mapping[str, object], image_tokens: ImagePricer | None
) -> Result[tuple[list[str], int], AdapterError]:
    """One block's texts and fixed tokens, after checking the fields its type requires."""
    kind = block["type"]
    if kind == "text" and not isinstance(block.get("text"), str):
        return Failure(MalformedMessage(index, f"{field}.text", block.get("text"), "expected a str"))
    if kind == "image":
        return _image(index, field, block, image_tokens).map(lambda tokens: ([], tokens))
    if kind == "tool_use":
        if role != "assistant":
            return Failure(MalformedMessage(index, field, kind, "tool_use blocks belong to assistant messages"))
        for name in ("id", "name"):
            if not non_empty_str(block.get(name)):
                return Failure(MalformedMessage(index, f"{field}.{name}", block.get(name), "expected a non-empty str"))
        value = block.get("input", {})
        problem = leaves(value)
        arguments = json_text(value) if not isinstance(problem, str) else None
        if arguments is None:
            return Failure(MalformedMessage(index, f"{field}.input", value, problem if isinstance(problem, str) else "not JSON"))
        return Success(([str(block["id"]), str(block["name"]), arguments], 0))
    if kind == "tool_result":
        if role != "user":
            return Failure(MalformedMessage(index, field, kind, "tool_result blocks belong to user messages"))
        if not non_empty_str(block.get("tool_use_id")):
            return Failure(MalformedMessage(index, f"{field}.tool_use_id", block.get("tool_use_id"), "expected a non-empty str"))
        return _tool_result(index, field, block, image_tokens)
    found = leaves(block, _TAG)
    if isinstance(found, str):
        return Failure(MalformedMessage(index, field, block, found))
    return Success((found, 0))


def _tool_result(
    index: int, field: str, block: Mapping[str, object], image_tokens: ImagePricer | None
) -> Result[tuple[list[str], int], AdapterError]:
    content = block.get("content")
    texts = [str(block["tool_use_id"])]
    if content is None or isinstance(content, str):
        return Success(([*texts, content or ""], 0))
    inner_blocks = _blocks(content)
    if inner_blocks is None:
        return Failure(MalformedMessage(index, f"{field}.content", content, "expected a str or a list of blocks"))
    fixed = 0
    for at, inner in enumerate(inner_blocks):
        inner_field = f"{field}.content[{at}]"
        if inner is None or not isinstance(inner.get("type"), str):
            return Failure(MalformedMessage(index, inner_field, inner, "expected a content block with a str 'type'"))
        if inner["type"] == "image":
            priced = _image(index, inner_field, inner, image_tokens)
            if isinstance(priced, Failure):
                return Failure(priced.failure())
            fixed += priced.unwrap()
            continue
        found = leaves(inner, _TAG)
        if isinstance(found, str):
            return Failure(MalformedMessage(index, inner_field, inner, found))
        texts += found
    return Success((texts, fixed))


def _image(index: int, field: str, block: Mapping[str, object], image_tokens: ImagePricer | None) -> Result[int, AdapterError]:
    if not isinstance(block.get("source"), Mapping):
        return Failure(MalformedMessage(index, f"{field}.source", block.get("source"), "expected an image source object"))
    if image_tokens is None:
        return Success(IMAGE_TOKENS)
    try:
        tokens: object = image_tokens(block)
    except Exception as exc:  # noqa: BLE001 - the caller's pricing callback; keep the cause
        return Failure(PricingFailed(index, field, f"raised {type(exc).__name__}: {exc}", exc))
    if isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 0:
        return Failure(PricingFailed(index, field, f"returned {shown(tokens)}; expected an int >= 0"))
    return Success(tokens)
