"""Retrieved documents passed alongside a conversation, as validated records, with documented defaults.

A document is a `thrift_fp.records.Retrievable` (used as it is) or a mapping with the fields of
`thrift_fp.records.parse_retrievable`, of which only ``content`` is required:

- ``id`` missing: ``doc-`` + the first 16 hex digits of the SHA-256 of the content; a second
  document with the same content gets ``-2``, a third ``-3`` (input order), so ids stay unique.
- ``trust_tier`` missing: the caller's ``trust_tier`` argument, else ``third-party-private``. The
  adapter cannot know where a document came from, so it never claims first-party, and it reads an
  unknown origin as someone else's non-public material.
- ``score``: when every given score is within [0, 1] they are used as they are; otherwise all the
  scores of the call are rescaled by min-max onto [0, 1] (the lowest becomes 0, the highest 1,
  all equal become 1), which keeps their order. Higher means more relevant. NaN, infinities and
  bools are errors. A missing score stays missing (thrift reads it as 0).
- ``created_at``/``updated_at`` missing: the Unix epoch (``1970-01-01T00:00:00+00:00``), a fixed
  value that marks "unknown" and makes the render deterministic; no wall-clock time is invented.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence
from typing import Final

from returns.result import Failure, Result, Success

from thrift_fp._args import Each, EachTuple, as_tuple
from thrift_fp._shown import shown
from thrift_fp.adapters._a_errors import InvalidDocument
from thrift_fp.records import Retrievable, TrustTier, parse_retrievable

DEFAULT_DOCUMENT_TIER: Final[TrustTier] = "third-party-private"
"""The tier of a document whose caller names none."""

UNKNOWN_TIME: Final = 0
"""``created_at``/``updated_at`` of a document that has none: the Unix epoch."""

Document = Mapping[str, object] | Retrievable


def content_id(content: str) -> str:
    """The content-hash id of a document without one.

    >>> content_id("Refunds take 30 days.")
    'doc-1b92e160bd3afbaf'
    """
    return "doc-" + hashlib.sha256(content.encode("utf-8", "surrogatepass")).hexdigest()[:16]


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


def normalised_scores(scores: Each[float | None]) -> EachTuple[float | None]:
    """Scores as they are when all lie in [0, 1]; else min-max rescaled onto [0, 1] (order kept).

    >>> normalised_scores([0.2, None, 0.9])
    (0.2, None, 0.9)
    >>> normalised_scores([-1.0, 3.0, 1.0])
    (0.0, 1.0, 0.5)
    >>> normalised_scores([7.0, 7.0])
    (1.0, 1.0)
    >>> normalised_scores([2.0, "high", 4.0, 10**400])  # strays are left as they are
    (0.0, 'high', 1.0, 1000...)
    """
    # Anything that is not a real number (a stray element, NaN) takes no part in the rescale
    # and comes back as it was: beartype checks one sampled element, so this never raises.
    scores = as_tuple(scores)
    real = [_rescalable(score) for score in scores]
    given = [score for score, is_real in zip(scores, real, strict=True) if is_real and score is not None]
    if not given or all(0.0 <= score <= 1.0 for score in given):
        return scores
    low, high = min(given), max(given)
    span = high - low
    scale = 0.0 if span in (0, math.inf) else 1.0 / span
    return tuple(
        (1.0 if scale == 0 else min(1.0, max(0.0, (score - low) * scale))) if is_real and score is not None else score
        for score, is_real in zip(scores, real, strict=True)
    )


def _rescalable(score: object) -> bool:
    # A float that is not NaN, or an int that a float holds (a bigger one would overflow the rescale).
    if isinstance(score, float):
        return not math.isnan(score)
    return isinstance(score, int) and not isinstance(score, bool) and abs(score) < 2**1023


def documents_to_records(
    documents: Each[Document], trust_tier: TrustTier | None = None
) -> Result[tuple[Retrievable, ...], InvalidDocument]:
    """Validate ``documents`` into records, filling the defaults in the module docstring.

    >>> records = documents_to_records([{"content": "Paris is in France.", "score": 12},
    ...                                 {"content": "Lyon too.", "score": 4}]).unwrap()
    >>> [(r.id, r.trust_tier, r.score) for r in records]
    [('doc-bf72529d9e077431', 'third-party-private', 1.0), ('doc-d68dd2a9ca0a64d8', 'third-party-private', 0.0)]
    >>> documents_to_records([{"content": ""}]).failure().message
    'documents[0].content: expected a non-empty str'
    >>> documents_to_records([{"content": "x"}, 3]).failure().message
    'documents[1].(document): expected a mapping or a Retrievable, got 3'
    """
    documents = as_tuple(documents)
    raw_scores: list[float | None] = []
    for index, document in enumerate(documents):
        if isinstance(document, Retrievable):
            raw_scores.append(document.score)
            continue
        # Each element is checked (beartype samples one): anything else is an error value.
        element: object = document  # not yet known to be a Document
        if not isinstance(element, Mapping):
            return Failure(InvalidDocument(
                index, "(document)", f"expected a mapping or a Retrievable, got {shown(element)}"
            ))
        score = _score(document.get("score"))
        if isinstance(score, str):
            return Failure(InvalidDocument(index, "score", f"{score}, got {shown(document.get('score'))}"))
        raw_scores.append(score)
    scores = normalised_scores(
        [score for document, score in zip(documents, raw_scores, strict=True) if not isinstance(document, Retrievable)]
    )
    records: list[Retrievable] = []
    taken: set[str] = {document.id for document in documents if isinstance(document, Retrievable)}
    given_ids = {document.get("id") for document in documents if isinstance(document, Mapping)}
    taken |= {ident for ident in given_ids if isinstance(ident, str)}
    mapped = iter(scores)
    for index, document in enumerate(documents):
        if isinstance(document, Retrievable):
            records.append(document)
            continue
        built = _record(index, document, next(mapped), trust_tier, taken)
        if isinstance(built, Failure):
            return built
        records.append(built.unwrap())
    return Success(tuple(records))


def _record(
    index: int, document: Mapping[str, object], score: float | None, trust_tier: TrustTier | None, taken: set[str]
) -> Result[Retrievable, InvalidDocument]:
    content = document.get("content")
    if not isinstance(content, str) or not content:
        return Failure(InvalidDocument(index, "content", "expected a non-empty str"))
    raw: dict[str, object] = dict(document)
    if raw.get("id") is None:
        raw["id"] = _fresh_id(content_id(content), taken)
    raw["score"] = score
    if raw.get("trust_tier") is None:
        raw["trust_tier"] = trust_tier if trust_tier is not None else DEFAULT_DOCUMENT_TIER
    for field in ("created_at", "updated_at"):
        if raw.get(field) is None:
            raw[field] = UNKNOWN_TIME
    parsed = parse_retrievable(raw)
    if isinstance(parsed, Failure):
        problem = parsed.failure().problems[0]
        return Failure(InvalidDocument(index, problem.field, problem.reason))
    return Success(parsed.unwrap())


def _fresh_id(base: str, taken: set[str]) -> str:
    ident, suffix = base, 1
    while ident in taken:
        suffix += 1
        ident = f"{base}-{suffix}"
    taken.add(ident)
    return ident
