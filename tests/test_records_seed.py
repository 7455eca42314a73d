"""Python counterparts of every example in seed 003 (the TypeScript `Retrievable` docs)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
import inspect

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


class _TierName(str):
    """A str subclass spelling a valid tier: not the plain common case."""


_AT = datetime(2020, 1, 1, tzinfo=UTC)
_PLAIN: dict[str, object] = {
    "id": "a", "content": "b", "trust_tier": "third-party-public", "created_at": _AT, "updated_at": _AT,
    "source": "s", "kind": "k", "heading": "h", "score": 0.5, "inline": False,
}
# One field at a time moved off the plain record, within the constructor's annotations: values
# construction must refuse, and values it must accept (normalised) by the full check.
_ONE_FIELD_OFF: list[tuple[str, object]] = [
    ("id", ""), ("content", ""), ("content", "\ud800"),
    ("trust_tier", "bogus"), ("trust_tier", ""), ("trust_tier", "THIRD-PARTY-PUBLIC"),
    ("trust_tier", _TierName("third-party-public")),
    ("created_at", datetime(2020, 1, 1)), ("created_at", _AT.astimezone(timezone(timedelta(hours=5)))),
    ("created_at", datetime(2020, 1, 1, tzinfo=timezone.utc)),
    ("updated_at", datetime(2020, 1, 1)), ("updated_at", _AT.astimezone(timezone(timedelta(hours=-3)))),
    ("score", -0.5), ("score", 1.5), ("score", -0.0), ("score", float("nan")), ("score", float("inf")),
    ("score", None), ("score", 0.0), ("score", 1.0),
    ("source", ""), ("source", None), ("kind", ""), ("kind", None), ("heading", ""), ("heading", None),
    ("inline", True), ("inline", None), ("artifact_constructor", SpooledArtifact),
]
# Outside the annotations: the suite's run-time checker refuses these first, production has only
# the record's own check, which must refuse them too and name the field.
_MISTYPED: list[tuple[str, object]] = [
    ("id", 1), ("id", None), ("content", 1), ("content", None), ("content", b"b"),
    ("trust_tier", None), ("trust_tier", 1), ("created_at", "yesterday"), ("created_at", None),
    ("created_at", 0), ("updated_at", 0.0), ("updated_at", None), ("score", "0.5"), ("score", True),
    ("source", 1), ("kind", b"k"), ("heading", 1), ("inline", 1), ("inline", "yes"),
]


def _built_unchecked(fields: dict[str, object]) -> Retrievable:
    # As a caller builds it in production: the suite's run-time type checker wraps __init__ and
    # would refuse a mistyped value before the record's own check runs; production has no such
    # wrapper on classes, so the record's check is what stands between a caller and a bad record.
    record = Retrievable.__new__(Retrievable)
    inspect.unwrap(Retrievable.__init__)(record, **fields)
    return record


@pytest.mark.parametrize(("field", "value"), _MISTYPED, ids=[f"{f}={v!r}" for f, v in _MISTYPED])
def test_direct_construction_refuses_a_mistyped_field_by_name(field: str, value: object) -> None:
    with pytest.raises(ValueError, match=rf"invalid retrievable \(1 problem\):\n  - {field}: "):
        _built_unchecked({**_PLAIN, field: value})


@pytest.mark.parametrize(("field", "value"), _ONE_FIELD_OFF, ids=[f"{f}={v!r}" for f, v in _ONE_FIELD_OFF])
def test_direct_construction_gives_the_verdict_of_parsing_for_each_field(field: str, value: object) -> None:
    # Construction takes a fast path for the common record; whatever the fast path lets through
    # must be what parsing accepts, and what it refuses must fail with parsing's message.
    fields = {**_PLAIN, field: value}
    parsed = parse_retrievable(fields)
    try:
        built = _built_unchecked(fields)
    except ValueError as exc:
        assert isinstance(parsed, Failure), f"construction refused what parsing accepted: {exc}"
        assert str(exc) == parsed.failure().message
    else:
        assert parsed.unwrap() == built
        assert built.created_at.tzinfo is UTC and built.updated_at.tzinfo is UTC


def test_the_fields_the_fast_path_reads_are_refused_when_empty_or_unknown() -> None:
    # The verdicts the table above compares, spelled out for the common mistakes.
    for field, value in [("id", ""), ("content", ""), ("trust_tier", "bogus"), ("source", ""), ("kind", ""),
                         ("heading", ""), ("score", 1.5), ("inline", 1), ("created_at", datetime(2020, 1, 1))]:
        with pytest.raises(ValueError, match=field):
            _built_unchecked({**_PLAIN, field: value})
    assert _built_unchecked(_PLAIN) == parse_retrievable(_PLAIN).unwrap()
