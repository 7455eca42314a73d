"""The closed union of errors the thrift layer returns as values."""

from __future__ import annotations

from thrift_fp._errors import CarriesError, ErrorValue
from thrift_fp._shown import shown
from thrift_fp.tokens import TokenError


class InvalidBudget(ErrorValue, template="invalid {field} {value!r}: {reason}"):
    """A context window, reserve fraction or output reserve that yields no sane budget."""

    field: str
    value: object
    reason: str


class InvalidOption(ErrorValue, template="invalid option {field}={value!r}: {reason}"):
    """A `ThriftOptions` field outside its domain."""

    field: str
    value: object
    reason: str


class DuplicateId(ErrorValue, template="duplicate id {id!r} in {bucket}"):
    """Two items of one bucket share an id, so the trace could not tell them apart."""

    bucket: str
    id: str


class MalformedItem(
    ErrorValue,
    template="{bucket}[{index}] (a {type_name!t}) has no usable {attribute}:"
    " {reason}",
):
    """A working-set item without an attribute its bucket requires (or whose attribute raised):
    ``bucket[index]`` names it, ``reason`` says what reading the attribute gave."""

    bucket: str
    index: int
    type_name: str
    attribute: str
    reason: str


class InvalidItemField(ErrorValue, template="{bucket} item {item!r}: invalid {field} {value!r} ({reason})"):
    """An item attribute (score, importance, token_cost, ...) of the wrong type or range."""

    bucket: str
    item: str
    field: str
    value: object
    reason: str


class UnmeasurableContent(ErrorValue, template="cannot measure {bucket} item {item!r}: {reason}"):
    """Content with no real string form (only ``object.__str__``), or whose ``str()`` raised."""

    bucket: str
    item: str
    reason: str
    cause: BaseException | None = None


class EstimatorRaised(ErrorValue):
    """A retrievable's own ``estimate_tokens`` raised; the original exception is the cause."""

    item: str
    cause: BaseException | None

    @property
    def message(self) -> str:
        kind = type(self.cause).__name__ if self.cause is not None else "an error"
        return f"estimate_tokens of retrievable {shown(self.item)} raised {kind}: {self.cause}"


class CountingFailed(CarriesError, template="token counting failed: {error.message}"):
    """The token layer could not count (unknown encoding, failing custom estimator, ...)."""

    error: TokenError


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
