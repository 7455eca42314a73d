"""The rules of each field of a ``Retrievable``: what ``parse_retrievable`` checks in a mapping and
what a directly built record is checked against, so that both paths accept exactly the same records."""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import datetime
from typing import Final

from returns.result import Failure, Result, Success

from thrift_fp._shown import shown
from thrift_fp.records._artifact import SpooledArtifact
from thrift_fp.records._constructor import ArtifactConstructor, hint_problem
from thrift_fp.records._errors import FieldProblem
from thrift_fp.records._tier import TRUST_TIERS, TrustTier
from thrift_fp.records._timestamps import parse_timestamp
from thrift_fp.tokens import Tokenizable

FIELDS: Final = (
    "id",
    "content",
    "trust_tier",
    "created_at",
    "updated_at",
    "source",
    "kind",
    "score",
    "inline",
    "artifact_constructor",
    "heading",
)
REQUIRED: Final = frozenset(FIELDS[:5])
TIERS_TEXT: Final = ", ".join(repr(tier) for tier in TRUST_TIERS)


def check_id(value: object) -> Result[str, str]:
    if isinstance(value, str) and value:
        return Success(value)
    return Failure(f"must be a non-empty string, got {shown(value)}")


def check_content(value: object) -> Result[str | Tokenizable | SpooledArtifact, str]:
    if isinstance(value, str):
        return Success(value) if value else Failure("must not be an empty string")
    if isinstance(value, Tokenizable):
        return Success(value)
    if isinstance(value, SpooledArtifact):
        for name, hint in (("byte_length_hint", value.byte_length_hint), ("line_count_hint", value.line_count_hint)):
            problem = hint_problem(name, hint)
            if problem is not None:
                return Failure(f"spooled artifact's {problem}")
        return Success(value)
    return Failure(f"must be a non-empty string, a Tokenizable or a SpooledArtifact, got {type(value).__name__} {shown(value)}")


def check_constructor(value: object) -> Result[ArtifactConstructor, str]:
    # A string named a constructor in the first reading of the seed; a resolver is code, not a name.
    if callable(value) and not isinstance(value, str):
        return Success(value)
    return Failure(
        "must be a callable (reader, byte_length_hint, line_count_hint) -> SpooledArtifact, "
        f"such as a SpooledArtifact subclass; got {type(value).__name__} {shown(value)}"
    )


def check_tier(value: object) -> Result[TrustTier, str]:
    for tier in TRUST_TIERS:
        if value == tier and isinstance(value, str):
            return Success(tier)
    return Failure(f"must be one of {TIERS_TEXT}, got {shown(value)}")


def optional_text(value: object) -> Result[str, str]:
    if isinstance(value, str) and value:
        return Success(value)
    return Failure(f"must be a non-empty string when given, got {shown(value)}")


def check_score(value: object) -> Result[float, str]:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return Failure(f"must be a number in [0, 1], got {type(value).__name__} {shown(value)}")
    if isinstance(value, float) and not math.isfinite(value) or not 0 <= value <= 1:
        return Failure(f"must be a finite number in [0, 1], got {shown(value)}")
    return Success(float(value))


def check_inline(value: object) -> Result[bool, str]:
    if isinstance(value, bool):
        return Success(value)
    return Failure(f"must be true or false, got {type(value).__name__} {shown(value)}")


def check_timestamp(value: object) -> Result[datetime, str]:
    """An aware ``datetime`` in UTC (a directly built record holds datetimes, not text or epochs).

    >>> check_timestamp(datetime(2020, 1, 1)).failure()
    'naive datetime 2020-01-01 00:00:00 has no timezone; attach one (e.g. tzinfo=UTC)'
    """
    if not isinstance(value, datetime):
        return Failure(f"must be an aware datetime, got {type(value).__name__} {shown(value)}")
    return parse_timestamp(value)


_CHECKS: Final[tuple[tuple[str, Callable[[object], Result[object, str]]], ...]] = (
    ("id", check_id),
    ("content", check_content),
    ("trust_tier", check_tier),
    ("created_at", check_timestamp),
    ("updated_at", check_timestamp),
)
_OPTIONAL_CHECKS: Final[tuple[tuple[str, Callable[[object], Result[object, str]]], ...]] = (
    ("source", optional_text),
    ("kind", optional_text),
    ("score", check_score),
    ("inline", check_inline),
    ("artifact_constructor", check_constructor),
    ("heading", optional_text),
)


def checked_fields(values: dict[str, object]) -> Result[dict[str, object], tuple[FieldProblem, ...]]:
    """The fields of a directly built record, normalised (timestamps in UTC, the score a float),
    or every problem with its field, in ``parse_retrievable``'s order. ``None`` is absent for the
    optional fields (``inline`` defaults to ``False``, never ``None``).

    >>> from datetime import UTC
    >>> at = datetime(2020, 1, 1, tzinfo=UTC)
    >>> checked_fields({"id": "", "content": "x", "trust_tier": "first-party", "created_at": datetime(2020, 1, 1),
    ...                 "updated_at": at, "source": None, "kind": None, "score": 2, "inline": False,
    ...                 "artifact_constructor": None, "heading": None}).failure()[0]
    FieldProblem(field='id', reason="must be a non-empty string, got ''")
    """
    problems: list[FieldProblem] = []
    normalised: dict[str, object] = {}
    for name, check in _CHECKS:
        _check_into(name, values[name], check, problems, normalised)
    for name, check in _OPTIONAL_CHECKS:
        if values[name] is not None:
            _check_into(name, values[name], check, problems, normalised)
    # A missing flag reads as parsing reads it, so no record ever holds inline=None.
    normalised.setdefault("inline", False)
    return Failure(tuple(problems)) if problems else Success(normalised)


def _check_into(
    name: str,
    value: object,
    check: Callable[[object], Result[object, str]],
    problems: list[FieldProblem],
    normalised: dict[str, object],
) -> None:
    checked = check(value)
    if isinstance(checked, Failure):
        problems.append(FieldProblem(name, checked.failure()))
    else:
        normalised[name] = checked.unwrap()
