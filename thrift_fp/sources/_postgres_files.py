"""The store-independent half of indexing, as the PostgreSQL source uses it.

Which files a run covers, and how one file becomes passages, are the SQLite source's rules;
this module is the one place the PostgreSQL indexer calls them, so that when those rules
change (file selection, parsers, heading paths) only this module follows.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from returns.result import Failure, Result, Success

from thrift_fp.sources._documents import DocumentPassage, document_passages, kind_of
from thrift_fp.sources._errors import SourceError, UnreadableFile
from thrift_fp.sources._index import _collect, _Found, _free_label, _gone, _storable_ns, _Stored

# Re-exported for the indexer: the file walk and the incremental rules are shared with SQLite.
Found = _Found
Stored = _Stored
gone = _gone
free_label = _free_label
storable_ns = _storable_ns
HEADING_SEPARATOR = " › "


def collect(paths: Sequence[Path]) -> Result[tuple[Found, ...], SourceError]:
    """The files a run covers (resolved, de-duplicated, in order) and their labels.

    >>> import tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp()) / "docs"
    >>> root.mkdir(); _ = (root / "a.md").write_text("x")
    >>> [item.label for item in collect([root]).unwrap()]
    ['docs/a.md']
    """
    return _collect(paths)


@dataclass(frozen=True, slots=True)
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
    >>> from thrift_fp.sources._index import _Found
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "a.txt"
    >>> _ = path.write_bytes(b"nul\\x00byte")
    >>> read_document(_Found(path, "a.txt"), "a.txt", max_tokens=64, encoding="cl100k_base",
    ...               trust_tier="first-party").failure().message
    'cannot read ...a.txt: it contains NUL characters, which PostgreSQL text cannot store'
    """
    try:
        stat = item.path.stat()
        data = item.path.read_bytes()
        text = data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return Failure(UnreadableFile(str(item.path), str(exc), exc))
    if "\x00" in text:
        return Failure(UnreadableFile(str(item.path), "it contains NUL characters, which PostgreSQL text cannot store"))
    kind = kind_of(item.path)
    chunked = document_passages(
        label, kind, text, max_tokens=max_tokens, encoding=encoding, trust_tier=trust_tier
    )
    if isinstance(chunked, Failure):
        return Failure(chunked.failure())
    if any("\\u0000" in passage.metadata for passage in chunked.unwrap()):
        return Failure(UnreadableFile(str(item.path), "its metadata holds \\u0000, which PostgreSQL jsonb cannot store"))
    return Success(
        Document(
            str(item.path), hashlib.sha256(data).hexdigest(), kind, stat.st_mtime_ns, stat.st_size, chunked.unwrap()
        )
    )


def heading_path(passage: DocumentPassage) -> str:
    """The heading path a passage sits under, as text (``''`` when its metadata has none).

    Read from the passage metadata's ``heading_path`` (a list of headings, or one string).

    >>> from thrift_fp.sources._documents import DocumentPassage
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
