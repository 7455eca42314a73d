"""The record attributes a caller can have rendered (``fields=``), and how each value is written."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Final, Literal

from returns.result import Failure, Result, Success

from thrift_fp.render._errors import InvalidFields

Field = Literal["id", "source", "heading", "kind", "score", "date", "created_at", "updated_at"]
"""An attribute a record's ``<data…>`` header may show (``fields=``)."""

FIELDS: Final[tuple[Field, ...]] = ("id", "source", "heading", "kind", "score", "date", "created_at", "updated_at")
"""Every field, in the order attributes are rendered (whatever order the caller names them in)."""

DEFAULT_FIELDS: Final[tuple[Field, ...]] = ("source", "score", "date")
"""Lean by default: where a record came from, how relevant it is, and the day it was written."""


def checked_fields(fields: Iterable[object]) -> Result[tuple[Field, ...], InvalidFields]:
    """``fields`` in rendering order; an unknown or repeated name (or a bare string) is an error value.

    >>> checked_fields(["date", "source"]).unwrap()
    ('source', 'date')
    >>> checked_fields(["source", "nonce"]).failure().message
    "fields: 'nonce' is not a field (known: id, source, heading, kind, score, date, created_at, updated_at)"
    """
    if isinstance(fields, str):
        return Failure(InvalidFields(fields, "is one string; give a sequence of field names"))
    names = tuple(fields)
    for name in names:
        if name not in FIELDS:
            return Failure(InvalidFields(name, f"is not a field (known: {', '.join(FIELDS)})"))
    for name in names:
        if names.count(name) > 1:
            return Failure(InvalidFields(name, "is named more than once"))
    return Success(tuple(field for field in FIELDS if field in names))


def score_text(score: float) -> str:
    """A score rounded to two decimals for display, without padding zeros.

    >>> [score_text(value) for value in (0.8576207010026824, 0.5, 1.0, 0.0, 0.004, 0.996)]
    ['.86', '.5', '1', '0', '0', '1']
    """
    return _trim_score(f"{score:.2f}")


def _trim_score(formatted: str) -> str:
    """A score's two-decimal text without padding zeros (`score_text` after the format).

    >>> _trim_score("0.50"), _trim_score("1.00"), _trim_score("-0.25")
    ('.5', '1', '-0.25')
    """
    text = formatted.rstrip("0").rstrip(".")
    return text[1:] if text.startswith("0.") else text


def date_text(when: datetime) -> str:
    """The UTC calendar day of ``when`` (records hold aware UTC datetimes).

    >>> from datetime import timezone
    >>> date_text(datetime(2026, 12, 1, 7, 43, 29, 135686, tzinfo=timezone.utc))
    '2026-12-01'
    """
    return when.date().isoformat()
