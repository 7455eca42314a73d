"""Retrieved documents passed alongside a conversation, as validated records, with documented defaults.

Every adapter reads its own document objects (a mapping, a `thrift_fp.records.Retrievable`, a
LangChain ``Document``, a LlamaIndex ``NodeWithScore``) into a `DocumentRow`; this module makes
the records the fit prices and renders:

- ``id`` missing: ``sha256:`` + the first 16 hex digits of the SHA-256 of the content; a second
  document with the same id gets ``#2``, a third ``#3`` (input order), so ids stay unique.
- ``trust_tier``: the caller's ``tier`` argument, else ``third-party-private``. The adapter
  cannot know where a document came from, so it never claims first-party, and it reads an
  unknown origin as someone else's non-public material.
- ``score``: when every given score is within [0, 1] they are used as they are; otherwise all the
  scores of the call are rescaled by min-max onto [0, 1] (the lowest becomes 0, the highest 1,
  all equal become 1), which keeps their order. Higher means more relevant. NaN, infinities,
  bools and non-numbers are errors. **An unscored document ranks below every scored one**, even
  one whose score is (or is rescaled to) 0: thrift ranks a missing score as 0 and sheds the later
  of equal scores first, so the fit is handed the unscored documents after the scored ones.
- ``created_at``/``updated_at``: the Unix epoch, a fixed value that marks "unknown" and makes the
  render deterministic; no wall-clock time is invented.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence

from typing import Final, TypeVar

from returns.result import Failure, Result, Success

from thrift_fp._shown import shown
from thrift_fp._value import value
from thrift_fp.adapters._core._errors import InvalidDocument, UnreadableField
from thrift_fp.adapters._core._reads import Unread, entries, unreadable
from thrift_fp.records import Retrievable, TrustTier
from thrift_fp.records._parse import parse_retrievable

DEFAULT_TIER: Final[TrustTier] = "third-party-private"
"""The tier of a document whose caller names none."""

UNKNOWN_TIME: Final = 0
"""``created_at``/``updated_at`` of a document: the Unix epoch."""

Document = Mapping[str, object] | Retrievable
"""A retrieved document as the dict-based adapters (OpenAI, Anthropic) take it: a mapping with
``content`` (and optional ``id``, ``score``, ``source``, ``trust_tier``, ...) or a `Retrievable`."""


@value
class DocumentRow:
    """One document as an adapter read it: its text, own id (or None), raw score, source, and
    (for a mapping document) its other fields, which go to the record as they are."""

    text: object
    id: object = None
    score: object = None
    source: object = None
    fields: Mapping[object, object] | None = None


def content_id(text: str) -> str:
    """The id of a document that has none: a prefix of its text's SHA-256.

    >>> content_id("The sky is blue.")
    'sha256:52ae4fd504d855f1'
    """
    return "sha256:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _score(value: object) -> float | None | str:
    """A finite real score, ``None`` when missing, or the reason it is not one."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "expected a finite number or None"
    if isinstance(value, int) and abs(value) > 2**1023:
        return "expected a finite number within float range"
    if not math.isfinite(value):
        return "expected a finite number"
    return float(value)


def normalised_scores(scores: Sequence[float | None]) -> tuple[float | None, ...]:
    """Scores as they are when all lie in [0, 1]; else min-max rescaled onto [0, 1] (order kept).

    >>> normalised_scores([0.2, None, 0.9])
    (0.2, None, 0.9)
    >>> normalised_scores([-1.0, 3.0, 1.0])
    (0.0, 1.0, 0.5)
    >>> normalised_scores([7.0, 7.0, None])
    (1.0, 1.0, None)
    """
    given = [score for score in scores if score is not None]
    if not given or (min(given) >= 0.0 and max(given) <= 1.0):
        return tuple(scores)
    # Halved first, so that the span of two huge opposite scores cannot overflow to inf.
    low, high = min(given) / 2, max(given) / 2
    span = high - low
    return tuple(
        None if score is None else (1.0 if span == 0 else min(1.0, max(0.0, (score / 2 - low) / span)))
        for score in scores
    )


def read_documents(
    documents: object, collection: str = "documents"
) -> Result[tuple[DocumentRow | Retrievable, ...], InvalidDocument | UnreadableField]:
    """``documents`` (mappings with ``content`` and optional ``id``, ``score``, ``source``,
    ``trust_tier``, ... or `Retrievable` records) as rows, each element checked.

    >>> read_documents([{"content": "x", "score": 0.5}]).unwrap()[0].score
    0.5
    >>> read_documents([3]).failure().message
    'documents[0].(document): expected a mapping or a Retrievable, got 3'
    >>> read_documents(None).failure().message
    'documents[0].(documents): expected a list of documents, got None'
    """
    if isinstance(documents, str | bytes | Mapping) or not isinstance(documents, Sequence):
        return Failure(InvalidDocument(0, f"({collection})", f"expected a list of documents, got {shown(documents)}", collection))
    rows: list[DocumentRow | Retrievable] = []
    for index, document in enumerate(documents):
        if isinstance(document, Retrievable):
            rows.append(document)
        elif isinstance(document, Mapping):
            try:
                fields = dict(entries(document, ""))
            except Unread as unread:
                return Failure(unreadable(unread, index, document, collection))
            rows.append(DocumentRow(fields.get("content"), fields.get("id"), fields.get("score"), fields.get("source"), fields))
        else:
            return Failure(InvalidDocument(
                index, "(document)", f"expected a mapping or a Retrievable, got {shown(document)}", collection
            ))
    return Success(tuple(rows))


def documents_to_records(
    rows: Sequence[DocumentRow | Retrievable], tier: object = None, collection: str = "documents"
) -> Result[tuple[Retrievable, ...], InvalidDocument]:
    """Validate document rows into records (input order), filling the defaults in the module
    docstring; the first problem names its list, index and field.

    >>> records = documents_to_records([DocumentRow("Paris is in France.", score=12),
    ...                                 DocumentRow("Lyon too.", score=4)]).unwrap()
    >>> [(r.id, r.trust_tier, r.score) for r in records]
    [('sha256:bf72529d9e077431', 'third-party-private', 1.0), ('sha256:d68dd2a9ca0a64d8', 'third-party-private', 0.0)]
    >>> documents_to_records([DocumentRow("")]).failure().message
    'documents[0].content: expected a non-empty str'
    >>> documents_to_records([DocumentRow("x", score=float("nan"))], collection="nodes").failure().message
    'nodes[0].score: expected a finite number, got nan'
    """
    if tier is not None and tier not in ("first-party", "third-party-public", "third-party-private"):
        return Failure(InvalidDocument(0, "(tier)", f"expected a trust tier or None, got {shown(tier)}", collection))
    raw: list[float | None] = []
    for index, row in enumerate(rows):
        if isinstance(row, Retrievable):
            raw.append(None)
            continue
        score = _score(row.score)
        if isinstance(score, str):
            return Failure(InvalidDocument(index, "score", f"{score}, got {shown(row.score)}", collection))
        raw.append(score)
    scores = normalised_scores(raw)
    taken: set[str] = {row.id for row in rows if isinstance(row, Retrievable)}
    taken |= {row.id for row in rows if isinstance(row, DocumentRow) and isinstance(row.id, str) and row.id}
    records: list[Retrievable] = []
    seen: set[str] = set()
    for index, (row, score) in enumerate(zip(rows, scores, strict=True)):
        if isinstance(row, Retrievable):
            record: Retrievable | InvalidDocument = row
        else:
            record = _record(index, row, score, tier, taken, seen, collection)
        if isinstance(record, InvalidDocument):
            return Failure(record)
        if record.id in seen:
            return Failure(InvalidDocument(index, "id", f"the id {shown(record.id)} is used twice", collection))
        seen.add(record.id)
        records.append(record)
    return Success(tuple(records))


def _record(
    index: int, row: DocumentRow, score: float | None, tier: object, taken: set[str], seen: set[str], collection: str
) -> Retrievable | InvalidDocument:
    text = row.text
    if not isinstance(text, str) or not text:
        return InvalidDocument(index, "content", "expected a non-empty str", collection)
    fields: dict[object, object] = dict(row.fields) if row.fields is not None else {}
    ident = row.id if isinstance(row.id, str) and row.id else None
    if row.id is not None and ident is None:
        return InvalidDocument(index, "id", f"expected a non-empty str or None, got {shown(row.id)}", collection)
    if ident is None or ident in seen:
        ident = _fresh(content_id(text) if ident is None else ident, taken | seen)
    fields.update({"id": ident, "content": text, "score": score})
    if fields.get("trust_tier") is None:
        fields["trust_tier"] = tier if tier is not None else DEFAULT_TIER
    if isinstance(row.source, str) and row.source:
        fields["source"] = row.source
    elif "source" in fields and not isinstance(fields["source"], str):
        fields.pop("source")
    for name in ("created_at", "updated_at"):
        if fields.get(name) is None:
            fields[name] = UNKNOWN_TIME
    parsed = parse_retrievable({str(key): value for key, value in fields.items()})
    if isinstance(parsed, Failure):
        problem = parsed.failure().problems[0]
        return InvalidDocument(index, problem.field, problem.reason, collection)
    return parsed.unwrap()


def _fresh(base: str, taken: set[str]) -> str:
    if base not in taken:
        taken.add(base)
        return base
    suffix = 2
    while f"{base}#{suffix}" in taken:
        suffix += 1
    ident = f"{base}#{suffix}"
    taken.add(ident)
    return ident


_Input = TypeVar("_Input")


def kept_inputs(inputs: Sequence[_Input], records: Sequence[Retrievable], kept: Sequence[Retrievable]) -> tuple[_Input, ...]:
    """The caller's own objects behind the ``kept`` records, in input order (``records[i]`` was
    made from ``inputs[i]``).

    >>> from datetime import datetime, timezone
    >>> at = datetime(2026, 1, 1, tzinfo=timezone.utc)
    >>> a, b = (Retrievable(n, "text", "first-party", at, at) for n in ("a", "b"))
    >>> kept_inputs(["first", "second"], [a, b], [b, a])
    ('first', 'second')
    """
    position = {record.id: index for index, record in enumerate(records)}
    return tuple(inputs[index] for index in sorted(position[record.id] for record in kept))


def fit_order(records: Sequence[Retrievable]) -> tuple[Retrievable, ...]:
    """The records in the order the fit is handed them: scored first, unscored after (each in
    input order), so an unscored one sheds before any scored one (module docstring).

    >>> from thrift_fp.records import Retrievable
    >>> rows = [DocumentRow("a", "a", 2.0), DocumentRow("u", "u"), DocumentRow("b", "b", 1.0)]
    >>> [r.id for r in fit_order(documents_to_records(rows).unwrap())]
    ['a', 'b', 'u']
    """
    return (*(r for r in records if r.score is not None), *(r for r in records if r.score is None))
