"""Reading one file (text, Markdown or JSONL) into the passages the index stores."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import PurePath
from typing import Final, Literal

from returns.result import Failure, Result, Success

from thrift_fp.records import TRUST_TIERS
from thrift_fp.sources._chunk import chunk_text
from thrift_fp.sources._errors import InvalidJsonlRecord, SourceError

Kind = Literal["markdown", "text", "jsonl"]
_KINDS: Final[dict[str, Kind]] = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".txt": "text",
    ".text": "text",
    ".rst": "text",
    ".jsonl": "jsonl",
}
INDEXED_SUFFIXES: Final = frozenset(_KINDS)


def kind_of(path: PurePath) -> Kind:
    """The document kind a file's suffix implies; anything unknown is plain text.

    >>> kind_of(PurePath("a/b.MD")), kind_of(PurePath("x.jsonl")), kind_of(PurePath("log"))
    ('markdown', 'jsonl', 'text')
    """
    return _KINDS.get(path.suffix.lower(), "text")


def content_hash(text: str) -> str:
    """SHA-256 (hex) of a passage's UTF-8 text: equal text, equal hash.

    >>> content_hash("abc")[:16]
    'ba7816bf8f01cfea'
    """
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class DocumentPassage:
    """A passage ready to store: id, position, text, exact tokens, hash, tier, metadata JSON."""

    passage_id: str
    ordinal: int
    text: str
    tokens: int
    content_hash: str
    trust_tier: str
    metadata: str


def document_passages(
    label: str,
    kind: Kind,
    text: str,
    *,
    max_tokens: int,
    encoding: str,
    trust_tier: str,
) -> Result[tuple[DocumentPassage, ...], SourceError]:
    """Chunk one file's text into passages with ids ``label#n`` (JSONL: ``label#id/n``).

    JSONL lines are objects with a non-empty string ``id``, a string ``text`` and an
    optional ``metadata`` object (a line nests at most ``MAX_JSONL_DEPTH`` levels); a
    ``trust_tier`` inside ``metadata`` overrides the file's tier. Blank lines are skipped;
    any other shape is an error naming the line.

    >>> [p.passage_id for p in document_passages("a.md", "markdown", "x\\n\\ny",
    ...     max_tokens=64, encoding="cl100k_base", trust_tier="first-party").unwrap()]
    ['a.md#1']
    >>> rows = '{"id": "r1", "text": "hi", "metadata": {"trust_tier": "third-party-public"}}'
    >>> [(p.passage_id, p.trust_tier) for p in document_passages("d.jsonl", "jsonl", rows,
    ...     max_tokens=64, encoding="cl100k_base", trust_tier="first-party").unwrap()]
    [('d.jsonl#r1/1', 'third-party-public')]
    """
    if kind != "jsonl":
        return _passages(f"{label}#", text, kind == "markdown", {}, max_tokens, encoding, trust_tier)
    records = _jsonl_records(label, text)
    if isinstance(records, Failure):
        return records
    passages: list[DocumentPassage] = []
    for record_id, body, metadata in records.unwrap():
        tier = metadata.get("trust_tier", trust_tier)
        chunked = _passages(
            f"{label}#{record_id}/", body, False, {"record_id": record_id, **metadata},
            max_tokens, encoding, str(tier),
        )
        if isinstance(chunked, Failure):
            return chunked
        passages.extend(chunked.unwrap())
    return Success(tuple(passages))


def _passages(
    prefix: str,
    text: str,
    markdown: bool,
    metadata: dict[str, object],
    max_tokens: int,
    encoding: str,
    trust_tier: str,
) -> Result[tuple[DocumentPassage, ...], SourceError]:
    metadata_json = json.dumps(metadata, sort_keys=True, ensure_ascii=False)
    return chunk_text(text, max_tokens, encoding=encoding, markdown=markdown).map(
        lambda chunks: tuple(
            DocumentPassage(
                f"{prefix}{n}", n, chunk.text, chunk.tokens, content_hash(chunk.text), trust_tier, metadata_json
            )
            for n, chunk in enumerate(chunks, start=1)
        )
    )


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


def _jsonl_records(label: str, text: str) -> Result[list[_JsonlRecord], SourceError]:
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
        record = _record(raw, seen)
        if isinstance(record, str):
            return Failure(InvalidJsonlRecord(label, number, record))
        seen.add(record[0])
        records.append(record)
    return Success(records)


def _record(raw: object, seen: set[str]) -> _JsonlRecord | str:
    """The record's id, text and metadata, or the reason it is not a valid record."""
    if not isinstance(raw, dict):
        return f"expected a JSON object, got {type(raw).__name__}"
    unknown = sorted(set(raw) - {"id", "text", "metadata"})
    record_id, body, metadata = raw.get("id"), raw.get("text"), raw.get("metadata", {})
    if unknown:
        return f"unknown keys {unknown}; allowed: id, text, metadata"
    if not isinstance(record_id, str) or not record_id:
        return f"'id' must be a non-empty string, got {record_id!r}"
    if record_id in seen:
        return f"duplicate id {record_id!r}"
    if not isinstance(body, str):
        return f"'text' must be a string, got {type(body).__name__}"
    if not isinstance(metadata, dict):
        return f"'metadata' must be an object, got {type(metadata).__name__}"
    tier = metadata.get("trust_tier")
    if tier is not None and tier not in TRUST_TIERS:
        return f"metadata trust_tier {tier!r} is not one of {', '.join(TRUST_TIERS)}"
    return record_id, body, {str(key): value for key, value in metadata.items()}
