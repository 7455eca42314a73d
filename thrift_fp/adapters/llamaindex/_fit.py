"""The LlamaIndex adapter's entry points: fit nodes and chat messages, the node postprocessor."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from typing import Final, ClassVar

from llama_index.core.base.llms.types import ChatMessage, MessageRole, TextBlock, ThinkingBlock, ToolCallBlock
from llama_index.core.postprocessor.types import BaseNodePostprocessor
from llama_index.core.schema import MetadataMode, NodeWithScore, QueryBundle
from returns.result import Failure, Result

from thrift_fp._value import value
from thrift_fp.adapters._core import Pairing, Row, checked_shedding, counted_rows, fit_rows_and_documents
from thrift_fp.adapters._core import Checked, CounterArg, Counting, checked_budget, checked_counting
from thrift_fp.adapters._core import DocumentRow
from thrift_fp.adapters._core import Pictured
from thrift_fp.adapters._core import AdapterError, AdapterFitError, InvalidArgument, InvalidDocument, MalformedMessage
from thrift_fp.adapters._core import Unread, attr, call_line, called, entries, got, leaves, read_each
from thrift_fp.records import TrustTier
from thrift_fp.render import NonceMode, RandomNonce
from thrift_fp.thrift import AGENT, ShedOrder, ThriftTrace
from thrift_fp.tokens import TokenCount


DEFAULT_ENCODING: Final = "cl100k_base"
_CALLS: Final = 'additional_kwargs["tool_calls"]'
_ANSWER: Final = 'additional_kwargs["tool_call_id"]'
_PINNED: Final = frozenset({MessageRole.SYSTEM, MessageRole.DEVELOPER})
_PAIRING: Final = Pairing(answer_once=False, require_answers=False)


@value
class FittedNodes(Pictured):
    """The caller's own nodes that survived (input order), their rendered text (``""`` when not
    rendered), the count as sent, and the trace.

    >>> from llama_index.core.schema import NodeWithScore, TextNode
    >>> fit_nodes([NodeWithScore(node=TextNode(text="Refunds take five days."), score=0.5)], 100, render=False).unwrap().tokens.tokens
    6
    """

    nodes: tuple[NodeWithScore, ...]
    text: str
    tokens: TokenCount
    trace: ThriftTrace

    pictured: ClassVar[str | None] = "nodes"


@value
class FittedChat(Pictured):
    """The caller's own messages and nodes that survived (input order), the surviving nodes
    rendered in envelopes (``""`` when none), the count as sent, and the trace.

    >>> from llama_index.core.llms import ChatMessage
    >>> fitted = fit_chat_messages([ChatMessage(role="user", content="hi")], 100).unwrap()
    >>> len(fitted.messages), fitted.nodes, fitted.text
    (1, (), '')
    """

    messages: tuple[ChatMessage, ...]
    nodes: tuple[NodeWithScore, ...]
    text: str
    tokens: TokenCount
    trace: ThriftTrace

    pictured: ClassVar[str | None] = "nodes"


def _extra_call(entry: object, index: int, at: int) -> tuple[str | None, str] | MalformedMessage:
    """An ``additional_kwargs["tool_calls"]`` entry's id and JSON line."""
    field = f"{_CALLS}[{at}]"
    if isinstance(entry, dict):
        ident, shown = got(entry, "id", f"{field}.id"), dict(entries(entry, field))
    else:
        dump = getattr(type(entry), "model_dump", None)
        if not callable(dump):
            return MalformedMessage(index, field, entry, "expected a dict or a pydantic model")
        ident = attr(entry, "id", f"{field}.id") if _has(entry, "id") else None
        shown = called(lambda: dump(entry), f"{field}.model_dump()")
    if ident is not None and (not isinstance(ident, str) or not ident):
        return MalformedMessage(index, f"{field}.id", ident, "expected a non-empty str or None")
    line = call_line(shown, index, field, entry)
    return line if isinstance(line, MalformedMessage) else (ident, line)


def _has(obj: object, name: str) -> bool:
    """Whether ``obj`` has an attribute ``name`` at all (looked up on its class and instance
    dict without calling a property, which `attr` then reads, guarded)."""
    return hasattr(type(obj), name) or name in getattr(obj, "__dict__", {})


def _row(message: object, index: int, keep_system: bool) -> tuple[str, Row] | AdapterError:
    """One message's text and row (tokens still 0); every read of it guarded (`Unread`)."""
    if not isinstance(message, ChatMessage):
        return MalformedMessage(index, "(message)", message, "expected a llama_index ChatMessage")
    role = attr(message, "role", "role")
    if not isinstance(role, MessageRole):
        return MalformedMessage(index, "role", role, "expected a MessageRole")
    blocks = attr(message, "blocks", "blocks")
    if not isinstance(blocks, list | tuple):
        return MalformedMessage(index, "blocks", blocks, "expected a list of blocks")
    parts: list[str] = []
    lines = []
    ids: dict[str, str] = {}
    for at, block in enumerate(blocks):
        field = f"blocks[{at}]"
        if isinstance(block, TextBlock):
            text = attr(block, "text", f"{field}.text")
            if not isinstance(text, str):
                return MalformedMessage(index, f"{field}.text", text, "expected a str")
            parts.append(text)
        elif isinstance(block, ThinkingBlock):
            thought = attr(block, "content", f"{field}.content")
            if thought is not None and not isinstance(thought, str):
                return MalformedMessage(index, f"{field}.content", thought, "expected a str or None")
            parts.append(thought or "")
        elif isinstance(block, ToolCallBlock):
            ident = attr(block, "tool_call_id", f"{field}.tool_call_id")
            if ident is not None and (not isinstance(ident, str) or not ident):
                return MalformedMessage(index, f"{field}.tool_call_id", ident, "expected a non-empty str or None")
            if ident is not None:
                ids.setdefault(ident, f"{field}.tool_call_id")
            arguments = attr(block, "tool_kwargs", f"{field}.tool_kwargs")
            shown = {"id": ident, "name": attr(block, "tool_name", f"{field}.tool_name"), "args": arguments}
            line = call_line(shown, index, f"{field}.tool_kwargs", arguments)
            if not isinstance(line, str):
                return line
            lines.append(line)
        else:
            parts.append(f"[{attr(block, 'block_type', f'{field}.block_type')}]")
    extras = attr(message, "additional_kwargs", "additional_kwargs")
    if not isinstance(extras, Mapping):
        return MalformedMessage(index, "additional_kwargs", extras, "expected a dict")
    kwargs = dict(entries(extras, "additional_kwargs"))
    extra = kwargs.get("tool_calls")
    if extra is not None:
        if not isinstance(extra, list):
            return MalformedMessage(index, _CALLS, extra, "expected a list")
        for at, entry in enumerate(extra):
            read = _extra_call(entry, index, at)
            if isinstance(read, MalformedMessage):
                return read
            if read[0] is not None:
                ids.setdefault(read[0], f"{_CALLS}[{at}].id")
            lines.append(read[1])
    others = {key: value for key, value in kwargs.items() if key not in ("tool_calls", "tool_call_id")}
    problem = leaves(others)
    if isinstance(problem, str):
        return MalformedMessage(index, "additional_kwargs", others, problem)
    header = role.value
    answers: tuple[tuple[str, str], ...] = ()
    if role is MessageRole.TOOL:
        answered = kwargs.get("tool_call_id")
        if not isinstance(answered, str) or not answered:
            return MalformedMessage(index, _ANSWER, answered, "expected a non-empty str on a tool message")
        header = f"{header} {answered}"
        answers = ((_ANSWER, answered),)
    text = "\n".join((header, "\n".join(parts), *lines))
    # One call may be listed both as a block and in additional_kwargs: it is still one call.
    issues = tuple((field, ident) for ident, field in ids.items())
    return text, Row(0, issues, answers, role is MessageRole.USER, keep_system and role in _PINNED, role.value)


def _texts(messages: object, keep_system: bool) -> Result[list[tuple[str, Row]], AdapterError]:
    return read_each(messages, "messages", "ChatMessages", lambda message, index: _row(message, index, keep_system))


def _rows(messages: object, keep_system: bool, counting: Counting) -> Result[list[Row], AdapterError]:
    return _texts(messages, keep_system).bind(lambda items: counted_rows(items, counting))


def message_text(message: ChatMessage, index: int = 0) -> Result[str, AdapterError]:
    """The text a chat message is counted by (the framing in the module docstring).

    >>> from llama_index.core.llms import ChatMessage
    >>> print(message_text(ChatMessage(role="tool", content="4", additional_kwargs={"tool_call_id": "c1"})).unwrap())
    tool c1
    4
    """
    return _texts([message], True).map(lambda items: items[0][0])


def _nodes(nodes: object, metadata_mode: object, source_key: object) -> Result[list[DocumentRow], AdapterError]:
    if not isinstance(metadata_mode, MetadataMode):
        return Failure(InvalidArgument("metadata_mode", metadata_mode, "expected a MetadataMode"))
    return read_each(nodes, "nodes", "NodeWithScore", lambda scored, index: _node_row(scored, index, metadata_mode, source_key))


def _node_row(scored: object, index: int, metadata_mode: MetadataMode, source_key: object) -> DocumentRow | InvalidDocument:
    """One node's row, every read of it guarded (`Unread`), its ``get_content`` call too."""
    if not isinstance(scored, NodeWithScore):
        return InvalidDocument(index, "(node)", f"expected a llama_index NodeWithScore, got {type(scored).__name__}", "nodes")
    node = attr(scored, "node", "node")
    get_content = attr(node, "get_content", "node.get_content")
    if not callable(get_content):
        raise Unread("node.get_content", TypeError("get_content is not callable"))
    text = called(lambda: get_content(metadata_mode=metadata_mode), "node.get_content()")
    metadata = attr(node, "metadata", "node.metadata")
    source = got(metadata, source_key, f"node.metadata[{source_key!r}]") if isinstance(source_key, str) and isinstance(metadata, Mapping) else None
    ident = attr(node, "node_id", "node.node_id")
    return DocumentRow(text, ident or None, attr(scored, "score", "score"), source if isinstance(source, str) and source else None)


def fit_nodes(
    nodes: Checked[Sequence[NodeWithScore]],
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
    metadata_mode: MetadataMode = MetadataMode.LLM,
    source_key: str = "file_name",
) -> Result[FittedNodes, AdapterError]:
    """Fit retrieved nodes into ``context_window``, lowest score shed first; the same objects back.
    Rendered in trust-tier envelopes and priced as rendered (``render=False``: priced by their
    text); ``node.metadata[source_key]`` names the source; the tier is the caller's (default
    ``third-party-private``).

    >>> from llama_index.core.schema import NodeWithScore, TextNode
    >>> from thrift_fp.render import KeyedNonce
    >>> nodes = [NodeWithScore(node=TextNode(text="Refunds take five days.", id_="kb-1"), score=0.9),
    ...          NodeWithScore(node=TextNode(text="The office dog is Rex. " * 40, id_="kb-2"), score=0.2)]
    >>> fitted = fit_nodes(nodes, 200, output_reserve=0, nonce=KeyedNonce(bytes(32))).unwrap()
    >>> [n.node.node_id for n in fitted.nodes], fitted.tokens.tokens <= 200, fitted.trace.buckets[5].ids
    (['kb-1'], True, ('kb-2',))
    """
    return fit_rows_and_documents(
        lambda ready: _rows((), True, ready), nodes, lambda: _nodes(nodes, metadata_mode, source_key),
        checked_budget(context_window, output_reserve, reserve_fraction),
        checked_counting(model, encoding, token_counter, DEFAULT_ENCODING), checked_shedding(AGENT, refill, nonce, render), _PAIRING, tier,
        "nodes",
    ).map(lambda fit: FittedNodes(fit.documents, fit.text, fit.tokens, fit.trace))


def fit_chat_messages(
    messages: Checked[Sequence[ChatMessage]],
    context_window: Checked[int | float],
    *,
    output_reserve: Checked[int | float | None] = None,
    reserve_fraction: Checked[float] = 0.35,
    model: Checked[str | None] = None,
    encoding: Checked[str | None] = None,
    token_counter: Checked[CounterArg | None] = None,
    nodes: Checked[Sequence[NodeWithScore]] = (),
    shed_order: Checked[ShedOrder] = AGENT,
    refill: Checked[bool] = True,
    nonce: NonceMode = RandomNonce(),
    tier: Checked[TrustTier | None] = None,
    keep_system: bool = True,
    metadata_mode: MetadataMode = MetadataMode.LLM,
    source_key: str = "file_name",
    documents_role: Checked[str] = "system",
    whole_turns: Checked[bool] = True,
) -> Result[FittedChat, AdapterError]:
    """Fit a chat history (and ``nodes``) into ``context_window``, oldest first, tool calls paired.

    The kept nodes come back rendered (``fitted.text``), to send as one more message of
    ``documents_role`` (``system`` or ``user``):
    ``[*fitted.messages, ChatMessage(role="system", content=fitted.text)]``. That message's
    framing is charged in the fit, so the prompt counts ``fitted.tokens``, within the budget.

    ``whole_turns`` (default) keeps or sheds each turn before the newest whole (a user message and
    every message until the next), so after the system messages the kept history opens on a user
    message, never on an answer whose question was shed; the newest turn keeps its user message
    and sheds its oldest tool rounds first; a history with no user message is kept whole or is
    `OverBudget`. ``whole_turns=False`` sheds message by message (tool pairs still whole).

    >>> from llama_index.core.llms import ChatMessage
    >>> from llama_index.core.base.llms.types import ToolCallBlock
    >>> history = [
    ...     ChatMessage(role="system", content="Be brief."),
    ...     ChatMessage(role="user", content="What is 2 + 2? " * 30),
    ...     ChatMessage(role="assistant", blocks=[ToolCallBlock(tool_call_id="c1", tool_name="add",
    ...                                                         tool_kwargs={"a": 2, "b": 2})]),
    ...     ChatMessage(role="tool", content="4", additional_kwargs={"tool_call_id": "c1"}),
    ...     ChatMessage(role="user", content="And 3 + 3?"),
    ... ]
    >>> [m.role.value for m in fit_chat_messages(history, 60, output_reserve=0).unwrap().messages]
    ['system', 'user']
    >>> fitted = fit_chat_messages(history, 60, output_reserve=0, whole_turns=False).unwrap()
    >>> [m.role.value for m in fitted.messages], fitted.messages[2] is history[3]
    (['system', 'assistant', 'tool', 'user'], True)
    """
    return fit_rows_and_documents(
        lambda ready: _rows(messages, keep_system, ready), nodes, lambda: _nodes(nodes, metadata_mode, source_key),
        checked_budget(context_window, output_reserve, reserve_fraction),
        checked_counting(model, encoding, token_counter, DEFAULT_ENCODING), checked_shedding(shed_order, refill, nonce),
        _PAIRING, tier, "nodes", documents_role, whole_turns,
    ).map(lambda fit: FittedChat(tuple(messages[index] for index in fit.kept), fit.documents, fit.text, fit.tokens, fit.trace))


class ThriftNodePostprocessor(BaseNodePostprocessor):
    """Keep the retrieved nodes whose text fits in ``max_tokens``, lowest score first (an unscored
    node before every scored one), in input order.

    ``max_tokens`` is the postprocessor's own budget for the nodes' text: the response
    synthesizer formats them and owns the window, so nothing is reserved here. Bad input raises
    `AdapterFitError` (the postprocessor interface has no room for an error value); `fit_nodes`
    returns it instead, with the trace.

    >>> from llama_index.core.schema import NodeWithScore, TextNode
    >>> post = ThriftNodePostprocessor(max_tokens=10)
    >>> nodes = [NodeWithScore(node=TextNode(text="short and relevant"), score=0.8),
    ...          NodeWithScore(node=TextNode(text="long and off topic " * 10), score=0.2)]
    >>> [n.node.get_content() for n in post.postprocess_nodes(nodes)]
    ['short and relevant']
    """

    max_tokens: int
    model: str | None = None
    encoding: str | None = None
    metadata_mode: MetadataMode = MetadataMode.LLM

    @classmethod
    def class_name(cls) -> str:
        """The name LlamaIndex serialises this component under.

        >>> ThriftNodePostprocessor.class_name()
        'ThriftNodePostprocessor'
        """
        return "ThriftNodePostprocessor"

    def _postprocess_nodes(
        self, nodes: list[NodeWithScore], query_bundle: QueryBundle | None = None
    ) -> list[NodeWithScore]:
        fitted = fit_nodes(
            nodes, self.max_tokens, output_reserve=0, model=self.model, encoding=self.encoding,
            render=False, metadata_mode=self.metadata_mode,
        )
        if isinstance(fitted, Failure):
            raise AdapterFitError(fitted.failure())
        return list(fitted.unwrap().nodes)
