"""Properties of the no-match rule (issue 34): `unknown_share` (the share of a question no passage
holds) and `match_score` (the best fused score less `UNKNOWN_WEIGHT` times it), and `fuse_matched`
answering all or nothing on that score — a floor of 0 being no floor."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from thrift_fp.sources.dense import UNKNOWN_WEIGHT, fuse_matched, match_score
from thrift_fp.sources.ranking._fusion import fused_score
from thrift_fp.sources.ranking._score import FADE_FROM, KNOWN_AT, CollectionStats, absence_weight, unknown_share
from properties.fusion_strategies import CANDIDATES, scored
from properties.fusion_strategies import SCORES as _SHARES

_TERMS = st.lists(st.text("abcdefgh", min_size=1, max_size=4), min_size=1, max_size=6, unique=True)
_PASSAGES = st.integers(min_value=1, max_value=5 * KNOWN_AT)


def _stats(passages: int) -> CollectionStats:
    return CollectionStats(passages, 10 * passages, passages, 0)


@given(_TERMS, st.data(), _PASSAGES)
def test_the_unknown_share_is_a_share_and_zero_when_every_word_is_known(
    terms: list[str], data: st.DataObject, passages: int
) -> None:
    df = {term: data.draw(st.integers(0, passages)) for term in terms}
    share = unknown_share(terms, _stats(passages), df)
    assert 0.0 <= share <= 1.0
    if all(count > 0 for count in df.values()):
        assert share == 0.0
    if all(count == 0 for count in df.values()):
        # Nothing below FADE_FROM passages, all from KNOWN_AT, in proportion between.
        if passages < FADE_FROM:
            assert share == 0.0
        elif passages >= KNOWN_AT:
            assert share == 1.0
        else:
            assert share == pytest.approx((passages - FADE_FROM) / (KNOWN_AT - FADE_FROM))


@given(_PASSAGES, _PASSAGES)
def test_an_absent_word_weighs_more_the_larger_the_index(one: int, other: int) -> None:
    small, large = sorted((one, other))
    assert 0.0 <= absence_weight(small) <= absence_weight(large) <= 1.0


@given(_TERMS, st.data(), _PASSAGES, st.text("xyz", min_size=5, max_size=8))
def test_a_word_no_passage_holds_never_lowers_the_share_and_a_known_one_never_raises_it(
    terms: list[str], data: st.DataObject, passages: int, extra: str
) -> None:
    df = {term: data.draw(st.integers(0, passages)) for term in terms}
    before = unknown_share(terms, _stats(passages), df)
    assert unknown_share([*terms, extra], _stats(passages), df) >= before - 1e-12
    known = data.draw(st.integers(1, passages))
    assert unknown_share([*terms, extra], _stats(passages), {**df, extra: known}) <= before + 1e-12


@given(_SHARES, _SHARES, _SHARES)
def test_the_match_score_falls_with_the_unknown_share_by_its_weight(best: float, unknown: float, more: float) -> None:
    assert match_score(best, 0.0) == best
    assert match_score(best, unknown) == best - UNKNOWN_WEIGHT * unknown
    assert match_score(best, max(unknown, more)) <= match_score(best, min(unknown, more))


@given(lexical=CANDIDATES, dense=CANDIDATES, cosines=st.dictionaries(st.integers(0, 20), _SHARES),
       shares=st.dictionaries(st.integers(0, 20), _SHARES), floor=st.one_of(st.just(0.0), _SHARES),
       unknown=_SHARES, limit=st.integers(0, 12))
def test_the_floor_answers_all_or_nothing_on_the_match_score(
    lexical: list[tuple[int, str, float]], dense: list[tuple[int, str, float]], cosines: dict[int, float],
    shares: dict[int, float], floor: float, unknown: float, limit: int,
) -> None:
    lexical_side, dense_side = scored(lexical, "l"), scored(dense, "d")
    open_answer, _ = fuse_matched(lexical_side, dense_side, limit, shares=shares, cosines=cosines, floor=0.0)
    floored, matched = fuse_matched(
        lexical_side, dense_side, limit, shares=shares, cosines=cosines, floor=floor, unknown=unknown
    )
    lexical_of: dict[str, float] = {}
    cosine_of: dict[str, float] = {}
    for s in lexical_side:
        lexical_of[s.content_hash] = max(lexical_of.get(s.content_hash, 0.0), s.score)
        cosine_of[s.content_hash] = max(cosine_of.get(s.content_hash, 0.0), cosines.get(s.key, 0.0))
    for s in dense_side:
        lexical_of[s.content_hash] = max(lexical_of.get(s.content_hash, 0.0), shares.get(s.key, 0.0))
        cosine_of[s.content_hash] = max(cosine_of.get(s.content_hash, 0.0), s.score)
    best = max((fused_score(lexical_of[h], cosine_of[h]) for h in lexical_of), default=0.0)
    assert matched == best - UNKNOWN_WEIGHT * unknown
    if floor > 0.0 and matched < floor:
        assert floored == ()
    else:
        # A floor of 0 is no floor, whatever the match score; above the floor nothing is trimmed
        # or reordered: the rule decides only "no match".
        assert floored == open_answer


_LOW = st.lists(
    st.tuples(st.integers(0, 20), st.sampled_from(["a", "b"]), st.floats(min_value=0.0, max_value=0.2)), min_size=1,
    max_size=6, unique_by=lambda row: row[0],
)


@given(dense=_LOW, unknown=st.floats(min_value=0.9, max_value=1.0), limit=st.integers(1, 12))
def test_a_floor_of_zero_answers_even_a_match_score_below_zero(
    dense: list[tuple[int, str, float]], unknown: float, limit: int
) -> None:
    dense_side = scored(dense, "d")
    answer, matched = fuse_matched([], dense_side, limit, shares={}, cosines={}, floor=0.0, unknown=unknown)
    assert matched < 0.0
    assert answer == fuse_matched([], dense_side, limit, shares={}, cosines={}, floor=0.0)[0] != ()
