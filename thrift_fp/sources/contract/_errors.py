"""The closed union of errors the sources layer returns as values."""

from __future__ import annotations

from thrift_fp._errors import ErrorValue
from thrift_fp.sources.dense import DenseModelInvalid, DenseUnavailable, EmbeddingFailed
from thrift_fp.tokens import TokenError


class Fts5Unavailable(
    ErrorValue,
    template="SQLite {sqlite_version} has no FTS5 full-text search ({reason}); "
    "use a Python whose sqlite3 module is built with FTS5 enabled",
):
    """This Python's SQLite was built without the FTS5 full-text extension."""

    sqlite_version: str
    reason: str


class InvalidChunkBound(
    ErrorValue,
    template="max_tokens={max_tokens!r} is too small: passages need at least {minimum} tokens",
):
    """The passage token bound is too small to hold any text."""

    max_tokens: int
    minimum: int


class UnsplittableText(ErrorValue, template="the character {character!r} alone exceeds max_tokens={max_tokens!r}"):
    """A single character counts more tokens than the bound allows (a custom estimator)."""

    max_tokens: int
    character: str


class InvalidTrustTier(ErrorValue, template="trust tier {value!r} is not one of {_allowed_list}"):
    """A trust tier that is not one of the three the records layer knows (or not a str at all)."""

    value: object
    allowed: tuple[str, ...]

    @property
    def _allowed_list(self) -> str:
        return ", ".join(self.allowed)


class PathNotFound(ErrorValue, template="no such file or folder: {path}"):
    """A file or folder named for indexing or counting does not exist."""

    path: str


class _FileFailed(ErrorValue):
    """An operation on the file ``path`` failed; ``reason`` says how, ``cause`` is what was raised."""

    path: str
    reason: str
    cause: BaseException | None = None


class UnreadableFile(_FileFailed, template="cannot read {path}: {reason}"):
    """A file exists but could not be read or decoded as UTF-8."""


class InvalidJsonlRecord(ErrorValue, template="{path}, line {line}: {reason}"):
    """One line of a JSONL file is not an object with a string ``id`` and ``content``."""

    path: str
    line: int
    reason: str


class CorruptDatabase(_FileFailed, template="{path} is not a usable thrift_fp index: {reason}"):
    """The index file is not a thrift_fp SQLite index (or is damaged)."""


class DatabaseMissing(
    ErrorValue,
    template="no index at {path}; build one first with `thrift-fp index PATH... --db {path}`",
):
    """A query named an index file that does not exist yet."""

    path: str


class IndexWriteFailed(
    _FileFailed,
    template="could not write the index {path}: {reason} (the previous index is unchanged)",
):
    """Writing the index failed; the previous index (if any) is left as it was."""


class IndexSettingsMismatch(
    ErrorValue,
    template="{path} was built with {setting}={stored}, not {requested}; use another --db or the stored setting",
):
    """An existing index was built with other chunking settings than the ones asked for."""

    path: str
    setting: str
    stored: str
    requested: str


class MissingParser(
    ErrorValue,
    template="cannot read {path} as {format}: {package} is not installed (pip install 'thrift_fp[docs]')",
):
    """A document format needs a parser that is not installed (the ``docs`` extra)."""

    path: str
    format: str
    package: str


class LinkNotFollowed(ErrorValue, template="skipped {path}: a symbolic link to {target}, {reason}"):
    """A symbolic link an index run did not follow: its target is outside every folder being
    indexed (a link must not carry a run out of its roots), or a walk already took it."""

    path: str
    target: str
    reason: str


class BinaryFile(ErrorValue, template="skipped {path}: binary data (a NUL byte at offset {offset})"):
    """A file that holds binary data, not text (it has a NUL byte and no UTF-16/32 mark)."""

    path: str
    offset: int


class UndecodableText(ErrorValue, template="cannot decode {path}: {reason}"):
    """A file that is neither UTF-8 nor in an encoding the detector could tell."""

    path: str
    reason: str


class InvalidText(
    ErrorValue,
    template="{path}: the lone surrogate U+{code_point:04X} at offset {offset} is not text (it has no UTF-8 form)",
):
    """Text SQLite cannot store as UTF-8: a lone surrogate code point."""

    path: str
    offset: int
    code_point: int


class SkippedFile(ErrorValue, template="{error}"):
    """A file an index run could not take, and why; the rest of the run went on."""

    path: str
    error: SourceError


class IndexProblems(ErrorValue):
    """A strict run refused to commit because some files could not be indexed."""

    path: str
    skipped: tuple[SkippedFile, ...]

    @property
    def message(self) -> str:
        first = self.skipped[0].message if self.skipped else ""
        more = f" (and {len(self.skipped) - 1} more)" if len(self.skipped) > 1 else ""
        return f"strict run: {len(self.skipped)} files could not be indexed, nothing written to {self.path}: {first}{more}"


class NoQuery(ErrorValue, template="no query to answer: {reason}"):
    """``assemble`` was given an empty collection of queries, or an item that is not text."""

    reason: str


class InvalidArgument(ErrorValue, template="{parameter}[{index}] is {value!r}; expected {expected}"):
    """An element of a collection argument of the wrong type, or a pattern the matcher refuses:
    ``parameter[index]`` names it (beartype checks a sampled element only, so each is checked)."""

    parameter: str
    index: int
    value: object
    expected: str


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
