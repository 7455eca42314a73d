"""Properties of fusing the lexical and the dense evidence (`fuse_scores`, `fuse_scored`)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from thrift_fp.sources.dense._hybrid import fuse_scored
from thrift_fp.sources.ranking._fusion import SOURCE_REPEAT, Evidence, fuse_scores, fused_score, spread_sources
from thrift_fp.sources.ranking._score import Scored

scores = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
cosines = st.floats(min_value=-1.0, max_value=1.0, allow_nan=False)
weights = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
evidence = st.lists(
    st.builds(Evidence, st.sampled_from([f"p{n}" for n in range(12)]), scores, cosines), max_size=12
)


@given(evidence, weights, st.data())
def test_a_passage_best_on_both_sides_is_first(candidates: list[Evidence], weight: float, data: st.DataObject) -> None:
    # A candidate whose lexical share and cosine are both above every other's is first.
    lexical = max((c.lexical for c in candidates), default=0.0)
    cosine = max((c.cosine for c in candidates), default=0.0)
    best = Evidence("best", min(1.0, lexical + 0.01), min(1.0, cosine + 0.01))
    if best.lexical <= lexical or best.cosine <= cosine:
        return  # nothing can be above a share or a cosine of 1
    where = data.draw(st.integers(min_value=0, max_value=len(candidates)))
    assert fuse_scores([*candidates[:where], best, *candidates[where:]], lexical_weight=weight)[0].key == "best"


@given(evidence, weights, st.randoms(use_true_random=False))
def test_fusion_is_a_function_of_the_candidates_scores_alone(
    candidates: list[Evidence], weight: float, shuffler: object
) -> None:
    # Whatever order the candidates arrive in (one store may list them differently from the
    # other), the fused order is the same; each key once; scores best first, each in [0, 1].
    first = fuse_scores(candidates, lexical_weight=weight)
    shuffled = list(candidates)
    shuffler.shuffle(shuffled)  # type: ignore[attr-defined]  # a random.Random
    assert first == fuse_scores(shuffled, lexical_weight=weight)
    assert sorted(f.key for f in first) == sorted({c.key for c in candidates})
    assert all(0.0 <= f.score <= 1.0 for f in first)
    assert [f.score for f in first] == sorted((f.score for f in first), reverse=True)


@given(evidence)
def test_weight_one_is_the_lexical_order_and_weight_zero_the_dense_one(candidates: list[Evidence]) -> None:
    unique = list({c.key: c for c in candidates}.values())
    lexical = [f.lexical for f in fuse_scores(unique, lexical_weight=1.0)]
    dense = [max(f.cosine, 0.0) for f in fuse_scores(unique, lexical_weight=0.0)]
    assert lexical == sorted(lexical, reverse=True)
    assert dense == sorted(dense, reverse=True)


@given(scores, scores, cosines, cosines, weights)
def test_the_fused_score_never_falls_when_either_score_rises(
    lexical: float, more_lexical: float, cosine: float, more_cosine: float, weight: float
) -> None:
    low = fused_score(lexical, cosine, weight)
    assert 0.0 <= low <= 1.0
    assert fused_score(max(lexical, more_lexical), max(cosine, more_cosine), weight) >= low


@given(evidence, weights, st.integers(min_value=0, max_value=11), scores, cosines)
def test_more_evidence_never_lowers_a_passage(
    candidates: list[Evidence], weight: float, at: int, more_lexical: float, more_cosine: float
) -> None:
    # Raising a candidate's lexical share or its cosine never moves it down the fused order.
    unique = list({c.key: c for c in candidates}.values())
    if at >= len(unique):
        return
    chosen = unique[at]
    raised = Evidence(chosen.key, max(chosen.lexical, more_lexical), max(chosen.cosine, more_cosine))
    before = [f.key for f in fuse_scores(unique, lexical_weight=weight)].index(chosen.key)
    after = [f.key for f in fuse_scores([*unique[:at], raised, *unique[at + 1:]], lexical_weight=weight)].index(
        chosen.key
    )
    assert after <= before


keys = st.lists(st.sampled_from([f"p{n}" for n in range(12)]), max_size=12)


def _scored(keys: list[str], tag: str, base: int) -> list[Scored]:
    # Content hash = the key; the passage id says which list it came from; row keys differ per list.
    return [
        Scored(base + n, f"{tag}:{key}", key, 1.0 / (n + 1), 1.0 / (n + 1)) for n, key in enumerate(dict.fromkeys(keys))
    ]


@given(keys, keys, st.integers(min_value=0, max_value=30), st.data())
def test_fused_hits_are_one_per_content_shown_as_the_lexical_passage_when_it_has_one(
    lexical: list[str], dense: list[str], limit: int, data: st.DataObject
) -> None:
    lexical_rows, dense_rows = _scored(lexical, "lexical", 0), _scored(dense, "dense", 100)
    shares = {s.key: data.draw(scores) for s in dense_rows}
    cosine_of = {s.key: data.draw(cosines) for s in lexical_rows}
    fused = fuse_scored(lexical_rows, dense_rows, limit, shares=shares, cosines=cosine_of, floor=0.0)  # the floor: test_sources_match_floor
    hashes = [s.content_hash for s in fused]
    assert len(hashes) == len(set(hashes)) == min(limit, len(set(lexical) | set(dense)))
    for s in fused:
        assert s.passage_id == (f"lexical:{s.content_hash}" if s.content_hash in lexical else f"dense:{s.content_hash}")


@given(keys, st.data())
def test_a_passage_first_in_both_lists_by_score_is_first_in_the_fused_hits(keys_: list[str], data: st.DataObject) -> None:
    # The same passage heads both lists (highest lexical share, highest cosine): it is shown first.
    unique = list(dict.fromkeys(keys_))
    if not unique:
        return
    lexical_rows = [Scored(n, f"l{n}", key, 1.0 / (n + 1), 1.0) for n, key in enumerate(unique)]
    dense_rows = [Scored(100 + n, f"d{n}", key, 0.9 / (n + 1), 0.9) for n, key in enumerate(unique)]
    shares = {s.key: lexical_rows[n].score for n, s in enumerate(dense_rows)}
    cosine_of = {s.key: dense_rows[n].score for n, s in enumerate(lexical_rows)}
    fused = fuse_scored(lexical_rows, dense_rows, 5, shares=shares, cosines=cosine_of, floor=0.0)
    assert fused[0].content_hash == unique[0]


# Sources before repeats (`spread_sources`).
_sourced = st.lists(st.tuples(st.sampled_from("abcd"), st.floats(min_value=0.0, max_value=1.0)), max_size=14)


def _spread(items: list[tuple[str, float]]) -> list[tuple[tuple[str, float], float]]:
    return list(spread_sources(items, lambda item: item[1], lambda item: item[0]))


@given(_sourced)
def test_spreading_sources_keeps_every_item_once_with_non_rising_shown_scores(items: list[tuple[str, float]]) -> None:
    spread = _spread(items)
    assert sorted(spread_items := [item for item, _ in spread]) == sorted(items) and len(spread_items) == len(items)
    shown = [score for _, score in spread]
    assert all(later <= earlier + 1e-12 for earlier, later in zip(shown, shown[1:]))


@given(_sourced)
def test_each_shown_score_is_the_score_times_the_repeat_factor_per_earlier_item_of_its_source(
    items: list[tuple[str, float]],
) -> None:
    taken: dict[str, int] = {}
    for (source, score), shown in _spread(items):
        assert shown == pytest.approx(score * SOURCE_REPEAT ** taken.get(source, 0))
        taken[source] = taken.get(source, 0) + 1


@given(_sourced)
def test_each_next_item_has_the_highest_demoted_score_of_those_left(items: list[tuple[str, float]]) -> None:
    # Greedy: no item left behind would have been shown at a higher score at that point.
    left = list(items)
    taken: dict[str, int] = {}
    for item, shown in _spread(items):
        best = max(score * SOURCE_REPEAT ** taken.get(source, 0) for source, score in left)
        assert shown == pytest.approx(best)
        left.remove(item)
        taken[item[0]] = taken.get(item[0], 0) + 1


@given(st.lists(st.floats(min_value=0.0, max_value=1.0), max_size=12))
def test_with_every_source_distinct_spreading_changes_nothing(scores_: list[float]) -> None:
    items = sorted(((f"s{n}", score) for n, score in enumerate(scores_)), key=lambda item: -item[1])
    assert _spread(items) == [(item, item[1]) for item in items]
