"""Errors of the LangChain and LlamaIndex adapters: one closed union, each naming index and field."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from thrift_fp.render import RenderError
from thrift_fp.thrift import ThriftError

ItemKind = Literal["message", "document", "node"]


@dataclass(frozen=True, slots=True)
class MalformedItem:
    """An input object lacks a field, or a field has the wrong type or value.

    >>> MalformedItem("message", 3, "content", "expected a str or a list of content blocks").message
    'message 3: invalid content (expected a str or a list of content blocks)'
    """

    kind: ItemKind
    index: int
    field: str
    reason: str

    @property
    def message(self) -> str:
        return f"{self.kind} {self.index}: invalid {self.field} ({self.reason})"


@dataclass(frozen=True, slots=True)
class UnknownRole:
    """A message whose role (or message type) the adapter does not know.

    >>> UnknownRole(0, "type", "remove", ("human", "ai")).message
    "message 0: unknown type 'remove'; known: human, ai"
    """

    index: int
    field: str
    role: str
    known: tuple[str, ...]

    @property
    def message(self) -> str:
        return f"message {self.index}: unknown {self.field} {self.role!r}; known: {', '.join(self.known)}"


@dataclass(frozen=True, slots=True)
class MissingToolCall:
    """A tool result whose call no earlier message issued.

    >>> MissingToolCall(4, "tool_call_id", "call_9").message
    "message 4: tool_call_id 'call_9' answers no tool call issued by an earlier message"
    """

    index: int
    field: str
    call_id: str

    @property
    def message(self) -> str:
        return (
            f"message {self.index}: {self.field} {self.call_id!r} answers no tool call issued by an"
            " earlier message"
        )


@dataclass(frozen=True, slots=True)
class DuplicateToolCall:
    """Two messages issue a tool call with the same id, so its results cannot be paired.

    >>> DuplicateToolCall(5, "tool_calls", "call_1", 2).message
    "message 5: tool_calls id 'call_1' was already issued by message 2"
    """

    index: int
    field: str
    call_id: str
    first_index: int

    @property
    def message(self) -> str:
        return f"message {self.index}: {self.field} id {self.call_id!r} was already issued by message {self.first_index}"


@dataclass(frozen=True, slots=True)
class FitRejected:
    """The core fit refused the converted set (an invalid budget, an unknown encoding, ...).

    >>> from thrift_fp.thrift import InvalidBudget
    >>> FitRejected(InvalidBudget("context_window", -1, "expected a finite number >= 0")).message.startswith("fit failed: ")
    True
    """

    error: ThriftError

    @property
    def message(self) -> str:
        return f"fit failed: {self.error.message}"


@dataclass(frozen=True, slots=True)
class RenderRejected:
    """Fitting and rendering retrieved documents failed (a weak nonce key, a count failure, ...).

    >>> from thrift_fp.render import WeakNonceKey
    >>> RenderRejected(WeakNonceKey(3, 16)).message.startswith("render failed: ")
    True
    """

    error: RenderError

    @property
    def message(self) -> str:
        return f"render failed: {self.error.message}"


AdapterError = MalformedItem | UnknownRole | MissingToolCall | DuplicateToolCall | FitRejected | RenderRejected


class AdapterFitError(ValueError):
    """Raised only where a framework interface has no room for an error value (a LangChain
    ``Runnable`` or document compressor, a LlamaIndex postprocessor); ``error`` is the value.

    >>> AdapterFitError(MissingToolCall(1, "tool_call_id", "c")).error.call_id
    'c'
    """

    def __init__(self, error: AdapterError) -> None:
        super().__init__(error.message)
        self.error = error
