"""The closed union of errors the records layer returns as values."""

from __future__ import annotations

from dataclasses import dataclass

from thrift_fp._errors import ThriftFpError
from thrift_fp.tokens import TokenError

# Long values are cut in messages so a bad multi-megabyte JSON field stays readable.
_SHOWN_CHARS = 60
_PRINTABLE_INT_BITS = 14_000


def shown(value: object) -> str:
    """A short ``repr`` of ``value`` for error messages.

    >>> shown("x" * 100)[-20:]
    'xxxxx... (102 chars)'
    >>> shown(10**5000)
    'an int of 16610 bits (too long to print)'
    """
    # Python refuses repr() of an int past 4300 digits (about 14284 bits); say how big it is instead.
    if isinstance(value, int) and value.bit_length() > _PRINTABLE_INT_BITS:
        return f"an int of {value.bit_length()} bits (too long to print)"
    text = repr(value)
    if len(text) <= _SHOWN_CHARS:
        return text
    return f"{text[:_SHOWN_CHARS]}... ({len(text)} chars)"


@dataclass(frozen=True, slots=True)
class FieldProblem:
    """One invalid field of a raw retrievable: the field's name and why it is wrong.

    >>> FieldProblem("score", "must be a finite number in [0, 1], got 2").message
    'score: must be a finite number in [0, 1], got 2'
    """

    field: str
    reason: str

    @property
    def message(self) -> str:
        return f"{self.field}: {self.reason}"


@dataclass(frozen=True, slots=True)
class InvalidRetrievable(ThriftFpError):
    """A raw retrievable broke one or more rules; ``problems`` lists every one.

    >>> error = InvalidRetrievable((FieldProblem("score", "must be a finite number in [0, 1], got 2"),))
    >>> print(error.message)
    invalid retrievable (1 problem):
      - score: must be a finite number in [0, 1], got 2
    >>> error.fields
    frozenset({'score'})
    """

    problems: tuple[FieldProblem, ...]

    @property
    def fields(self) -> frozenset[str]:
        return frozenset(problem.field for problem in self.problems)

    @property
    def message(self) -> str:
        count = len(self.problems)
        lines = "\n".join(f"  - {problem.message}" for problem in self.problems)
        return f"invalid retrievable ({count} problem{'s' if count != 1 else ''}):\n{lines}"


@dataclass(frozen=True, slots=True)
class InvalidStoreId(ThriftFpError):
    """A store id that is empty, contains NUL, or would escape the store's folder.

    >>> InvalidStoreId("../x", "contains a path separator").message
    "invalid store id '../x': contains a path separator"
    """

    id: str
    reason: str

    @property
    def message(self) -> str:
        return f"invalid store id {shown(self.id)}: {self.reason}"


@dataclass(frozen=True, slots=True)
class ValueNotFound(ThriftFpError):
    """Nothing is stored under ``id``.

    >>> ValueNotFound("memory store 'm'", "doc").message
    "no value stored under id 'doc' in memory store 'm'"
    """

    store: str
    id: str

    @property
    def message(self) -> str:
        return f"no value stored under id {shown(self.id)} in {self.store}"


@dataclass(frozen=True, slots=True)
class NotUtf8(ThriftFpError):
    """Bytes written to (or found in) a store are not valid UTF-8 text.

    >>> NotUtf8("doc", "invalid start byte").message
    "value for id 'doc' is not UTF-8 text: invalid start byte"
    """

    id: str
    reason: str

    @property
    def message(self) -> str:
        return f"value for id {shown(self.id)} is not UTF-8 text: {self.reason}"


@dataclass(frozen=True, slots=True)
class StoreFailed(ThriftFpError):
    """The file system or database refused an operation, or the caller's byte iterable raised.

    >>> StoreFailed("write", "doc", "disk full").message
    "write of id 'doc' failed: disk full"
    """

    operation: str
    id: str
    reason: str
    cause: BaseException | None = None

    @property
    def message(self) -> str:
        return f"{self.operation} of id {shown(self.id)} failed: {self.reason}"


@dataclass(frozen=True, slots=True)
class LineOutOfRange(ThriftFpError):
    """``line(i)`` asked for a line the body does not have.

    >>> LineOutOfRange("doc", 5, 2).message
    "line 5 of 'doc' does not exist; it has 2 lines (0-based)"
    """

    id: str
    index: int
    line_count: int

    @property
    def message(self) -> str:
        return f"line {self.index} of {shown(self.id)} does not exist; it has {self.line_count} lines (0-based)"


@dataclass(frozen=True, slots=True)
class InvalidLineRange(ThriftFpError):
    """A negative count or range bound passed to head/tail/cat.

    >>> InvalidLineRange("head", "n must be >= 0, got -1").message
    'head: n must be >= 0, got -1'
    """

    operation: str
    reason: str

    @property
    def message(self) -> str:
        return f"{self.operation}: {self.reason}"


@dataclass(frozen=True, slots=True)
class InvalidPattern(ThriftFpError):
    """A grep pattern that is not a valid regular expression.

    >>> InvalidPattern("(", "missing )").message
    "grep pattern '(' is not a valid regular expression: missing )"
    """

    pattern: str
    reason: str

    @property
    def message(self) -> str:
        return f"grep pattern {shown(self.pattern)} is not a valid regular expression: {self.reason}"


@dataclass(frozen=True, slots=True)
class DuplicateRetrievableId(ThriftFpError):
    """Two retrievables in one batch share an id.

    >>> DuplicateRetrievableId("d").message
    "duplicate retrievable id 'd' in one batch; ids must be unique"
    """

    id: str

    @property
    def message(self) -> str:
        return f"duplicate retrievable id {shown(self.id)} in one batch; ids must be unique"


@dataclass(frozen=True, slots=True)
class SnapshotUnsupported(ThriftFpError):
    """A retrievable whose content cannot be written to a snapshot faithfully.

    >>> SnapshotUnsupported("a", "its content is a dynamic Tokenizable").message
    "retrievable 'a' cannot be snapshotted: its content is a dynamic Tokenizable"
    """

    id: str
    reason: str

    @property
    def message(self) -> str:
        return f"retrievable {shown(self.id)} cannot be snapshotted: {self.reason}"


@dataclass(frozen=True, slots=True)
class InvalidSnapshot(ThriftFpError):
    """A snapshot that does not have the shape ``to_snapshot`` writes.

    >>> InvalidSnapshot("content", "expected an object, got int").message
    'invalid snapshot at content: expected an object, got int'
    """

    field: str
    reason: str

    @property
    def message(self) -> str:
        return f"invalid snapshot at {self.field}: {self.reason}"


@dataclass(frozen=True, slots=True)
class UnresolvableReader(ThriftFpError):
    """A reader descriptor that names no store this process can open.

    >>> UnresolvableReader("memory", "m", "doc", "pass it in stores=").message
    "cannot reopen memory store at 'm' for id 'doc': pass it in stores="
    """

    store: str
    location: str
    id: str
    reason: str

    @property
    def message(self) -> str:
        return f"cannot reopen {self.store} store at {shown(self.location)} for id {shown(self.id)}: {self.reason}"


StoreError = InvalidStoreId | ValueNotFound | NotUtf8 | StoreFailed | LineOutOfRange

SnapshotError = SnapshotUnsupported | InvalidSnapshot | UnresolvableReader

RecordError = (
    InvalidRetrievable
    | StoreError
    | SnapshotError
    | InvalidLineRange
    | InvalidPattern
    | DuplicateRetrievableId
    | TokenError
)
