"""Properties of fusing the lexical and the dense ranking (`fuse_rankings`, `fuse_scored`)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from thrift_fp.sources.dense._hybrid import fuse_scored
from thrift_fp.sources.ranking._fusion import fuse_rankings
from thrift_fp.sources.ranking._score import Scored

keys = st.lists(st.sampled_from([f"p{n}" for n in range(12)]), max_size=12)
weights = st.floats(min_value=0.05, max_value=5.0, allow_nan=False)
ks = st.floats(min_value=0.5, max_value=200.0, allow_nan=False)


@given(keys, keys, ks, weights)
def test_a_passage_first_in_both_lists_is_first_in_the_fusion(lexical: list[str], dense: list[str], k: float, weight: float) -> None:
    if lexical and dense:
        dense = [lexical[0], *[key for key in dense if key != lexical[0]]]
        assert fuse_rankings(lexical, dense, k=k, dense_weight=weight)[0].key == lexical[0]


@given(keys, keys, ks, weights)
def test_fusion_is_a_function_of_the_two_lists(lexical: list[str], dense: list[str], k: float, weight: float) -> None:
    first = fuse_rankings(lexical, dense, k=k, dense_weight=weight)
    assert first == fuse_rankings(list(lexical), list(dense), k=k, dense_weight=weight)
    # Every candidate once, nothing else; scores best first, each in (0, 1].
    assert sorted(f.key for f in first) == sorted(set(lexical) | set(dense))
    assert all(0.0 < f.score <= 1.0 for f in first)
    assert [f.score for f in first] == sorted((f.score for f in first), reverse=True)


@given(keys, ks)
def test_with_no_dense_list_the_order_is_the_lexical_one(lexical: list[str], k: float) -> None:
    assert [f.key for f in fuse_rankings(lexical, [], k=k)] == list(dict.fromkeys(lexical))


@given(keys, keys, ks, weights)
def test_rising_in_one_list_never_lowers_a_passage(lexical: list[str], dense: list[str], k: float, weight: float) -> None:
    # Moving a passage one place up in the dense list never moves it down in the fusion.
    unique = list(dict.fromkeys(dense))
    for at in range(1, len(unique)):
        raised = [*unique[: at - 1], unique[at], unique[at - 1], *unique[at + 1:]]
        before = [f.key for f in fuse_rankings(lexical, unique, k=k, dense_weight=weight)].index(unique[at])
        after = [f.key for f in fuse_rankings(lexical, raised, k=k, dense_weight=weight)].index(unique[at])
        assert after <= before


def _scored(keys: list[str], tag: str) -> list[Scored]:
    # Content hash = the key; the passage id says which list it came from.
    return [Scored(n, f"{tag}:{key}", key, 1.0 / (n + 1), 1.0 / (n + 1)) for n, key in enumerate(dict.fromkeys(keys))]


@given(keys, keys, st.integers(min_value=0, max_value=30))
def test_fused_hits_are_one_per_content_shown_as_the_lexical_passage_when_it_has_one(
    lexical: list[str], dense: list[str], limit: int
) -> None:
    fused = fuse_scored(_scored(lexical, "lexical"), _scored(dense, "dense"), limit)
    hashes = [s.content_hash for s in fused]
    assert len(hashes) == len(set(hashes)) == min(limit, len(set(lexical) | set(dense)))
    for s in fused:
        assert s.passage_id == (f"lexical:{s.content_hash}" if s.content_hash in lexical else f"dense:{s.content_hash}")
