"""Properties of the documented document defaults: content-hash ids, score normalisation, tiers."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from thrift_fp.adapters._core import DEFAULT_TIER, documents_to_records, normalised_scores, read_documents
from thrift_fp.records import TrustTier

scores = st.lists(st.one_of(st.none(), st.floats(-1e6, 1e6, allow_nan=False)), max_size=12)


@given(scores)
def test_normalised_scores_lie_in_the_unit_interval_and_keep_their_order(raw: list[float | None]) -> None:
    out = normalised_scores(raw)
    assert [score is None for score in out] == [score is None for score in raw]
    pairs = [(a, b) for a, b in zip(raw, out, strict=True) if a is not None and b is not None]
    assert all(0.0 <= b <= 1.0 for _, b in pairs)
    for a1, b1 in pairs:
        for a2, b2 in pairs:
            if a1 < a2:
                assert b1 <= b2
    if all(0.0 <= a <= 1.0 for a, _ in pairs):
        assert list(out) == list(raw)


contents = st.lists(st.sampled_from(("alpha", "beta", "gamma", "beta")), max_size=8)


@given(contents, st.sampled_from((None, "first-party", "third-party-public")))
def test_documents_without_ids_get_unique_deterministic_content_ids(texts: list[str], tier: TrustTier | None) -> None:
    documents: list[dict[str, object]] = [{"content": text} for text in texts]
    first = documents_to_records(read_documents(documents).unwrap(), tier).unwrap()
    again = documents_to_records(read_documents(documents).unwrap(), tier).unwrap()
    assert [record.id for record in first] == [record.id for record in again]
    assert len({record.id for record in first}) == len(first)
    assert all(record.trust_tier == (tier or DEFAULT_TIER) for record in first)
    assert all(record.created_at.timestamp() == 0 for record in first)
