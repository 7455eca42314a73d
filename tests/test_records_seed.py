"""Python counterparts of every example in seed 003 (the TypeScript `Retrievable` docs)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from returns.result import Failure

from thrift_fp.records import (
    TRUST_TIERS,
    InvalidRetrievable,
    MemoryStore,
    RawRetrievable,
    Retrievable,
    SnapshotUnsupported,
    SpooledArtifact,
    from_snapshot,
    parse_retrievable,
    to_snapshot,
)
from thrift_fp.render import render_retrievables
from thrift_fp.tokens import Tokenizable, count_tokens
from tests.test_records_artifact import BrokenReader


class PdfArtifact(SpooledArtifact):
    """A producer's artifact subclass: seed 003's `artifactConstructor` resolves to it."""


def test_construction_from_a_raw_retrievable_with_every_field() -> None:
    # `new Retrievable(raw)` validated against `rawRetrievableSchema`.
    raw: RawRetrievable = {
        "id": "kb-policy-7",
        "content": "Refunds are issued within 5 business days.",
        "trust_tier": "first-party",
        "source": "kb://policies/refunds",
        "kind": "policy",
        "score": 0.93,
        "created_at": "2024-03-01T09:00:00Z",
        "updated_at": 1714564800,
        "inline": True,
        # A resolver (callable), not a string; a SpooledArtifact subclass is one.
        "artifact_constructor": PdfArtifact,
    }
    r = parse_retrievable(raw).unwrap()
    assert isinstance(r, Retrievable)  # `Retrievable.isRetrievable(value)`
    assert (r.id, r.trust_tier, r.source, r.kind, r.score, r.inline, r.artifact_constructor) == (
        "kb-policy-7", "first-party", "kb://policies/refunds", "policy", 0.93, True, PdfArtifact,
    )


def test_the_three_trust_tiers_and_no_default() -> None:
    # `RetrievableTrustTier`: first-party (vetted corpora), third-party-public (open web),
    # third-party-private (uploads, partner APIs). "Required - there is NO default."
    assert TRUST_TIERS == ("first-party", "third-party-public", "third-party-private")
    base = {"id": "r", "content": "x", "created_at": 0, "updated_at": 0}
    for tier in TRUST_TIERS:
        assert parse_retrievable({**base, "trust_tier": tier}).unwrap().trust_tier == tier
    missing = parse_retrievable(base)
    assert isinstance(missing, Failure) and missing.failure().fields == {"trust_tier"}


def test_invalid_input_is_an_error_value_not_an_exception() -> None:
    # The seed throws E_INVALID_INITIAL_RETRIEVABLE_VALUE; here the failure lists every problem.
    result = parse_retrievable({"id": 1, "content": "x", "trust_tier": "user", "created_at": 0, "updated_at": 0})
    assert isinstance(result, Failure) and isinstance(result.failure(), InvalidRetrievable)
    assert result.failure().fields == {"id", "trust_tier"}


def test_temporal_fields_accept_iso_unix_and_date_values() -> None:
    # "ISO strings, Unix timestamps, Date objects, or existing DateTime instances."
    moment = datetime(2024, 5, 1, 12, tzinfo=UTC)
    forms = ["2024-05-01T12:00:00Z", "2024-05-01T14:00:00+02:00", 1714564800, 1714564800000,
             moment, moment.astimezone(timezone(timedelta(hours=-7)))]
    for form in forms:
        r = parse_retrievable({"id": "t", "content": "x", "trust_tier": "first-party",
                               "created_at": form, "updated_at": form}).unwrap()
        assert r.created_at == r.updated_at == moment and r.created_at.tzinfo is UTC


def test_spooled_content_from_a_byte_store_and_size_unknown() -> None:
    # "persist it via storeRetrievableBytes, wrap the returned reader in a SpooledArtifact".
    store = MemoryStore()
    reader = store.write("upload-1", "page one\npage two\n").unwrap()
    unhinted = parse_retrievable({"id": "upload-1", "content": SpooledArtifact(reader),
                                  "trust_tier": "third-party-private", "created_at": 0, "updated_at": 0}).unwrap()
    assert unhinted.size_unknown and not unhinted.inline  # `sizeUnknown`, `inline` defaults to false
    hinted = parse_retrievable({"id": "upload-1", "content": SpooledArtifact(reader, 18, 2),
                                "trust_tier": "third-party-private", "created_at": 0, "updated_at": 0}).unwrap()
    assert not hinted.size_unknown


def test_estimate_tokens_and_content_string() -> None:
    # `estimateTokens(encoding)`: synchronous for text; the spooled body is counted by streaming
    # (the seed materialises it transiently; this library does not). `contentString()` -> content_text().
    text = "The quick brown fox.\nJumps over the dog.\n"
    inline = parse_retrievable({"id": "a", "content": Tokenizable(text), "trust_tier": "third-party-public",
                                "created_at": 0, "updated_at": 0}).unwrap()
    spooled = parse_retrievable({"id": "b", "content": SpooledArtifact(MemoryStore().write("b", text).unwrap()),
                                 "trust_tier": "third-party-public", "created_at": 0, "updated_at": 0,
                                 "inline": True}).unwrap()
    expected = count_tokens(text, "o200k_base").unwrap()
    assert inline.estimate_tokens("o200k_base").unwrap() == expected
    assert spooled.estimate_tokens("o200k_base").unwrap() == expected
    assert inline.content_text().unwrap() == spooled.content_text().unwrap() == text


def test_snapshot_round_trip_and_undescribable_readers() -> None:
    # `[ENCODE_METHOD]` / `[DECODE_METHOD]`: a RawRetrievable-shaped snapshot, re-validated on decode;
    # a reader that cannot describe itself is E_READER_NOT_DESCRIBABLE, here a SnapshotUnsupported value.
    store = MemoryStore()
    r = parse_retrievable({"id": "s", "content": SpooledArtifact(store.write("s", "body").unwrap(), 4, 1),
                           "trust_tier": "first-party", "created_at": 0, "updated_at": 0}).unwrap()
    assert from_snapshot(to_snapshot(r).unwrap(), stores=[store]).unwrap() == r
    undescribable = parse_retrievable({"id": "u", "content": SpooledArtifact(BrokenReader()),
                                       "trust_tier": "first-party", "created_at": 0, "updated_at": 0}).unwrap()
    assert isinstance(to_snapshot(undescribable).failure(), SnapshotUnsupported)


def test_a_directly_built_record_with_an_empty_heading_is_refused_at_construction() -> None:
    at = datetime(2020, 1, 1, tzinfo=UTC)
    with pytest.raises(ValueError, match=r"heading: must be a non-empty string when given, got ''"):
        Retrievable("a", "b", "third-party-public", at, at, heading="")
    assert Retrievable("a", "b", "third-party-public", at, at, heading="Refunds").heading == "Refunds"


def test_a_directly_built_record_with_a_naive_time_is_refused_at_construction() -> None:
    # It used to be built, and rendering it beside an aware record raised TypeError.
    at = datetime(2020, 1, 1, tzinfo=UTC)
    with pytest.raises(ValueError, match=r"created_at: naive datetime 2020-01-01 00:00:00 has no timezone"):
        Retrievable("a", "b", "third-party-public", datetime(2020, 1, 1), at)
    other = Retrievable("c", "d", "third-party-public", at.astimezone(timezone(timedelta(hours=5))), at)
    assert other.created_at.tzinfo is UTC and other.created_at == at
    assert render_retrievables([Retrievable("a", "b", "third-party-public", at, at), other]).unwrap().text
