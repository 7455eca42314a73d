"""The closed union of errors the sources layer returns as values."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from thrift_fp._errors import ThriftFpError
from thrift_fp.sources.dense import DenseModelInvalid, DenseUnavailable, EmbeddingFailed
from thrift_fp.tokens import TokenError


@dataclass(frozen=True, slots=True)
class Fts5Unavailable(ThriftFpError):
    """This Python's SQLite was built without the FTS5 full-text extension."""

    sqlite_version: str
    reason: str

    message_template: ClassVar[str] = (
        "SQLite {sqlite_version} has no FTS5 full-text search ({reason}); "
        "use a Python whose sqlite3 module is built with FTS5 enabled"
    )


@dataclass(frozen=True, slots=True)
class InvalidChunkBound(ThriftFpError):
    """The passage token bound is too small to hold any text."""

    max_tokens: int
    minimum: int

    message_template: ClassVar[str] = "max_tokens={max_tokens!r} is too small: passages need at least {minimum} tokens"


@dataclass(frozen=True, slots=True)
class UnsplittableText(ThriftFpError):
    """A single character counts more tokens than the bound allows (a custom estimator)."""

    max_tokens: int
    character: str

    message_template: ClassVar[str] = "the character {character!r} alone exceeds max_tokens={max_tokens!r}"


@dataclass(frozen=True, slots=True)
class InvalidTrustTier(ThriftFpError):
    """A trust tier that is not one of the three the records layer knows (or not a str at all)."""

    value: object
    allowed: tuple[str, ...]

    message_template: ClassVar[str] = "trust tier {value!r} is not one of {_allowed_list}"

    @property
    def _allowed_list(self) -> str:
        return ", ".join(self.allowed)


@dataclass(frozen=True, slots=True)
class PathNotFound(ThriftFpError):
    """A file or folder named for indexing or counting does not exist."""

    path: str

    message_template: ClassVar[str] = "no such file or folder: {path}"


@dataclass(frozen=True, slots=True)
class UnreadableFile(ThriftFpError):
    """A file exists but could not be read or decoded as UTF-8."""

    path: str
    reason: str
    cause: BaseException | None = None

    message_template: ClassVar[str] = "cannot read {path}: {reason}"


@dataclass(frozen=True, slots=True)
class InvalidJsonlRecord(ThriftFpError):
    """One line of a JSONL file is not an object with a string ``id`` and ``content``."""

    path: str
    line: int
    reason: str

    message_template: ClassVar[str] = "{path}, line {line}: {reason}"


@dataclass(frozen=True, slots=True)
class CorruptDatabase(ThriftFpError):
    """The index file is not a thrift_fp SQLite index (or is damaged)."""

    path: str
    reason: str
    cause: BaseException | None = None

    message_template: ClassVar[str] = "{path} is not a usable thrift_fp index: {reason}"


@dataclass(frozen=True, slots=True)
class DatabaseMissing(ThriftFpError):
    """A query named an index file that does not exist yet."""

    path: str

    message_template: ClassVar[str] = "no index at {path}; build one first with `thrift-fp index PATH... --db {path}`"


@dataclass(frozen=True, slots=True)
class IndexWriteFailed(ThriftFpError):
    """Writing the index failed; the previous index (if any) is left as it was."""

    path: str
    reason: str
    cause: BaseException | None = None

    message_template: ClassVar[str] = "could not write the index {path}: {reason} (the previous index is unchanged)"


@dataclass(frozen=True, slots=True)
class IndexSettingsMismatch(ThriftFpError):
    """An existing index was built with other chunking settings than the ones asked for."""

    path: str
    setting: str
    stored: str
    requested: str

    message_template: ClassVar[str] = (
        "{path} was built with {setting}={stored}, not {requested}; use another --db or the stored setting"
    )


@dataclass(frozen=True, slots=True)
class MissingParser(ThriftFpError):
    """A document format needs a parser that is not installed (the ``docs`` extra)."""

    path: str
    format: str
    package: str

    message_template: ClassVar[str] = (
        "cannot read {path} as {format}: {package} is not installed (pip install 'thrift_fp[docs]')"
    )


@dataclass(frozen=True, slots=True)
class LinkNotFollowed(ThriftFpError):
    """A symbolic link an index run did not follow: its target is outside every folder being
    indexed (a link must not carry a run out of its roots), or a walk already took it."""

    path: str
    target: str
    reason: str

    message_template: ClassVar[str] = "skipped {path}: a symbolic link to {target}, {reason}"


@dataclass(frozen=True, slots=True)
class BinaryFile(ThriftFpError):
    """A file that holds binary data, not text (it has a NUL byte and no UTF-16/32 mark)."""

    path: str
    offset: int

    message_template: ClassVar[str] = "skipped {path}: binary data (a NUL byte at offset {offset})"


@dataclass(frozen=True, slots=True)
class UndecodableText(ThriftFpError):
    """A file that is neither UTF-8 nor in an encoding the detector could tell."""

    path: str
    reason: str

    message_template: ClassVar[str] = "cannot decode {path}: {reason}"


@dataclass(frozen=True, slots=True)
class InvalidText(ThriftFpError):
    """Text SQLite cannot store as UTF-8: a lone surrogate code point."""

    path: str
    offset: int
    code_point: int

    message_template: ClassVar[str] = (
        "{path}: the lone surrogate U+{code_point:04X} at offset {offset} is not text (it has no UTF-8 form)"
    )


@dataclass(frozen=True, slots=True)
class SkippedFile(ThriftFpError):
    """A file an index run could not take, and why; the rest of the run went on."""

    path: str
    error: SourceError

    message_template: ClassVar[str] = "{error}"  # the file's own error, as it reads


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

    message_template: ClassVar[str] = "no query to answer: {reason}"


@dataclass(frozen=True, slots=True)
class InvalidArgument(ThriftFpError):
    """An element of a collection argument of the wrong type, or a pattern the matcher refuses:
    ``parameter[index]`` names it (beartype checks a sampled element only, so each is checked)."""

    parameter: str
    index: int
    value: object
    expected: str

    message_template: ClassVar[str] = "{parameter}[{index}] is {value!r}; expected {expected}"


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
    | LinkNotFollowed
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
