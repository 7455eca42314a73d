"""The closed union of errors the records layer returns as values."""

from __future__ import annotations

from thrift_fp._errors import ErrorValue
from thrift_fp._shown import shown_text
from thrift_fp._value import value
from thrift_fp.tokens import TokenError


@value
class FieldProblem:
    """One invalid field of a raw retrievable: the field's name and why it is wrong.

    >>> FieldProblem("score", "must be a finite number in [0, 1], got 2").message
    'score: must be a finite number in [0, 1], got 2'
    """

    field: str
    reason: str

    @property
    def message(self) -> str:
        return f"{shown_text(self.field)}: {self.reason}"


class InvalidRetrievable(ErrorValue):
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


class InvalidStoreId(ErrorValue, template="invalid store id {id!r}: {reason}"):
    """A store id that is empty, contains NUL, or would escape the store's folder.

    >>> InvalidStoreId("../x", "contains a path separator").message
    "invalid store id '../x': contains a path separator"
    """

    id: str
    reason: str


class ValueNotFound(ErrorValue, template="no value stored under id {id!r} in {store}"):
    """Nothing is stored under ``id``.

    >>> ValueNotFound("memory store 'm'", "doc").message
    "no value stored under id 'doc' in memory store 'm'"
    """

    store: str
    id: str


class NotUtf8(ErrorValue, template="value for id {id!r} is not UTF-8 text: {reason}"):
    """Bytes written to (or found in) a store are not valid UTF-8 text.

    >>> NotUtf8("doc", "invalid start byte").message
    "value for id 'doc' is not UTF-8 text: invalid start byte"
    """

    id: str
    reason: str


class StoreFailed(ErrorValue, template="{operation!t} of id {id!r} failed: {reason}"):
    """The file system or database refused an operation, or the caller's byte iterable raised.

    >>> StoreFailed("write", "doc", "disk full").message
    "write of id 'doc' failed: disk full"
    """

    operation: str
    id: str
    reason: str
    cause: BaseException | None = None


class LineOutOfRange(
    ErrorValue,
    template="line {index!r} of {id!r} does not exist; it has {line_count} lines (0-based)",
):
    """``line(i)`` asked for a line the body does not have.

    >>> LineOutOfRange("doc", 5, 2).message
    "line 5 of 'doc' does not exist; it has 2 lines (0-based)"
    """

    id: str
    index: int
    line_count: int


class InvalidLineRange(ErrorValue, template="{operation}: {reason}"):
    """A negative count or range bound passed to head/tail/cat.

    >>> InvalidLineRange("head", "n must be >= 0, got -1").message
    'head: n must be >= 0, got -1'
    """

    operation: str
    reason: str


class InvalidPattern(ErrorValue, template="grep pattern {pattern!r} is not a valid regular expression: {reason}"):
    """A grep pattern that is not a valid regular expression.

    >>> InvalidPattern("(", "missing )").message
    "grep pattern '(' is not a valid regular expression: missing )"
    """

    pattern: str
    reason: str


class DuplicateRetrievableId(ErrorValue, template="duplicate retrievable id {id!r} in one batch; ids must be unique"):
    """Two retrievables in one batch share an id.

    >>> DuplicateRetrievableId("d").message
    "duplicate retrievable id 'd' in one batch; ids must be unique"
    """

    id: str


class SnapshotUnsupported(ErrorValue, template="retrievable {id!r} cannot be snapshotted: {reason}"):
    """A retrievable whose content cannot be written to a snapshot faithfully.

    >>> SnapshotUnsupported("a", "its content is a dynamic Tokenizable").message
    "retrievable 'a' cannot be snapshotted: its content is a dynamic Tokenizable"
    """

    id: str
    reason: str


class InvalidSnapshot(ErrorValue, template="invalid snapshot at {field!t}: {reason}"):
    """A snapshot that does not have the shape ``to_snapshot`` writes.

    >>> InvalidSnapshot("content", "expected an object, got int").message
    'invalid snapshot at content: expected an object, got int'
    """

    field: str
    reason: str


class UnresolvableReader(ErrorValue, template="cannot reopen {store!t} store at {location!r} for id {id!r}: {reason}"):
    """A reader descriptor that names no store this process can open.

    >>> UnresolvableReader("memory", "m", "doc", "pass it in stores=").message
    "cannot reopen memory store at 'm' for id 'doc': pass it in stores="
    """

    store: str
    location: str
    id: str
    reason: str


class ArtifactConstructorFailed(ErrorValue, template="artifact constructor for retrievable {id!r} failed: {reason}"):
    """A record's artifact constructor raised, or built something that is not a valid artifact.

    >>> ArtifactConstructorFailed("doc", "raised ValueError: no pages").message
    "artifact constructor for retrievable 'doc' failed: raised ValueError: no pages"
    """

    id: str
    reason: str
    cause: BaseException | None = None


StoreError = InvalidStoreId | ValueNotFound | NotUtf8 | StoreFailed | LineOutOfRange

SnapshotError = SnapshotUnsupported | InvalidSnapshot | UnresolvableReader

RecordError = (
    InvalidRetrievable
    | StoreError
    | SnapshotError
    | InvalidLineRange
    | InvalidPattern
    | DuplicateRetrievableId
    | ArtifactConstructorFailed
    | TokenError
)
