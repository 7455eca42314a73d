"""The closed union of errors the sources layer returns as values."""

from __future__ import annotations

from dataclasses import dataclass

from thrift_fp._errors import ThriftFpError
from thrift_fp._shown import shown
from thrift_fp.sources.dense._errors import DenseModelInvalid, DenseUnavailable, EmbeddingFailed
from thrift_fp.tokens import TokenError


@dataclass(frozen=True, slots=True)
class Fts5Unavailable(ThriftFpError):
    """This Python's SQLite was built without the FTS5 full-text extension."""

    sqlite_version: str
    reason: str

    @property
    def message(self) -> str:
        return (
            f"SQLite {self.sqlite_version} has no FTS5 full-text search ({self.reason}); "
            "use a Python whose sqlite3 module is built with FTS5 enabled"
        )


@dataclass(frozen=True, slots=True)
class InvalidChunkBound(ThriftFpError):
    """The passage token bound is too small to hold any text."""

    max_tokens: int
    minimum: int

    @property
    def message(self) -> str:
        return f"max_tokens={shown(self.max_tokens)} is too small: passages need at least {self.minimum} tokens"


@dataclass(frozen=True, slots=True)
class UnsplittableText(ThriftFpError):
    """A single character counts more tokens than the bound allows (a custom estimator)."""

    max_tokens: int
    character: str

    @property
    def message(self) -> str:
        return f"the character {shown(self.character)} alone exceeds max_tokens={shown(self.max_tokens)}"


@dataclass(frozen=True, slots=True)
class InvalidTrustTier(ThriftFpError):
    """A trust tier that is not one of the three the records layer knows (or not a str at all)."""

    value: object
    allowed: tuple[str, ...]

    @property
    def message(self) -> str:
        return f"trust tier {shown(self.value)} is not one of {', '.join(self.allowed)}"


@dataclass(frozen=True, slots=True)
class PathNotFound(ThriftFpError):
    """A file or folder named for indexing or counting does not exist."""

    path: str

    @property
    def message(self) -> str:
        return f"no such file or folder: {self.path}"


@dataclass(frozen=True, slots=True)
class UnreadableFile(ThriftFpError):
    """A file exists but could not be read or decoded as UTF-8."""

    path: str
    reason: str
    cause: BaseException | None = None

    @property
    def message(self) -> str:
        return f"cannot read {self.path}: {self.reason}"


@dataclass(frozen=True, slots=True)
class InvalidJsonlRecord(ThriftFpError):
    """One line of a JSONL file is not an object with a string ``id`` and ``content``."""

    path: str
    line: int
    reason: str

    @property
    def message(self) -> str:
        return f"{self.path}, line {self.line}: {self.reason}"


@dataclass(frozen=True, slots=True)
class CorruptDatabase(ThriftFpError):
    """The index file is not a thrift_fp SQLite index (or is damaged)."""

    path: str
    reason: str
    cause: BaseException | None = None

    @property
    def message(self) -> str:
        return f"{self.path} is not a usable thrift_fp index: {self.reason}"


@dataclass(frozen=True, slots=True)
class DatabaseMissing(ThriftFpError):
    """A query named an index file that does not exist yet."""

    path: str

    @property
    def message(self) -> str:
        return f"no index at {self.path}; build one first with `thrift-fp index PATH... --db {self.path}`"


@dataclass(frozen=True, slots=True)
class IndexWriteFailed(ThriftFpError):
    """Writing the index failed; the previous index (if any) is left as it was."""

    path: str
    reason: str
    cause: BaseException | None = None

    @property
    def message(self) -> str:
        return f"could not write the index {self.path}: {self.reason} (the previous index is unchanged)"


@dataclass(frozen=True, slots=True)
class IndexSettingsMismatch(ThriftFpError):
    """An existing index was built with other chunking settings than the ones asked for."""

    path: str
    setting: str
    stored: str
    requested: str

    @property
    def message(self) -> str:
        return (
            f"{self.path} was built with {self.setting}={self.stored}, not {self.requested}; "
            "use another --db or the stored setting"
        )


@dataclass(frozen=True, slots=True)
class MissingParser(ThriftFpError):
    """A document format needs a parser that is not installed (the ``docs`` extra)."""

    path: str
    format: str
    package: str

    @property
    def message(self) -> str:
        return (
            f"cannot read {self.path} as {self.format}: {self.package} is not installed "
            "(pip install 'thrift_fp[docs]')"
        )


@dataclass(frozen=True, slots=True)
class BinaryFile(ThriftFpError):
    """A file that holds binary data, not text (it has a NUL byte and no UTF-16/32 mark)."""

    path: str
    offset: int

    @property
    def message(self) -> str:
        return f"skipped {self.path}: binary data (a NUL byte at offset {self.offset})"


@dataclass(frozen=True, slots=True)
class UndecodableText(ThriftFpError):
    """A file that is neither UTF-8 nor in an encoding the detector could tell."""

    path: str
    reason: str

    @property
    def message(self) -> str:
        return f"cannot decode {self.path}: {self.reason}"


@dataclass(frozen=True, slots=True)
class InvalidText(ThriftFpError):
    """Text SQLite cannot store as UTF-8: a lone surrogate code point."""

    path: str
    offset: int
    code_point: int

    @property
    def message(self) -> str:
        return (
            f"{self.path}: the lone surrogate U+{self.code_point:04X} at offset {self.offset} is not text "
            "(it has no UTF-8 form)"
        )


@dataclass(frozen=True, slots=True)
class SkippedFile(ThriftFpError):
    """A file an index run could not take, and why; the rest of the run went on."""

    path: str
    error: SourceError

    @property
    def message(self) -> str:
        return self.error.message


@dataclass(frozen=True, slots=True)
class IndexProblems(ThriftFpError):
    """A strict run refused to commit because some files could not be indexed."""

    path: str
    skipped: tuple[SkippedFile, ...]

    @property
    def message(self) -> str:
        first = self.skipped[0].message if self.skipped else ""
        more = f" (and {len(self.skipped) - 1} more)" if len(self.skipped) > 1 else ""
        return f"strict run: {len(self.skipped)} files could not be indexed, nothing written to {self.path}: {first}{more}"


@dataclass(frozen=True, slots=True)
class NoQuery(ThriftFpError):
    """``assemble`` was given an empty collection of queries, or an item that is not text."""

    reason: str

    @property
    def message(self) -> str:
        return f"no query to answer: {self.reason}"


@dataclass(frozen=True, slots=True)
class InvalidArgument(ThriftFpError):
    """An element of a collection argument of the wrong type, or a pattern the matcher refuses:
    ``parameter[index]`` names it (beartype checks a sampled element only, so each is checked)."""

    parameter: str
    index: int
    value: object
    expected: str

    @property
    def message(self) -> str:
        return f"{self.parameter}[{self.index}] is {shown(self.value)}; expected {self.expected}"


SourceError = (
    Fts5Unavailable
    | DenseUnavailable
    | DenseModelInvalid
    | EmbeddingFailed
    | InvalidChunkBound
    | UnsplittableText
    | InvalidTrustTier
    | PathNotFound
    | UnreadableFile
    | InvalidJsonlRecord
    | CorruptDatabase
    | DatabaseMissing
    | IndexWriteFailed
    | IndexSettingsMismatch
    | MissingParser
    | BinaryFile
    | UndecodableText
    | InvalidText
    | IndexProblems
    | NoQuery
    | InvalidArgument
    | TokenError
)
