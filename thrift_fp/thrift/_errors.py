"""The closed union of errors the thrift layer returns as values."""

from __future__ import annotations

from dataclasses import dataclass

from thrift_fp._errors import ThriftFpError
from thrift_fp.tokens import TokenError


def shown(value: object) -> str:
    """``repr(value)``, but an int too long for Python to print (over 4300 digits) by its size.

    >>> shown(-1), shown(10**5000)
    ('-1', '<int of 16610 bits>')
    """
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 1024:
        return f"<int of {value.bit_length()} bits>"
    return repr(value)


@dataclass(frozen=True, slots=True)
class InvalidBudget(ThriftFpError):
    """A context window, reserve fraction or output reserve that yields no sane budget."""

    field: str
    value: object
    reason: str

    @property
    def message(self) -> str:
        return f"invalid {self.field} {shown(self.value)}: {self.reason}"


@dataclass(frozen=True, slots=True)
class InvalidOption(ThriftFpError):
    """A `ThriftOptions` field outside its domain."""

    field: str
    value: object
    reason: str

    @property
    def message(self) -> str:
        return f"invalid option {self.field}={shown(self.value)}: {self.reason}"


@dataclass(frozen=True, slots=True)
class DuplicateId(ThriftFpError):
    """Two items of one bucket share an id, so the trace could not tell them apart."""

    bucket: str
    id: str

    @property
    def message(self) -> str:
        return f"duplicate id {self.id!r} in {self.bucket}"


@dataclass(frozen=True, slots=True)
class InvalidItemField(ThriftFpError):
    """An item attribute (score, importance, token_cost, ...) of the wrong type or range."""

    bucket: str
    item: str
    field: str
    value: object
    reason: str

    @property
    def message(self) -> str:
        return f"{self.bucket} item {self.item!r}: invalid {self.field} {shown(self.value)} ({self.reason})"


@dataclass(frozen=True, slots=True)
class UnmeasurableContent(ThriftFpError):
    """Content with no real string form (only ``object.__str__``), or whose ``str()`` raised."""

    bucket: str
    item: str
    reason: str
    cause: BaseException | None = None

    @property
    def message(self) -> str:
        return f"cannot measure {self.bucket} item {self.item!r}: {self.reason}"


@dataclass(frozen=True, slots=True)
class EstimatorRaised(ThriftFpError):
    """A retrievable's own ``estimate_tokens`` raised; the original exception is the cause."""

    item: str
    cause: BaseException | None

    @property
    def message(self) -> str:
        kind = type(self.cause).__name__ if self.cause is not None else "an error"
        return f"estimate_tokens of retrievable {self.item!r} raised {kind}: {self.cause}"


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
    | InvalidItemField
    | UnmeasurableContent
    | EstimatorRaised
    | CountingFailed
)
