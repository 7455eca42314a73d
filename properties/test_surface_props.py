"""Properties of the public surface: timestamps agree across layers, a bare str is one item."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from thrift_fp._args import as_paths, as_strings
from thrift_fp.cli._working_set_json import parse_fit_request
from thrift_fp.records import parse_retrievable
from thrift_fp.thrift import InvalidItemField, Message, WorkingSet, subtract_to_fit

_naive = st.datetimes(min_value=datetime(1971, 1, 2), max_value=datetime(9998, 1, 1))


def _record(when: datetime) -> dict[str, object]:
    return {"id": "r", "content": "x", "trust_tier": "first-party", "created_at": when, "updated_at": when}


@settings(max_examples=25)
@given(_naive)
def test_a_naive_datetime_is_refused_by_every_layer(when: datetime) -> None:
    fitted = subtract_to_fit(WorkingSet(messages=(Message("m", "hi", when),)), 1000)
    assert isinstance(fitted.failure(), InvalidItemField)
    assert "naive datetime" in fitted.failure().message
    assert "created_at" in parse_retrievable(_record(when)).failure().message
    request = {"context_window": 100, "working_set": {"messages": [
        {"id": "m", "content": "hi", "created_at": when.isoformat()}]}}
    assert "no time zone" in parse_fit_request(json.loads(json.dumps(request))).failure().message


@settings(max_examples=25)
@given(_naive)
def test_the_same_datetime_with_a_zone_is_accepted_by_every_layer(when: datetime) -> None:
    aware = when.replace(tzinfo=UTC)
    assert subtract_to_fit(WorkingSet(messages=(Message("m", "hi", aware),)), 1000).unwrap().trace.fits
    assert parse_retrievable(_record(aware)).unwrap().created_at == aware
    request = {"context_window": 100, "working_set": {"messages": [
        {"id": "m", "content": "hi", "created_at": aware.isoformat()}]}}
    assert parse_fit_request(request).unwrap().working_set.messages[0].created_at == aware


@given(st.text())
def test_a_bare_str_is_one_item_never_its_letters(text: str) -> None:
    assert as_strings(text) == (text,)
    assert as_strings(list(text)) == tuple(text)
    assert len(as_paths(text or ".")) == 1
