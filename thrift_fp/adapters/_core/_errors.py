"""The closed union of errors every adapter returns as values (`AdapterError`).

Every message error names the message's index in the caller's list and the field (a path such as
``content[1].image_url``) that is wrong; a document error names its list (``documents``,
``nodes``) and index; an argument error names the argument. Each states its message as a
one-line ``message_template`` over its fields, formatted by the base class (a caller's value
through the bounded renderer: a 5,000-digit int or a list nested 5,000 deep never breaks one).
"""

from __future__ import annotations

from dataclasses import field as dataclass_field

from thrift_fp.adapters._core._models import UnknownModel
from thrift_fp.records import RecordError
from thrift_fp.render import RenderError
from thrift_fp.thrift import ThriftError
from thrift_fp.tokens import TokenError
from thrift_fp._errors import ErrorValue


class MalformedMessage(ErrorValue, template="messages[{index}].{field}: {reason}, got {value!r}"):
    """A message (or one of its fields) of the wrong shape.

    >>> MalformedMessage(2, "content", 7, "expected a str or a list of content parts").message
    'messages[2].content: expected a str or a list of content parts, got 7'
    """

    index: int
    field: str
    value: object
    reason: str


class UnreadableField(
    ErrorValue,
    template="{collection}[{index}].{field} (a {type_name!t}): reading it raised {raised}",
):
    """Reading a caller's object raised (a property, a descriptor, a mapping's ``get``): its list,
    position and field, its type, and what was raised (``cause`` is the exception itself).

    >>> UnreadableField(1, "content", "Lazy", "RuntimeError: storage offline").message
    'messages[1].content (a Lazy): reading it raised RuntimeError: storage offline'
    """

    index: int
    field: str
    type_name: str
    raised: str
    cause: BaseException | None = dataclass_field(default=None, compare=False, repr=False)
    collection: str = "messages"


class UnknownRole(ErrorValue, template="messages[{index}].role: unknown role {role!r}; expected one of {_known}"):
    """A role the format does not have.

    >>> UnknownRole(0, "robot", ("user", "assistant")).message
    "messages[0].role: unknown role 'robot'; expected one of user, assistant"
    """

    index: int
    role: object
    known: tuple[str, ...]

    @property
    def _known(self) -> str:
        return ", ".join(self.known)


class _ToolCallMismatch(ErrorValue):
    """The tool call id ``call_id`` at ``messages[index].field`` does not pair with one other call or result."""

    index: int
    field: str
    call_id: str


class ToolResultWithoutCall(
    _ToolCallMismatch,
    template="messages[{index}].{field}: no earlier unanswered tool call has id {call_id!r}",
):
    """A tool result whose call is not in an earlier message (or was already answered).

    >>> ToolResultWithoutCall(3, "tool_call_id", "call_9").message
    "messages[3].tool_call_id: no earlier unanswered tool call has id 'call_9'"
    """


class ToolCallWithoutResult(
    _ToolCallMismatch,
    template="messages[{index}].{field}: tool call {call_id!r} has no result in a later message",
):
    """A tool call no later message answers (the provider would refuse the request).

    >>> ToolCallWithoutResult(1, "tool_calls[0].id", "call_1").message
    "messages[1].tool_calls[0].id: tool call 'call_1' has no result in a later message"
    """


class DuplicateToolCall(_ToolCallMismatch, template="messages[{index}].{field}: tool call id {call_id!r} is used twice"):
    """Two tool calls share an id, so their results could not be told apart.

    >>> DuplicateToolCall(4, "tool_calls[1].id", "call_1").message
    "messages[4].tool_calls[1].id: tool call id 'call_1' is used twice"
    """


class InvalidTool(ErrorValue, template="tools[{index}].{field}: {reason}, got {value!r}"):
    """A tool definition of the wrong shape.

    >>> InvalidTool(0, "function.name", None, "expected a non-empty str").message
    'tools[0].function.name: expected a non-empty str, got None'
    """

    index: int
    field: str
    value: object
    reason: str


class InvalidDocument(ErrorValue, template="{collection}[{index}].{field}: {reason}"):
    """A retrieved document that cannot become a record (its list, index, field and reason).

    >>> InvalidDocument(1, "score", "expected a finite number").message
    'documents[1].score: expected a finite number'
    >>> InvalidDocument(0, "node.get_content", "raised OSError", "nodes").message
    'nodes[0].node.get_content: raised OSError'
    """

    index: int
    field: str
    reason: str
    collection: str = "documents"


class InvalidArgument(ErrorValue, template="invalid {field} {value!r}: {reason}"):
    """An adapter argument outside its domain.

    >>> InvalidArgument("documents_at", 9, "must be within [-3, 3]").message
    'invalid documents_at 9: must be within [-3, 3]'
    """

    field: str
    value: object
    reason: str


class PricingFailed(ErrorValue, template="messages[{index}].{field}: {callback} {reason}"):
    """A caller's pricing callback (``image_tokens``, ``token_counter``) raised or returned a
    non-count.

    >>> PricingFailed(0, "content[1]", "returned -1; expected an int >= 0").message
    'messages[0].content[1]: image_tokens returned -1; expected an int >= 0'
    """

    index: int
    field: str
    reason: str
    cause: BaseException | None = None
    callback: str = "image_tokens"


class OverBudget(
    ErrorValue,
    template="what cannot be shed costs {tokens} tokens as sent, over the budget of {budget};"
    " raise context_window or lower output_reserve",
):
    """What must be sent (pinned messages, the newest message, request framing) costs more than
    the budget: the adapter returns this rather than an over-budget request.

    >>> OverBudget(420, 300).message
    'what cannot be shed costs 420 tokens as sent, over the budget of 300; raise context_window or lower output_reserve'
    """

    tokens: int
    budget: int


class CountFailed(ErrorValue, template="counting failed: {error}"):
    """The token layer could not count (an unavailable encoding, a failing estimator).

    >>> from thrift_fp.tokens import get_encoding
    >>> CountFailed(get_encoding("nope").failure()).message[:33]
    'counting failed: unknown encoding'
    """

    error: TokenError


class FitFailed(ErrorValue, template="fit failed: {error}"):
    """The core fit (or the render of the documents) returned an error value.

    >>> from thrift_fp.thrift import resolve_budget
    >>> FitFailed(resolve_budget(-1).failure()).message
    'fit failed: invalid context_window -1: must be a finite number >= 0'
    """

    error: ThriftError | RenderError | RecordError


AdapterError = (
    OverBudget
    | MalformedMessage
    | UnreadableField
    | UnknownRole
    | ToolResultWithoutCall
    | ToolCallWithoutResult
    | DuplicateToolCall
    | InvalidTool
    | InvalidDocument
    | InvalidArgument
    | PricingFailed
    | CountFailed
    | FitFailed
    | UnknownModel
)


class AdapterFitError(ValueError):
    """Raised only where a framework interface has no room for an error value (a LangChain
    ``Runnable`` or document compressor, a LlamaIndex postprocessor); ``error`` is the value.

    >>> AdapterFitError(OverBudget(9, 5)).error.tokens
    9
    """

    def __init__(self, error: AdapterError) -> None:
        super().__init__(error.message)
        self.error = error
