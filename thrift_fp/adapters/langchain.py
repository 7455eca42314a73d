"""LangChain adapter: fit message lists and ``Document`` lists, get the same objects back.

Needs the ``[langchain]`` extra (``langchain-core``). Entry points, all with the shared budget
vocabulary (``context_window``, ``output_reserve``, ``reserve_fraction``) and counting choice
(``model=``, ``encoding=``, ``token_counter=``):

- `fit_messages`: a score-aware, pair-safe counterpart of ``trim_messages(strategy="last")``.
  It takes what ``trim_messages`` takes — ``BaseMessage`` objects, ``{"role", "content"}`` dicts,
  ``(role, content)`` tuples, strings — and returns the caller's own objects. It sheds the oldest
  messages first, but an ``AIMessage`` and the ``ToolMessage`` results of its ``tool_calls``
  leave together (all of them, however many calls it made), so no tool call or result is ever
  orphaned. Retrieved ``documents`` share the budget, rendered in trust-tier envelopes (the
  ``text`` to put in your prompt, priced as rendered): ``shed_order=AGENT`` (default) sheds the
  lowest ``relevance_score`` first, ``RAG`` old turns first, and with ``refill`` (on by default) a
  shed document comes back whenever it fits in what is left. System messages are never shed
  (``keep_system=True``).
- `fitting_runnable`: the same as a ``Runnable``, to drop into an LCEL chain.
- `fit_documents`: fit documents alone, rendered in envelopes.
- `ThriftDocumentCompressor`: a ``BaseDocumentCompressor`` keeping the documents that fit in
  ``max_tokens`` (the compressor's own field: the tokens the documents' ``page_content`` may take,
  since the chain formats them itself), lowest score first.

**What a message costs** (`message_text`; the framing every count here uses): the count of one
text per message,

    <role>[ <name>][ <tool_call_id>]
    <content>
    <one JSON line {"id", "name", "args"} per tool call and invalid tool call>

where the role is ``user``, ``assistant``, ``system``, ``tool``, ``function``, or a
``ChatMessage``'s own role; list content keeps its text parts (``str`` items, ``text`` and
``reasoning`` blocks) joined by newlines and shows any other block as ``[<type>]``. The count is
exact for the encoding: ``model=`` picks it from the one model table (``o200k_base`` for gpt-4o,
where ``cl100k_base`` over-counts by about 6.5%), ``encoding=`` names it, ``token_counter=`` is
your own counter of a text; with none of them, ``cl100k_base``.

**Defaults for what LangChain objects lack** (`thrift_fp.adapters._core._documents`): message
order stands for age; a ``Document`` without ``id`` gets a content-hash id; ``relevance_score``
values outside [0, 1] are min-max rescaled over the call, and an unscored document sheds before
every scored one. Trace ids: ``messages[i]`` and the document ids. Bad input is an error value
naming the message index and field; a budget too small for what cannot be shed is `OverBudget`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from typing import Any, Final, ClassVar

from langchain_core.callbacks import Callbacks
from langchain_core.documents import BaseDocumentCompressor, Document
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    ChatMessage,
    FunctionMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    convert_to_messages,
)
from langchain_core.prompt_values import PromptValue
from langchain_core.runnables import Runnable, RunnableLambda
from returns.result import Failure, Result

from thrift_fp._value import value
from thrift_fp.adapters._core import Pairing, Row, checked_shedding, counted_rows, fit_rows_and_documents
from thrift_fp.adapters._core import Checked, CounterArg, Counting, TokenCounter, checked_budget, checked_counting
from thrift_fp.adapters._core import DocumentRow
from thrift_fp.adapters._core import Pictured
from thrift_fp.adapters._core import (
    AdapterError,
    AdapterFitError,
    DuplicateToolCall,
    FitFailed,
    InvalidArgument,
    InvalidDocument,
    MalformedMessage,
    OverBudget,
    ToolResultWithoutCall,
    UnknownRole,
)
from thrift_fp.adapters._core import attr, call_line, entries, exact_str, got, leaves, read_each
from thrift_fp.records import TrustTier
from thrift_fp.render import NonceMode, RandomNonce
from thrift_fp.thrift import AGENT, RAG, ShedOrder, ThriftTrace
from thrift_fp.tokens import TokenCount

__all__ = [
    "FittedDocuments",
    "FittedMessages",
    "ThriftDocumentCompressor",
    "count_messages",
    "fit_documents",
    "fit_messages",
    "fitting_runnable",
    "message_text",
]

DEFAULT_ENCODING: Final = "cl100k_base"
_CALLS: Final = "tool_calls"
_ANSWER: Final = "tool_call_id"
# Checked in this order: subclasses (chunks) match their base kind.
_KINDS: Final[tuple[tuple[type[BaseMessage], str], ...]] = (
    (HumanMessage, "user"),
    (AIMessage, "assistant"),
    (SystemMessage, "system"),
    (ToolMessage, "tool"),
    (FunctionMessage, "function"),
)
_KNOWN: Final = ("human", "ai", "system", "tool", "function", "chat")
_ROLE_OF: Final[dict[type, str]] = {kind: name for kind, name in _KINDS}
# LangChain's tool pairing: one call may be answered by several results; an unanswered call is
# an agent's state before its tools ran.
_PAIRING: Final = Pairing(answer_once=False, require_answers=False)


@value
class FittedMessages(Pictured):
    """The caller's own messages and documents that survived (input order), the surviving
    documents rendered in trust-tier envelopes (``""`` when none), the count as sent of the
    messages plus that text, and the trace.

    >>> fitted = fit_messages([("user", "hi")], 100).unwrap()
    >>> fitted.messages, fitted.text, fitted.tokens.tokens
    ((('user', 'hi'),), '', 3)
    """

    messages: tuple[Any, ...]
    documents: tuple[Document, ...]
    text: str
    tokens: TokenCount
    trace: ThriftTrace

    pictured: ClassVar[str | None] = "documents"


@value
class FittedDocuments(Pictured):
    """The caller's own documents that survived (input order), their rendered text (``""`` when
    not rendered), the count as sent, and the trace.

    >>> from langchain_core.documents import Document
    >>> fit_documents([Document("Refunds take five days.")], 100, render=False).unwrap().tokens.tokens
    6
    """

    documents: tuple[Document, ...]
    text: str
    tokens: TokenCount
    trace: ThriftTrace

    pictured: ClassVar[str | None] = "documents"


def _content(content: object, index: int) -> str | AdapterError:
    """The text of non-str content (a list of str items and dict blocks)."""
    if not isinstance(content, list):
        return MalformedMessage(index, "content", content, "expected a str or a list")
    parts = []
    for at, block in enumerate(content):
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, dict):
            kind = got(block, "type", f"content[{at}].type")
            text = (
                got(block, "text", f"content[{at}].text") if kind == "text"
                else got(block, "reasoning", f"content[{at}].reasoning") if kind == "reasoning" else None
            )
            if isinstance(text, str):
                parts.append(text)
            else:
                found = leaves(kind)
                parts.append(f"[{found[0] if isinstance(found, list) and found else 'block'}]")
        else:
            return MalformedMessage(index, f"content[{at}]", block, "expected a str or a dict block")
    return "\n".join(parts)


def _calls(message: AIMessage, index: int) -> tuple[tuple[tuple[str, str], ...], list[str]] | AdapterError:
    """The ids this message issues (with their fields) and one JSON line per call (its text)."""
    ids: dict[str, str] = {}
    lines = []
    for field in (_CALLS, "invalid_tool_calls"):
        calls = attr(message, field, field)
        if not isinstance(calls, list | tuple):
            return MalformedMessage(index, field, calls, "expected a list of tool calls")
        for at, call in enumerate(calls):
            path = f"{field}[{at}]"
            if not isinstance(call, Mapping):
                return MalformedMessage(index, path, call, "expected a tool call dict")
            ident = got(call, "id", f"{path}.id")
            if ident == "":
                return MalformedMessage(index, f"{path}.id", ident, "expected a non-empty str or None")
            if isinstance(ident, str):
                ids.setdefault(ident, f"{path}.id")
            args = got(call, "args", f"{path}.args")
            line = call_line({"id": ident, "name": got(call, "name", f"{path}.name"), "args": args}, index, f"{path}.args", args)
            if not isinstance(line, str):
                return line
            lines.append(line)
    return tuple((field, ident) for ident, field in ids.items()), lines


def _as_message(raw: object, index: int) -> BaseMessage | AdapterError:
    """A message-like (as ``trim_messages`` takes it) as a ``BaseMessage``, for reading only."""
    if isinstance(raw, BaseMessage):
        return raw
    if not isinstance(raw, str | dict | tuple | list):
        return MalformedMessage(index, "(message)", raw, "expected a BaseMessage, a dict, a (role, content) tuple or a str")
    # A dict is read once through the guards (a value whose read raises is named by its key).
    given = dict(entries(raw, "")) if isinstance(raw, dict) else raw
    # The role as an exact str before LangChain compares it (a caller's object or str subclass
    # whose __eq__ or __hash__ raises is never asked): a dict's ``role``, a pair's first item.
    if isinstance(given, dict) and "role" in given:
        role = exact_str(given["role"])
        if role is None:
            return MalformedMessage(index, "role", given["role"], "expected a str")
        given["role"] = role
    elif isinstance(given, tuple | list) and len(given) == 2:
        role = exact_str(given[0])
        if role is None:
            return MalformedMessage(index, "role", given[0], "expected a str")
        given = (role, given[1])
    try:
        return convert_to_messages([given])[0]
    except Exception as exc:  # noqa: BLE001 - LangChain's own conversion raises on a bad message-like
        return MalformedMessage(index, "(message)", raw, f"not a message LangChain can read ({type(exc).__name__})")


def _role(message: BaseMessage, index: int) -> str | AdapterError:
    """The role of a message whose exact type is not one of the five base kinds."""
    for kind, name in _KINDS:
        if isinstance(message, kind):
            return name
    if isinstance(message, ChatMessage):
        role = attr(message, "role", "role")
        return role if isinstance(role, str) else MalformedMessage(index, "role", role, "expected a str")
    return UnknownRole(index, attr(message, "type", "type"), _KNOWN)


def _texts(messages: object, keep_system: bool) -> Result[list[tuple[str, Row]], AdapterError]:
    """Each message's text and its row (tokens still 0), or the first problem."""
    return read_each(messages, "messages", "messages", lambda raw, index: _text_row(raw, index, keep_system))


def _text_row(raw: object, index: int, keep_system: bool) -> tuple[str, Row] | AdapterError:
    """One message's text and row (tokens still 0); every read of it guarded (`Unread`)."""
    message = _as_message(raw, index)
    if not isinstance(message, BaseMessage):
        return message
    known = _ROLE_OF.get(type(message))
    role = known if known is not None else _role(message, index)
    if not isinstance(role, str):
        return role
    content = attr(message, "content", "content")
    text = content if type(content) is str else _content(content, index)
    if not isinstance(text, str):
        return text
    name = attr(message, "name", "name")
    if name is not None and not isinstance(name, str):
        return MalformedMessage(index, "name", name, "expected a str or None")
    header = role if name is None else f"{role} {name}"
    if isinstance(message, ToolMessage):
        answers = attr(message, _ANSWER, _ANSWER)
        if not isinstance(answers, str) or not answers:
            return MalformedMessage(index, _ANSWER, answers, "expected a non-empty str")
        return f"{header} {answers}\n{text}", Row(0, (), ((_ANSWER, answers),), role=role)
    if isinstance(message, AIMessage) and (attr(message, _CALLS, _CALLS) or attr(message, "invalid_tool_calls", "invalid_tool_calls")):
        issued = _calls(message, index)
        if not isinstance(issued, tuple):
            return issued
        return "\n".join((header, text, *issued[1])), Row(0, issued[0], role=role)
    return f"{header}\n{text}", Row(0, starts_turn=role == "user", pinned=keep_system and role == "system", role=role)


def _rows(messages: object, keep_system: bool, counting: Counting) -> Result[list[Row], AdapterError]:
    return _texts(messages, keep_system).bind(lambda items: counted_rows(items, counting))


def message_text(message: object, index: int = 0) -> Result[str, AdapterError]:
    """The text a message is counted by (the framing in the module docstring).

    >>> from langchain_core.messages import AIMessage
    >>> print(message_text(AIMessage("", tool_calls=[{"name": "add", "args": {"a": 1}, "id": "c1"}])).unwrap())
    assistant
    <BLANKLINE>
    {"id": "c1", "name": "add", "args": {"a": 1}}
    """
    return _texts([message], True).map(lambda items: items[0][0])


def _documents(documents: object, score_key: object, source_key: object) -> Result[list[DocumentRow], AdapterError]:
    for name, key in (("score_key", score_key), ("source_key", source_key)):
        if not isinstance(key, str):
            return Failure(InvalidArgument(name, key, "expected a str"))
    assert isinstance(score_key, str) and isinstance(source_key, str)  # checked above
    return read_each(documents, "documents", "Documents", lambda document, index: _document_row(document, index, score_key, source_key))


def _document_row(document: object, index: int, score_key: str, source_key: str) -> DocumentRow | InvalidDocument:
    """One document's row, every read of it guarded (`Unread`)."""
    if not isinstance(document, Document):
        return InvalidDocument(index, "(document)", f"expected a langchain_core Document, got {type(document).__name__}")
    metadata = attr(document, "metadata", "metadata")
    if not isinstance(metadata, Mapping):
        return InvalidDocument(index, "metadata", f"expected a mapping, got {type(metadata).__name__}")
    source = got(metadata, source_key, f"metadata[{source_key!r}]")
    score = got(metadata, score_key, f"metadata[{score_key!r}]")
    return DocumentRow(attr(document, "page_content", "page_content"), attr(document, "id", "id"), score,
                       source if isinstance(source, str) and source else None)


def fit_messages(
    messages: Checked[Sequence[Any]],
    context_window: Checked[int | float],
    *,
    output_reserve: Checked[int | float | None] = None,
    reserve_fraction: Checked[float] = 0.35,
    model: Checked[str | None] = None,
    encoding: Checked[str | None] = None,
    token_counter: Checked[CounterArg | None] = None,
    documents: Checked[Sequence[Document]] = (),
    shed_order: Checked[ShedOrder] = AGENT,
    refill: Checked[bool] = True,
    nonce: NonceMode = RandomNonce(),
    tier: Checked[TrustTier | None] = None,
    keep_system: bool = True,
    score_key: str = "relevance_score",
    source_key: str = "source",
    documents_role: Checked[str] = "system",
    whole_turns: Checked[bool] = True,
) -> Result[FittedMessages, AdapterError]:
    """Fit ``messages`` (and ``documents``) into ``context_window``; the survivors are the same objects.

    The kept documents come back rendered (``fitted.text``), to send as one more message of
    ``documents_role`` (``system`` or ``user``): ``[*fitted.messages, ("system", fitted.text)]``.
    That message's framing is charged in the fit, so the prompt counts ``fitted.tokens``, within
    the budget (`count_messages`).

    ``whole_turns`` (default) keeps or sheds each turn before the newest whole (a human message
    and every message until the next), so after the system messages the kept history opens on a
    human message, never on an answer whose question was shed (``trim_messages``'
    ``start_on="human"``); the newest turn keeps its human message and sheds its oldest tool
    rounds first; a history with no human message is kept whole or is `OverBudget`.
    ``whole_turns=False`` sheds message by message (tool pairs still whole).

    >>> from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
    >>> history = [
    ...     SystemMessage("Be brief."),
    ...     HumanMessage("What is 2 + 2? " * 30),
    ...     AIMessage("", tool_calls=[{"name": "add", "args": {"a": 2, "b": 2}, "id": "c1"}]),
    ...     ToolMessage("4", tool_call_id="c1"),
    ...     HumanMessage("And 3 + 3?"),
    ... ]
    >>> fitted = fit_messages(history, 60, output_reserve=0).unwrap()
    >>> [type(message).__name__ for message in fitted.messages]   # the old turn went whole
    ['SystemMessage', 'HumanMessage']
    >>> piecemeal = fit_messages(history, 60, output_reserve=0, whole_turns=False).unwrap()
    >>> [type(message).__name__ for message in piecemeal.messages]
    ['SystemMessage', 'AIMessage', 'ToolMessage', 'HumanMessage']
    >>> piecemeal.messages[1] is history[2], fitted.tokens.tokens <= 60
    (True, True)
    >>> fit_messages([("user", "hi"), "and you?"], 100, model="gpt-4o").unwrap().tokens.encoding
    'o200k_base'
    >>> fit_messages([ToolMessage("4", tool_call_id="c9")], 60).failure().message
    "messages[0].tool_call_id: no earlier unanswered tool call has id 'c9'"
    """
    return fit_rows_and_documents(
        lambda ready: _rows(messages, keep_system, ready), documents, lambda: _documents(documents, score_key, source_key),
        checked_budget(context_window, output_reserve, reserve_fraction),
        checked_counting(model, encoding, token_counter, DEFAULT_ENCODING), checked_shedding(shed_order, refill, nonce),
        _PAIRING, tier, documents_role=documents_role, whole_turns=whole_turns,
    ).map(lambda fit: FittedMessages(tuple(messages[index] for index in fit.kept), fit.documents, fit.text, fit.tokens, fit.trace))


def fit_documents(
    documents: Checked[Sequence[Document]],
    context_window: Checked[int | float],
    *,
    output_reserve: Checked[int | float | None] = None,
    reserve_fraction: Checked[float] = 0.35,
    model: Checked[str | None] = None,
    encoding: Checked[str | None] = None,
    token_counter: Checked[CounterArg | None] = None,
    refill: Checked[bool] = True,
    nonce: NonceMode = RandomNonce(),
    tier: Checked[TrustTier | None] = None,
    render: bool = True,
    score_key: str = "relevance_score",
    source_key: str = "source",
) -> Result[FittedDocuments, AdapterError]:
    """Fit retrieved documents into ``context_window``, lowest ``metadata[score_key]`` shed
    first: rendered in trust-tier envelopes and priced as rendered (``render=False``: priced by
    their ``page_content``, for a chain that formats them itself). ``metadata[source_key]`` names
    the source; the tier is the caller's (default ``third-party-private``).

    >>> from langchain_core.documents import Document
    >>> from thrift_fp.render import KeyedNonce
    >>> docs = [Document("Refunds take five days.", metadata={"relevance_score": 0.9, "source": "faq.md"}),
    ...         Document("Our office dog is called Rex. " * 40, metadata={"relevance_score": 0.1})]
    >>> fitted = fit_documents(docs, 200, output_reserve=0, nonce=KeyedNonce(bytes(32))).unwrap()
    >>> fitted.documents == (docs[0],), fitted.tokens.tokens <= 200, "third-party-private" in fitted.text
    (True, True, True)
    """
    return fit_rows_and_documents(
        lambda ready: _rows((), True, ready), documents, lambda: _documents(documents, score_key, source_key),
        checked_budget(context_window, output_reserve, reserve_fraction),
        checked_counting(model, encoding, token_counter, DEFAULT_ENCODING), checked_shedding(AGENT, refill, nonce, render), _PAIRING, tier,
    ).map(lambda fit: FittedDocuments(fit.documents, fit.text, fit.tokens, fit.trace))


def count_messages(
    messages: Checked[Sequence[Any]],
    *,
    model: Checked[str | None] = None,
    encoding: Checked[str | None] = None,
    token_counter: Checked[CounterArg | None] = None,
) -> Result[TokenCount, AdapterError]:
    """The count of ``messages`` in this adapter's framing (the sum of `message_text` counts).

    >>> from langchain_core.messages import HumanMessage
    >>> count_messages([HumanMessage("hello world")]).unwrap().tokens
    4
    """
    counting = checked_counting(model, encoding, token_counter, DEFAULT_ENCODING)
    if isinstance(counting, Failure):
        return Failure(counting.failure())
    ready = counting.unwrap()
    return _rows(messages, True, ready).map(lambda rows: TokenCount(sum(row.tokens for row in rows), ready.name, ready.precision))


@value
class _Fitter:
    """The callable behind `fitting_runnable` (a plain object, so LangChain passes no config)."""

    context_window: int | float
    options: tuple[tuple[str, Any], ...]

    def __call__(self, value: Sequence[Any] | PromptValue) -> list[Any]:
        messages = value.to_messages() if isinstance(value, PromptValue) else list(value)
        fitted = fit_messages(messages, self.context_window, **dict(self.options))
        if isinstance(fitted, Failure):
            raise AdapterFitError(fitted.failure())
        return list(fitted.unwrap().messages)


def fitting_runnable(
    context_window: int | float,
    *,
    output_reserve: int | float | None = None,
    reserve_fraction: float = 0.35,
    model: str | None = None,
    encoding: str | None = None,
    token_counter: CounterArg | None = None,
    keep_system: bool = True,
    whole_turns: bool = True,
) -> Runnable[Sequence[Any] | PromptValue, list[Any]]:
    """`fit_messages` as a ``Runnable`` (messages or a prompt value in, kept messages out).

    An LCEL step has no room for an error value, so bad input raises `AdapterFitError` (a
    ``ValueError``) carrying it; call `fit_messages` directly for the value and the trace.

    >>> from langchain_core.messages import HumanMessage
    >>> fit = fitting_runnable(12, output_reserve=0)
    >>> [m.content for m in fit.invoke([HumanMessage("long " * 20), HumanMessage("short")])]
    ['short']
    """
    options = (
        ("output_reserve", output_reserve), ("reserve_fraction", reserve_fraction), ("model", model),
        ("encoding", encoding), ("token_counter", token_counter), ("keep_system", keep_system),
        ("whole_turns", whole_turns),
    )
    return RunnableLambda(_Fitter(context_window, options), name="thrift_fp_fit_messages")


class ThriftDocumentCompressor(BaseDocumentCompressor):
    """Keep the retrieved documents whose ``page_content`` fits in ``max_tokens``, lowest
    ``metadata[score_key]`` first (unscored before any scored), in input order.

    ``max_tokens`` is the compressor's own budget for the documents' text: the chain formats
    them itself, so there is no window or reply to reserve for here. Bad input raises
    `AdapterFitError`, since the compressor interface has no room for an error value;
    `fit_documents` returns it instead.

    >>> from langchain_core.documents import Document
    >>> compressor = ThriftDocumentCompressor(max_tokens=10)
    >>> docs = [Document("short and relevant", metadata={"relevance_score": 0.8}),
    ...         Document("long and off topic " * 10, metadata={"relevance_score": 0.2})]
    >>> [doc.page_content for doc in compressor.compress_documents(docs, "query")]
    ['short and relevant']
    """

    max_tokens: int
    model: str | None = None
    encoding: str | None = None
    score_key: str = "relevance_score"

    def compress_documents(
        self, documents: Sequence[Document], query: str, callbacks: Callbacks | None = None
    ) -> Sequence[Document]:
        """The documents that fit (the query plays no part: scores already rank them)."""
        fitted = fit_documents(
            documents, self.max_tokens, output_reserve=0, model=self.model, encoding=self.encoding,
            render=False, score_key=self.score_key,
        )
        if isinstance(fitted, Failure):
            raise AdapterFitError(fitted.failure())
        return list(fitted.unwrap().documents)
