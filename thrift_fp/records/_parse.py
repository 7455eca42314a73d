"""Turning untrusted input (often decoded JSON) into a ``Retrievable``, reporting every problem."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any, Final, Required, TypedDict, TypeVar

from returns.result import Failure, Result, Success

from thrift_fp.records._artifact import SpooledArtifact
from thrift_fp.records._constructor import ArtifactConstructor
from thrift_fp._shown import shown
from thrift_fp.records._errors import FieldProblem, InvalidRetrievable
from thrift_fp.records._fields import (
    FIELDS,
    REQUIRED,
    TIERS_TEXT,
    check_constructor as _check_constructor,
    check_content as _check_content,
    check_id as _check_id,
    check_inline as _check_inline,
    check_score as _check_score,
    check_tier as _check_tier,
    optional_text as _optional_text,
)
from thrift_fp.records._retrievable import Retrievable
from thrift_fp.records._tier import TrustTier
from thrift_fp.records._timestamps import parse_timestamp
from thrift_fp.tokens import Tokenizable


class RawRetrievable(TypedDict, total=False):
    """The input ``parse_retrievable`` expects (field names are snake_case).

    >>> raw: RawRetrievable = {"id": "kb-1", "content": "Refunds take 5 days.", "trust_tier": "first-party",
    ...                        "created_at": "2024-05-01T12:00:00Z", "updated_at": 1714564800}
    >>> parse_retrievable(raw).unwrap().trust_tier
    'first-party'
    """

    id: Required[str]
    content: Required[str | Tokenizable | SpooledArtifact]
    trust_tier: Required[TrustTier]
    created_at: Required[str | int | float | datetime]
    updated_at: Required[str | int | float | datetime]
    source: str | None
    kind: str | None
    score: float | int | None
    inline: bool
    artifact_constructor: ArtifactConstructor | None
    heading: str | None


# The seed's TypeScript spelling, so a camelCase payload gets a pointed hint.
_SEED_SPELLINGS: Final = {
    "trustTier": "trust_tier",
    "createdAt": "created_at",
    "updatedAt": "updated_at",
    "artifactConstructor": "artifact_constructor",
}

_Value = TypeVar("_Value")


# Module level, not nested: the beartype claw re-decorates a nested def on every call.
def _take(
    raw: Mapping[Any, object],  # any keys: unknown ones are reported, never trusted to be str
    problems: list[FieldProblem],
    name: str,
    check: Callable[[object], Result[_Value, str]],
) -> _Value | None:
    if raw.get(name) is None:
        if name in REQUIRED:
            problems.append(FieldProblem(name, _missing_reason(name)))
        return None
    checked = check(raw[name])
    if isinstance(checked, Failure):
        problems.append(FieldProblem(name, checked.failure()))
        return None
    return checked.unwrap()


def parse_retrievable(raw: RawRetrievable | Mapping[str, object] | object) -> Result[Retrievable, InvalidRetrievable]:
    """Validate ``raw`` strictly; the failure lists every problem with its field and reason.

    Timestamps follow ``parse_timestamp`` (ISO-8601 with offset, epoch seconds or milliseconds,
    aware datetimes; stored as aware UTC). ``None`` for an optional field means absent.
    Never raises on JSON-like input.

    >>> r = parse_retrievable({"id": "w1", "content": "Paris is in France.",
    ...     "trust_tier": "third-party-public", "source": "https://example.org/paris",
    ...     "kind": "web-page", "score": 0.82, "created_at": "2023-01-01T00:00:00+01:00",
    ...     "updated_at": 1700000000000}).unwrap()
    >>> r.created_at.isoformat(), r.updated_at.isoformat()
    ('2022-12-31T23:00:00+00:00', '2023-11-14T22:13:20+00:00')
    >>> print(parse_retrievable({"id": "", "content": "x", "score": float("nan"),
    ...     "createdAt": 0, "created_at": True, "updated_at": 0}).failure().message)
    invalid retrievable (5 problems):
      - createdAt: unknown field; did you mean 'created_at'?
      - id: must be a non-empty string, got ''
      - trust_tier: is required and has no default; choose one of 'first-party', 'third-party-public', 'third-party-private'
      - created_at: a bool (True) is not a timestamp
      - score: must be a finite number in [0, 1], got nan
    """
    if not isinstance(raw, Mapping):
        reason = f"expected an object with the fields {', '.join(FIELDS)}; got {type(raw).__name__}"
        return Failure(InvalidRetrievable((FieldProblem("(record)", reason),)))
    problems = [_unknown(key) for key in raw if key not in FIELDS]

    id_ = _take(raw, problems, "id", _check_id)
    content = _take(raw, problems, "content", _check_content)
    tier = _take(raw, problems, "trust_tier", _check_tier)
    created_at = _take(raw, problems, "created_at", parse_timestamp)
    updated_at = _take(raw, problems, "updated_at", parse_timestamp)
    source = _take(raw, problems, "source", _optional_text)
    kind = _take(raw, problems, "kind", _optional_text)
    score = _take(raw, problems, "score", _check_score)
    inline = _take(raw, problems, "inline", _check_inline)
    artifact_constructor = _take(raw, problems, "artifact_constructor", _check_constructor)
    heading = _take(raw, problems, "heading", _optional_text)
    if problems or id_ is None or content is None or tier is None or created_at is None or updated_at is None:
        return Failure(InvalidRetrievable(tuple(problems)))
    return Success(
        Retrievable(
            id=id_,
            content=content,
            trust_tier=tier,
            created_at=created_at,
            updated_at=updated_at,
            source=source,
            kind=kind,
            score=score,
            inline=bool(inline),
            artifact_constructor=artifact_constructor,
            heading=heading,
        )
    )


def _unknown(key: object) -> FieldProblem:
    name = key if isinstance(key, str) else shown(key)
    hint = _SEED_SPELLINGS.get(name)
    if hint is not None:
        return FieldProblem(name, f"unknown field; did you mean {hint!r}?")
    return FieldProblem(name, f"unknown field; the fields are {', '.join(FIELDS)}")


def _missing_reason(name: str) -> str:
    if name == "trust_tier":
        return f"is required and has no default; choose one of {TIERS_TEXT}"
    return "is required"
