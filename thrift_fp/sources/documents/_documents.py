"""One document to the passages any store keeps: decode, parse its structure, split it.

This is the store-independent half of indexing: `file_passages` (bytes) and
`document_passages` (text) depend on no database, so the SQLite index and any other store
share the same passages, heading paths, merging and per-file errors.
"""

from __future__ import annotations

import hashlib
import json
import re

from pathlib import PurePath
from typing import Final, Literal

from returns.result import Failure, Result, Success

from thrift_fp._value import value
from thrift_fp.sources.documents._decode import decode_text
from thrift_fp.sources.contract import HEADING_SEPARATOR, InvalidJsonlRecord, InvalidText, SourceError
from thrift_fp.sources.documents._html import html_structure
from thrift_fp.sources.documents._markdown import markdown_structure
from thrift_fp.sources.documents._rst import rst_structure
from thrift_fp.sources.documents._sections import section_passages
from thrift_fp.sources.documents._structure import StructuredText, plain_structure

Kind = Literal["markdown", "rst", "html", "text", "jsonl"]
"""How a file is read, from its suffix (`kind_of`)."""
_KINDS: Final[dict[str, Kind]] = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".rst": "rst",
    ".html": "html",
    ".htm": "html",
    ".txt": "text",
    ".text": "text",
    ".jsonl": "jsonl",
}
_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def kind_of(path: PurePath) -> Kind:
    """The document kind a file's suffix implies; anything unknown is plain text.

    >>> kind_of(PurePath("a/b.MD")), kind_of(PurePath("x.rst")), kind_of(PurePath("i.htm")), kind_of(PurePath("log"))
    ('markdown', 'rst', 'html', 'text')
    """
    return _KINDS.get(path.suffix.lower(), "text")


def content_hash(text: str) -> str:
    """SHA-256 (hex) of a passage's text: equal text, equal hash; never raises.

    Lone surrogates hash by their code points (``surrogatepass``), so distinct strings
    keep distinct hashes.

    >>> content_hash("abc")[:16]
    'ba7816bf8f01cfea'
    >>> content_hash("\\ud800") != content_hash("\\udc00")
    True
    """
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


@value
class DocumentPassage:
    """A passage ready to store: id, position, text, exact tokens, hash, tier, metadata JSON,
    and the path of headings it sits under (also in the metadata as ``heading_path``)."""

    passage_id: str
    ordinal: int
    text: str
    tokens: int
    content_hash: str
    trust_tier: str
    metadata: str
    heading_path: tuple[str, ...] = ()

    @property
    def heading(self) -> str:
        """The heading path as one line, as the index's heading column holds it.

        >>> DocumentPassage("a#1", 1, "x", 1, "h", "first-party", "{}", ("fs", "readFile")).heading
        'fs › readFile'
        """
        return HEADING_SEPARATOR.join(self.heading_path)


@value
class FilePassages:
    """A file's passages with the SHA-256 of its bytes and the encoding its text was read in."""

    sha256: str
    encoding: str
    passages: tuple[DocumentPassage, ...]


def file_passages(
    label: str,
    kind: Kind,
    data: bytes,
    *,
    max_tokens: int,
    encoding: str,
    trust_tier: str,
) -> Result[FilePassages, SourceError]:
    """Decode a file's bytes (`decode_text`) and split them into passages (`document_passages`).

    >>> done = file_passages("a.md", "markdown", b"# Title\\n\\nBody.", max_tokens=64,
    ...                      encoding="cl100k_base", trust_tier="first-party").unwrap()
    >>> done.encoding, [(p.passage_id, p.heading) for p in done.passages]
    ('utf-8', [('a.md#1', 'Title')])
    >>> file_passages("x.bin", "text", b"\\x00\\x01", max_tokens=64, encoding="cl100k_base",
    ...               trust_tier="first-party").failure().message
    'skipped x.bin: binary data (a NUL byte at offset 0)'
    """
    decoded = decode_text(data, label)
    if isinstance(decoded, Failure):
        return Failure(decoded.failure())
    text = decoded.unwrap()
    chunked: Result[tuple[DocumentPassage, ...], SourceError] = document_passages(
        label, kind, text.text, max_tokens=max_tokens, encoding=encoding, trust_tier=trust_tier
    )
    return chunked.map(lambda passages: FilePassages(hashlib.sha256(data).hexdigest(), text.encoding, passages))


def document_structure(label: str, kind: Kind, text: str) -> Result[StructuredText, SourceError]:
    """The headings of one document, by its kind (JSONL and plain text have none).

    >>> [h.title for h in document_structure("a.rst", "rst", "Title\\n=====\\n\\nBody").unwrap().headings]
    ['Title']
    """
    if kind == "markdown":
        markdown: Result[StructuredText, SourceError] = markdown_structure(text, label)
        return markdown
    if kind == "html":
        html: Result[StructuredText, SourceError] = html_structure(text, label)
        return html
    if kind == "rst":
        return Success(rst_structure(text))
    return Success(plain_structure(text))


def document_passages(
    label: str,
    kind: Kind,
    text: str,
    *,
    max_tokens: int,
    encoding: str,
    trust_tier: str,
) -> Result[tuple[DocumentPassage, ...], SourceError]:
    """Split one document into heading-aware passages with ids ``label#n`` (JSONL: ``label#id/n``).

    Markdown, reStructuredText and HTML are split on their headings (see `section_passages`);
    plain text on paragraphs. JSONL lines are objects with a non-empty string ``id``, the text
    as ``content`` (as in `parse_retrievable`; ``text`` is accepted too) and an optional
    ``metadata`` object (a line nests at most ``MAX_JSONL_DEPTH`` levels). The trust tier is
    the operator's (``trust_tier``) for every record: a ``trust_tier`` key inside ``metadata``
    is refused, since content never chooses its own tier. Blank lines are skipped; any other
    shape is an error naming the line.

    >>> [p.passage_id for p in document_passages("a.md", "markdown", "x\\n\\ny",
    ...     max_tokens=64, encoding="cl100k_base", trust_tier="first-party").unwrap()]
    ['a.md#1']
    >>> rows = '{"id": "r1", "content": "hi"}'
    >>> [(p.passage_id, p.trust_tier) for p in document_passages("d.jsonl", "jsonl", rows,
    ...     max_tokens=64, encoding="cl100k_base", trust_tier="third-party-public").unwrap()]
    [('d.jsonl#r1/1', 'third-party-public')]
    >>> claim = '{"id": "r1", "content": "hi", "metadata": {"trust_tier": "first-party"}}'
    >>> print(document_passages("d.jsonl", "jsonl", claim, max_tokens=64, encoding="cl100k_base",
    ...     trust_tier="third-party-public").failure().message)
    d.jsonl, line 1: metadata.trust_tier 'first-party' is refused: a record cannot choose its own trust tier (every record takes the tier the file is indexed under, here third-party-public); remove the key
    """
    for where, value in (("its label", label), ("its text", text)):
        bad = _SURROGATE.search(value)
        if bad is not None:
            shown = label.encode("utf-8", "backslashreplace").decode("utf-8") if where == "its text" else "<label>"
            return Failure(InvalidText(shown, bad.start(), ord(bad.group())))
    if kind != "jsonl":
        structured = document_structure(label, kind, text)
        if isinstance(structured, Failure):
            return structured
        return _passages(f"{label}#", structured.unwrap(), kind == "markdown", {}, max_tokens, encoding, trust_tier)
    records = _jsonl_records(label, text, trust_tier)
    if isinstance(records, Failure):
        return records
    passages: list[DocumentPassage] = []
    for record_id, body, metadata in records.unwrap():
        chunked = _passages(
            f"{label}#{record_id}/", plain_structure(body), False, {"record_id": record_id, **metadata},
            max_tokens, encoding, trust_tier,
        )
        if isinstance(chunked, Failure):
            return chunked
        passages.extend(chunked.unwrap())
    return Success(tuple(passages))


def _passages(
    prefix: str,
    document: StructuredText,
    fenced: bool,
    metadata: dict[str, object],
    max_tokens: int,
    encoding: str,
    trust_tier: str,
) -> Result[tuple[DocumentPassage, ...], SourceError]:
    plain = json.dumps(metadata, sort_keys=True, ensure_ascii=False)
    split = section_passages(document, max_tokens, encoding=encoding, fenced=fenced)
    return split.map(
        lambda chunks: tuple(
            DocumentPassage(
                f"{prefix}{n}", n, chunk.text, chunk.tokens, content_hash(chunk.text), trust_tier,
                _with_headings(metadata, chunk.heading_path) if chunk.heading_path else plain, chunk.heading_path,
            )
            for n, chunk in enumerate(chunks, start=1)
        )
    )


def _with_headings(metadata: dict[str, object], path: tuple[str, ...]) -> str:
    return json.dumps({**metadata, "heading_path": list(path)}, sort_keys=True, ensure_ascii=False)


_JsonlRecord = tuple[str, str, dict[str, object]]
# Stored metadata is decoded again on every search, in a deeper call stack than here;
# a fixed bound keeps that decode far from Python's recursion limit.
MAX_JSONL_DEPTH: Final = 100
_TOO_DEEP: Final = f"invalid JSON: nested too deeply (more than {MAX_JSONL_DEPTH} levels)"


def _depth(value: object) -> int:
    deepest, pending = 0, [(value, 1)]
    while pending:
        item, level = pending.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, level)
            pending.extend((child, level + 1) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


def _jsonl_records(label: str, text: str, trust_tier: str) -> Result[list[_JsonlRecord], SourceError]:
    records: list[_JsonlRecord] = []
    seen: set[str] = set()
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            raw: object = json.loads(line)
            # SQLite stores UTF-8: a lone surrogate escape (\ud800) decodes to text it cannot take.
            json.dumps(raw, ensure_ascii=False).encode("utf-8")
        except json.JSONDecodeError as exc:
            return Failure(InvalidJsonlRecord(label, number, f"invalid JSON: {exc.msg}"))
        except RecursionError:
            return Failure(InvalidJsonlRecord(label, number, _TOO_DEEP))
        except UnicodeEncodeError as exc:
            surrogate = f"\\u{ord(exc.object[exc.start]):04x}"
            return Failure(InvalidJsonlRecord(label, number, f"the escape {surrogate} is a lone surrogate, not text"))
        except ValueError as exc:
            # Only the int-conversion digit limit; its advice (sys.set_int_max_str_digits) is not the user's.
            return Failure(InvalidJsonlRecord(label, number, f"invalid JSON: {str(exc).split(';')[0]}"))
        if _depth(raw) > MAX_JSONL_DEPTH:
            return Failure(InvalidJsonlRecord(label, number, _TOO_DEEP))
        record = _record(raw, seen, trust_tier)
        if isinstance(record, str):
            return Failure(InvalidJsonlRecord(label, number, record))
        seen.add(record[0])
        records.append(record)
    return Success(records)


def _record(raw: object, seen: set[str], trust_tier: str) -> _JsonlRecord | str:
    """The record's id, text and metadata, or the reason it is not a valid record."""
    if not isinstance(raw, dict):
        return f"expected a JSON object, got {type(raw).__name__}"
    unknown = sorted(set(raw) - {"id", "content", "text", "metadata"})
    record_id, metadata = raw.get("id"), raw.get("metadata", {})
    if unknown:
        return f"unknown keys {unknown}; allowed: id, content (or text), metadata"
    if not isinstance(record_id, str) or not record_id:
        return f"'id' must be a non-empty string, got {_shown(record_id)}"
    if record_id in seen:
        return f"duplicate id {record_id!r}"
    if "content" in raw and "text" in raw:
        return "give the text once, as 'content' (or 'text'), not both"
    key = "content" if "content" in raw else "text"
    body = raw.get(key)
    if not isinstance(body, str):
        return f"'content' must be a string, got {type(body).__name__}" if key == "content" or body is not None \
            else "missing 'content' (the record's text)"
    if not isinstance(metadata, dict):
        return f"'metadata' must be an object, got {type(metadata).__name__}"
    if "trust_tier" in metadata:
        return (
            f"metadata.trust_tier {_shown(metadata['trust_tier'])} is refused: a record cannot choose its own "
            f"trust tier (every record takes the tier the file is indexed under, here {trust_tier}); remove the key"
        )
    return record_id, body, {str(key): value for key, value in metadata.items()}


def _shown(value: object) -> str:
    # Never repr unbounded data into a message: a 10,000-digit int or a long string stays short.
    if isinstance(value, str):
        return repr(value[:60] + "…") if len(value) > 60 else repr(value)
    if isinstance(value, bool | float) or value is None:
        return repr(value)
    return f"a JSON {type(value).__name__}" if not isinstance(value, int) else "a number"
