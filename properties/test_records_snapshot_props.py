"""from_snapshot(to_snapshot(r)) == r for every content kind, through real JSON text."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from properties.records_strategies import SHARED_STORES, bodies, materialise, raw_records, spool_plans
from thrift_fp.records import SpooledArtifact, UnresolvableReader, from_snapshot, parse_retrievable, to_snapshot
from thrift_fp.tokens import Tokenizable

@given(raw_records())
def test_snapshots_round_trip_through_json(raw: dict[str, Any]) -> None:
    record = parse_retrievable(materialise(raw)).unwrap()
    snapshot = to_snapshot(record).unwrap()
    text = json.dumps(snapshot, allow_nan=False)  # strict JSON: no NaN/inf can hide in a snapshot
    # The same resolver goes back in (a snapshot holds no code), so the artifact keeps its type.
    back = from_snapshot(json.loads(text), stores=SHARED_STORES, artifact_constructor=record.artifact_constructor).unwrap()
    assert back == record
    assert type(back.content) is type(record.content)
    assert back.created_at.utcoffset() == back.updated_at.utcoffset() == timedelta(0)
    if isinstance(record.content, SpooledArtifact):
        assert isinstance(back.content, SpooledArtifact)
        assert back.content.as_string() == record.content.as_string()
    assert to_snapshot(back).unwrap() == snapshot

@given(st.one_of(st.text(min_size=1), bodies.map(Tokenizable), spool_plans), st.booleans(), st.data())
def test_each_content_kind_inline_or_not(content: Any, inline: bool, data: st.DataObject) -> None:
    raw = data.draw(raw_records(content=st.just(content)))
    raw["inline"] = inline
    record = parse_retrievable(materialise(raw)).unwrap()
    snapshot = json.loads(json.dumps(to_snapshot(record).unwrap()))
    back = from_snapshot(snapshot, stores=SHARED_STORES, artifact_constructor=record.artifact_constructor).unwrap()
    assert back == record
    assert (back.handle_mode, back.size_unknown) == (record.handle_mode, record.size_unknown)



@given(spool_plans, st.data())
def test_a_spooled_snapshot_reopens_only_through_its_own_store(plan: Any, data: st.DataObject) -> None:
    # A snapshot is untrusted data: without its store among the given ones it reads nothing.
    raw = data.draw(raw_records(content=st.just(plan)))
    record = parse_retrievable(materialise(raw)).unwrap()
    assert isinstance(record.content, SpooledArtifact)
    others = [store for store in SHARED_STORES if store is not plan.store]
    given_stores = data.draw(st.lists(st.sampled_from(others), unique=True), label="stores")
    snapshot = json.loads(json.dumps(to_snapshot(record).unwrap()))
    resolver = record.artifact_constructor
    assert isinstance(from_snapshot(snapshot, stores=given_stores, artifact_constructor=resolver).failure(), UnresolvableReader)
    assert from_snapshot(snapshot, stores=[*given_stores, plan.store], artifact_constructor=resolver).unwrap() == record
