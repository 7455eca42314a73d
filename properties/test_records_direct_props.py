"""A directly built ``Retrievable`` obeys the rules ``parse_retrievable`` enforces: construction
accepts exactly the records parsing accepts (equal to the parsed one), refuses the rest with the
same message, and whatever was built renders and fits as values, never exceptions."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from returns.result import Failure, Success

from thrift_fp.records import TRUST_TIERS, Retrievable, parse_retrievable
from thrift_fp.render import fit_and_render, render_retrievables
from thrift_fp.thrift import WorkingSet

_ZONES = st.sampled_from([None, UTC, timezone(timedelta(hours=5)), timezone(timedelta(hours=-23, minutes=-59))])
# Naive, UTC and other offsets, and the ends of the calendar (which an offset pushes out of range).
_WHEN = st.builds(
    lambda when, zone: when.replace(tzinfo=zone),
    st.datetimes(min_value=datetime.min, max_value=datetime.max) | st.sampled_from([datetime.min, datetime.max]),
    _ZONES,
)
_TEXT = st.text(min_size=1, max_size=8) | st.sampled_from(["", " ", "\x00", "</retrieved>", "\ud7ff"])
_SCORE = st.none() | st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from([0.0, 1.0, -0.0, 1e-300])
_FIELDS = st.fixed_dictionaries(
    {
        "id": _TEXT,
        "content": _TEXT,
        "trust_tier": st.sampled_from(TRUST_TIERS),
        "created_at": _WHEN,
        "updated_at": _WHEN,
    },
    optional={"source": st.none() | _TEXT, "kind": st.none() | _TEXT, "score": _SCORE, "inline": st.booleans()},
)


def _built(fields: dict[str, Any]) -> Retrievable | str:
    try:
        return Retrievable(**fields)
    except ValueError as exc:
        return str(exc)


@settings(max_examples=300)  # cheap, and most draws are invalid: enough valid ones in every zone
@given(_FIELDS)
def test_construction_accepts_exactly_what_parsing_accepts(fields: dict[str, Any]) -> None:
    built, parsed = _built(fields), parse_retrievable(fields)
    if isinstance(built, str):
        assert isinstance(parsed, Failure) and built == parsed.failure().message
    else:
        assert parsed == Success(built)
        assert built.created_at.tzinfo is UTC and built.updated_at.tzinfo is UTC


@given(st.lists(_FIELDS, max_size=6))
def test_whatever_was_built_renders_and_fits_as_values(many: list[dict[str, Any]]) -> None:
    records = [record for record in map(_built, many) if isinstance(record, Retrievable)]
    ids = {record.id for record in records}
    rendered = render_retrievables(records)
    assert isinstance(rendered, Success | Failure)
    if len(ids) == len(records):
        fitted = fit_and_render(WorkingSet(retrievables=tuple(records)), 4096)
        assert isinstance(fitted, Success | Failure)
