"""Render properties: no breakout, round trip, tier isolation, keyed nonces, exact token counts."""

from __future__ import annotations

from datetime import datetime

from hypothesis import given
from hypothesis import strategies as st

from properties.render_parser import ParsedEnvelope, bodies_open_or_close_nothing, parse_rendered
from properties.render_strategies import KEY, RecordSpec, build, ids, nonce_modes, record_specs
from thrift_fp.records import Retrievable
from thrift_fp.render import KeyedNonce, NonceMode, Rendered, render_retrievables
from thrift_fp.tokens import count_tokens

_THIRD_PARTY_KIND = {
    "third-party-public": "retrieved-third-party-public",
    "third-party-private": "retrieved-third-party-private",
}


def _render(records: tuple[Retrievable, ...], mode: NonceMode, encoding: str = "cl100k_base") -> Rendered:
    return render_retrievables(records, encoding=encoding, nonce=mode).unwrap()


def _by_nonce(rendered: Rendered) -> dict[str, ParsedEnvelope]:
    return {envelope.nonce: envelope for envelope in parse_rendered(rendered.text)}


def _expected_attributes(record: Retrievable, nonce: str) -> tuple[tuple[str, str], ...]:
    score = None if record.score is None else str(record.score)
    stamp = record.created_at.isoformat()
    pairs: tuple[tuple[str, str | None], ...]
    if record.trust_tier == "first-party":
        pairs = (("source", record.source), ("nonce", nonce), ("created_at", stamp), ("kind", record.kind), ("score", score))
    else:
        pairs = (
            ("kind", _THIRD_PARTY_KIND[record.trust_tier]), ("tool", record.source), ("nonce", nonce),
            ("created_at", stamp), ("content_kind", record.kind), ("score", score),
        )
    return tuple((name, value) for name, value in pairs if value is not None)


@given(record_specs(), nonce_modes)
def test_no_breakout(specs: tuple[RecordSpec, ...], mode: NonceMode) -> None:
    records = build(specs)
    rendered = _render(records, mode)
    envelopes = parse_rendered(rendered.text)  # strict: raises on any envelope a body opened or closed
    assert len(envelopes) == len(records)
    assert bodies_open_or_close_nothing(envelopes)
    parsed = {envelope.nonce: envelope for envelope in envelopes}
    for record in records:
        assert parsed[rendered.nonces[record.id]].body == record.rendered_body("cl100k_base").unwrap()


@given(record_specs(), nonce_modes)
def test_round_trip_recovers_bodies_and_attributes(specs: tuple[RecordSpec, ...], mode: NonceMode) -> None:
    records = build(specs)
    rendered = _render(records, mode)
    parsed = _by_nonce(rendered)
    for record in records:
        envelope = parsed[rendered.nonces[record.id]]
        assert envelope.attributes == _expected_attributes(record, rendered.nonces[record.id])
        assert datetime.fromisoformat(envelope.attribute("created_at") or "") == record.created_at
        assert envelope.body == record.rendered_body("cl100k_base").unwrap()


@given(record_specs(), nonce_modes)
def test_tier_isolation_and_order(specs: tuple[RecordSpec, ...], mode: NonceMode) -> None:
    records = build(specs)
    rendered = _render(records, mode)
    envelopes = parse_rendered(rendered.text)
    record_of = {rendered.nonces[record.id]: record for record in records}
    assert len(record_of) == len(records) == len(envelopes)  # no record twice, none missing
    assert [envelope.block for envelope in envelopes] == [record_of[envelope.nonce].trust_tier for envelope in envelopes]
    first = [record_of[envelope.nonce].id for envelope in envelopes if envelope.block == "first-party"]
    assert first == [record.id for record in records if record.trust_tier == "first-party"]
    for tier in ("third-party-public", "third-party-private"):
        mine = [record_of[envelope.nonce] for envelope in envelopes if envelope.block == tier]
        assert mine == sorted(mine, key=lambda record: (record.created_at, record.id))
    frame = rendered.text
    for envelope in envelopes:
        frame = frame.replace(envelope.body, "", 1)
    assert "first-party" not in frame


@given(ids, ids, st.binary(min_size=16, max_size=64), st.binary(min_size=16, max_size=64))
def test_keyed_nonces_deterministic_keyed_and_never_the_id(
    record_id: str, other_id: str, key: bytes, other_key: bytes
) -> None:
    mode = KeyedNonce(key)
    assert mode.draw(record_id, 0) == KeyedNonce(bytes(key)).draw(record_id, 0)
    if other_key != key:
        assert KeyedNonce(other_key).draw(record_id, 0) != mode.draw(record_id, 0)
    if other_id != record_id:
        assert mode.draw(other_id, 0) != mode.draw(record_id, 0)
    at = datetime.fromisoformat("2026-01-01T00:00:00+00:00")
    records = (Retrievable(record_id, record_id, "first-party", at, at),)
    rendered = render_retrievables(records, nonce=mode).unwrap()
    assert rendered.nonces[record_id] != record_id
    assert rendered == render_retrievables(records, nonce=KeyedNonce(key)).unwrap()


@given(record_specs(), nonce_modes, st.sampled_from(["cl100k_base", "o200k_base"]))
def test_reported_tokens_equal_a_fresh_count(specs: tuple[RecordSpec, ...], mode: NonceMode, encoding: str) -> None:
    records = build(specs)
    rendered = _render(records, mode, encoding)
    assert rendered.tokens == count_tokens(rendered.text, encoding).unwrap().tokens


@given(record_specs(max_size=3))
def test_keyed_renders_are_stable_for_the_same_records(specs: tuple[RecordSpec, ...]) -> None:
    records = build(specs)
    assert _render(records, KeyedNonce(KEY)).text == _render(records, KeyedNonce(KEY)).text
