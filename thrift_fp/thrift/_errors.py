"""The closed union of errors the thrift layer returns as values."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from thrift_fp._errors import ThriftFpError
from thrift_fp._shown import shown
from thrift_fp.tokens import TokenError


@dataclass(frozen=True, slots=True)
class InvalidBudget(ThriftFpError):
    """A context window, reserve fraction or output reserve that yields no sane budget."""

    field: str
    value: object
    reason: str

    message_template: ClassVar[str] = "invalid {field} {value!r}: {reason}"


@dataclass(frozen=True, slots=True)
class InvalidOption(ThriftFpError):
    """A `ThriftOptions` field outside its domain."""

    field: str
    value: object
    reason: str

    message_template: ClassVar[str] = "invalid option {field}={value!r}: {reason}"


@dataclass(frozen=True, slots=True)
class DuplicateId(ThriftFpError):
    """Two items of one bucket share an id, so the trace could not tell them apart."""

    bucket: str
    id: str

    message_template: ClassVar[str] = "duplicate id {id!r} in {bucket}"


@dataclass(frozen=True, slots=True)
class MalformedItem(ThriftFpError):
    """A working-set item without an attribute its bucket requires (or whose attribute raised):
    ``bucket[index]`` names it, ``reason`` says what reading the attribute gave."""

    bucket: str
    index: int
    type_name: str
    attribute: str
    reason: str

    message_template: ClassVar[str] = (
        "{bucket}[{index}] (a {type_name!t}) has no usable {attribute}:"
        " {reason}"
    )


@dataclass(frozen=True, slots=True)
class InvalidItemField(ThriftFpError):
    """An item attribute (score, importance, token_cost, ...) of the wrong type or range."""

    bucket: str
    item: str
    field: str
    value: object
    reason: str

    message_template: ClassVar[str] = "{bucket} item {item!r}: invalid {field} {value!r} ({reason})"


@dataclass(frozen=True, slots=True)
class UnmeasurableContent(ThriftFpError):
    """Content with no real string form (only ``object.__str__``), or whose ``str()`` raised."""

    bucket: str
    item: str
    reason: str
    cause: BaseException | None = None

    message_template: ClassVar[str] = "cannot measure {bucket} item {item!r}: {reason}"


@dataclass(frozen=True, slots=True)
class EstimatorRaised(ThriftFpError):
    """A retrievable's own ``estimate_tokens`` raised; the original exception is the cause."""

    item: str
    cause: BaseException | None

    @property
    def message(self) -> str:
        kind = type(self.cause).__name__ if self.cause is not None else "an error"
        return f"estimate_tokens of retrievable {shown(self.item)} raised {kind}: {self.cause}"


@dataclass(frozen=True, slots=True)
class CountingFailed(ThriftFpError):
    """The token layer could not count (unknown encoding, failing custom estimator, ...)."""

    error: TokenError

    @property
    def message(self) -> str:
        return f"token counting failed: {self.error.message}"

    @property
    def cause(self) -> BaseException | None:
        return getattr(self.error, "cause", None)


ThriftError = (
    InvalidBudget
    | InvalidOption
    | DuplicateId
    | MalformedItem
    | InvalidItemField
    | UnmeasurableContent
    | EstimatorRaised
    | CountingFailed
)
