"""The store-independent half of indexing, as the PostgreSQL indexer uses it.

Which files a run covers, and how one file becomes passages, are the rules of
`thrift_fp.sources.documents` that the SQLite source follows too; this module is the one
place the PostgreSQL indexer calls them, and adds what PostgreSQL cannot store (NUL).
"""

from __future__ import annotations

import json

from returns.result import Failure, Result, Success

from thrift_fp._value import value
from thrift_fp.sources.documents import (
    DocumentPassage,
    FoundFile,
    StoredFile,
    file_passages,
    free_label,
    gone,
    kind_of,
    read_selected,
    storable_ns,
)
from thrift_fp.sources.contract import HEADING_SEPARATOR, SourceError, UnreadableFile

# Re-exported for the indexer: the file walk and the incremental rules are shared with SQLite.
Found = FoundFile
Stored = StoredFile
__all__ = ["Document", "Found", "Stored", "free_label", "gone", "heading_path", "read_document", "storable_ns"]


@value
class Document:
    """One file read and chunked: its SHA-256, kind, stat and passages."""

    path: str
    sha256: str
    kind: str
    mtime_ns: int
    size: int
    passages: tuple[DocumentPassage, ...]


def read_document(
    item: Found, label: str, *, max_tokens: int, encoding: str, trust_tier: str
) -> Result[Document, SourceError]:
    """Read and chunk one file, or the reason it cannot be indexed (a per-file problem).

    PostgreSQL text cannot hold NUL characters, so a file containing one is a problem too.

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "a.txt"
    >>> _ = path.write_bytes(b"text" * 3000 + b"nul\\x00byte")
    >>> read_document(Found(path, "a.txt"), "a.txt", max_tokens=64, encoding="cl100k_base",
    ...               trust_tier="first-party").failure().message
    'cannot read ...a.txt: it contains NUL characters, which PostgreSQL text cannot store'
    """
    try:
        stat = item.path.stat()
        data = read_selected(item.path)
    except OSError as exc:
        return Failure(UnreadableFile(str(item.path), str(exc), exc))
    kind = kind_of(item.path)
    # Binary files, undecodable text and the parsers are the shared document rules (file_passages).
    read = file_passages(label, kind, data, max_tokens=max_tokens, encoding=encoding, trust_tier=trust_tier)
    if isinstance(read, Failure):
        return Failure(read.failure())
    passages = read.unwrap().passages
    if any("\x00" in passage.text for passage in passages):
        return Failure(UnreadableFile(str(item.path), "it contains NUL characters, which PostgreSQL text cannot store"))
    if any("\\u0000" in passage.metadata for passage in passages):
        return Failure(UnreadableFile(str(item.path), "its metadata holds \\u0000, which PostgreSQL jsonb cannot store"))
    return Success(Document(str(item.path), read.unwrap().sha256, kind, stat.st_mtime_ns, stat.st_size, passages))


def heading_path(passage: DocumentPassage) -> str:
    """The heading path a passage sits under, as text (``''`` when its metadata has none).

    Read from the passage metadata's ``heading_path`` (a list of headings, or one string).

    >>> from thrift_fp.sources.documents._documents import DocumentPassage
    >>> heading_path(DocumentPassage("a#1", 1, "x", 1, "h", "first-party",
    ...     '{"heading_path": ["fs", "Promises API"]}'))
    'fs › Promises API'
    """
    try:
        metadata: object = json.loads(passage.metadata)
    except ValueError:
        return ""
    found = metadata.get("heading_path") if isinstance(metadata, dict) else None
    if isinstance(found, list):
        return HEADING_SEPARATOR.join(str(part) for part in found)
    return found if isinstance(found, str) else ""
