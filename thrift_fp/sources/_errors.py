"""The closed union of errors the sources layer returns as values."""

from __future__ import annotations

from dataclasses import dataclass

from thrift_fp._errors import ThriftFpError
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
        return f"max_tokens={self.max_tokens} is too small: passages need at least {self.minimum} tokens"


@dataclass(frozen=True, slots=True)
class UnsplittableText(ThriftFpError):
    """A single character counts more tokens than the bound allows (a custom estimator)."""

    max_tokens: int
    character: str

    @property
    def message(self) -> str:
        return f"the character {self.character!r} alone exceeds max_tokens={self.max_tokens}"


@dataclass(frozen=True, slots=True)
class InvalidTrustTier(ThriftFpError):
    """A trust tier that is not one of the three the records layer knows."""

    value: str
    allowed: tuple[str, ...]

    @property
    def message(self) -> str:
        return f"trust tier {self.value!r} is not one of {', '.join(self.allowed)}"


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
    """One line of a JSONL file is not an object with a string ``id`` and ``text``."""

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


SourceError = (
    Fts5Unavailable
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
    | TokenError
)
