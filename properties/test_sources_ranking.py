"""Properties of the one scoring formula both stores rank with (thrift_fp.sources.ranking)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from hypothesis import given
from hypothesis import strategies as st

from thrift_fp.sources.ranking import _score
from thrift_fp.sources.ranking._score import (
    Candidate,
    Phase,
    CollectionStats,
    Postings,
    Scored,
    bounded,
    by_rarity,
    idf,
    order_scored,
    passage_score,
    term_idfs,
    term_score,
    top_passages,
)

_counts = st.integers(min_value=0, max_value=50)
_lengths = st.integers(min_value=1, max_value=500)
_averages = st.tuples(*(st.floats(min_value=0.5, max_value=400) for _ in range(3)))
_idfs = st.floats(min_value=1e-6, max_value=20)


@given(idf_value=_idfs, tf=_counts, lengths=st.tuples(_lengths, _lengths, _lengths), averages=_averages)
def test_one_more_mention_adds_less_and_less_and_never_past_the_idf(
    idf_value: float, tf: int, lengths: tuple[int, int, int], averages: tuple[float, float, float]
) -> None:
    body = max(lengths[0], tf + 2)
    scores = [term_score(idf_value, (n, 0, 0), (body, lengths[1], lengths[2]), averages) for n in (tf, tf + 1, tf + 2)]
    assert 0.0 <= scores[0] < scores[1] < scores[2] < idf_value
    # Saturation: the second extra mention adds no more than the first.
    assert scores[2] - scores[1] <= scores[1] - scores[0] + 1e-12


@given(idf_value=_idfs, tf=st.integers(min_value=1, max_value=20), short=_lengths, extra=st.integers(1, 500),
       averages=_averages)
def test_the_same_mentions_in_a_longer_passage_count_less(
    idf_value: float, tf: int, short: int, extra: int, averages: tuple[float, float, float]
) -> None:
    short = max(short, tf)
    near = term_score(idf_value, (tf, 0, 0), (short, 1, 1), averages)
    far = term_score(idf_value, (tf, 0, 0), (short + extra, 1, 1), averages)
    assert far < near


@given(passages=st.integers(min_value=1, max_value=10**7), df=st.integers(min_value=0, max_value=10**7))
def test_rarer_terms_weigh_more_and_a_term_everywhere_weighs_almost_nothing(passages: int, df: int) -> None:
    df = min(df, passages)
    assert idf(passages, df) > 0
    if df < passages:
        assert idf(passages, df) > idf(passages, df + 1)
    assert idf(passages, passages) < 1.0 / passages


_vocabulary = ["shed", "budget", "token", "window", "ctest", "run", "test"]
_fields = st.lists(st.sampled_from(_vocabulary), max_size=12).map("  ".join)
_passages = st.lists(
    st.tuples(_fields, _fields, _fields, st.sampled_from(["h1", "h2", "h3", "h4", "h5", "h6"])), min_size=1, max_size=30
)


def _collection(rows: list[tuple[str, str, str, str]]) -> tuple[dict[int, Candidate], CollectionStats]:
    candidates = {
        key: Candidate(key, f"p#{key:03}", digest, body, heading, trail,
                       (len(body.split()), len(heading.split()), len(trail.split())))
        for key, (body, heading, trail, digest) in enumerate(rows, start=1)
    }
    stats = CollectionStats(
        len(rows), *(sum(c.lengths[n] for c in candidates.values()) for n in range(3))
    )
    return candidates, stats


def _phase_of(postings: dict[str, Postings], idfs: dict[str, float]) -> Phase:
    """A store's phase written out: the candidates holding any of ``essential`` bounded in (lower, upper]."""

    def phase(essential: Sequence[str], lower: float, upper: float | None) -> list[tuple[int, float]]:
        return [
            (key, bound) for key, bound in bounded(postings, idfs)
            if any(key in postings[term].keys for term in essential) and bound > lower and (upper is None or bound <= upper)
        ]

    return phase


@given(rows=_passages, terms=st.lists(st.sampled_from(_vocabulary), min_size=1, max_size=4, unique=True))
def test_phases_by_rarity_give_every_candidate_once_in_bound_order_under_their_markers(
    rows: list[tuple[str, str, str, str]], terms: list[str]
) -> None:
    candidates, stats = _collection(rows)
    keys = {t: tuple(k for k, c in candidates.items() if t in f"{c.body} {c.heading} {c.trail}".split()) for t in terms}
    postings = {t: Postings(len(keys[t]), keys[t]) for t in terms}
    idfs = term_idfs(terms, stats, {t: p.df for t, p in postings.items()})
    stream = list(by_rarity(terms, idfs, _phase_of(postings, idfs)))
    assert [item for item in stream if item[0] is not None] == bounded(postings, idfs)
    for at, (key, bound) in enumerate(stream):
        if key is None:  # a marker bounds everything after it
            assert all(later <= bound for _, later in stream[at + 1:])


@given(rows=_passages, terms=st.lists(st.sampled_from(_vocabulary), min_size=1, max_size=4, unique=True),
       limit=st.integers(min_value=0, max_value=6))
def test_the_pruned_top_is_the_exact_top_of_scoring_every_passage(
    rows: list[tuple[str, str, str, str]], terms: list[str], limit: int
) -> None:
    candidates, stats = _collection(rows)
    keys = {t: tuple(k for k, c in candidates.items() if t in f"{c.body} {c.heading} {c.trail}".split()) for t in terms}
    postings = {t: Postings(len(keys[t]), keys[t]) for t in terms}
    fetched: list[int] = []

    def fetch(wanted: object) -> list[Candidate]:
        assert isinstance(wanted, list)
        fetched.extend(wanted)
        return [candidates[k] for k in wanted]

    # One candidate per first fetch, so the stopping rule, not the batch size, decides the top.
    first, _score.FIRST_BATCH = _score.FIRST_BATCH, 1
    try:
        idfs = term_idfs(terms, stats, {t: p.df for t, p in postings.items()})
        top = top_passages(terms, stats, idfs, bounded(postings, idfs), fetch, limit)
        fetched_bounded, fetched[:] = list(fetched), []
        # Read rarest terms first, in phases (as the PostgreSQL source reads them): the same top.
        by_phases = top_passages(terms, stats, idfs, by_rarity(terms, idfs, _phase_of(postings, idfs)), fetch, limit)
    finally:
        _score.FIRST_BATCH = first
    assert by_phases == top
    assert len(fetched) == len(set(fetched)) and set(fetched) <= set(fetched_bounded)
    idfs = {t: idf(stats.passages, postings[t].df) for t in terms}
    ideal = math.fsum(idfs.values())
    every = [
        Scored(c.key, c.passage_id, c.content_hash, min(1.0, raw / ideal), raw)
        for c in candidates.values()
        if any(keys[t] and c.key in keys[t] for t in terms)
        for raw in [passage_score(terms, idfs, c, stats)]
    ]
    best: dict[str, Scored] = {}
    for scored in order_scored(every):
        best.setdefault(scored.content_hash, scored)
    assert top == order_scored(list(best.values()))[:limit]
    assert all(0.0 < s.score <= 1.0 for s in top)
    assert len(fetched) == len(set(fetched))  # no passage is fetched twice


@given(scored=st.lists(st.builds(Scored, st.integers(), st.sampled_from(["a#1", "b#1", "c#2", "d#3", "e#1"]),
                                 st.just("h"), st.just(0.5), st.sampled_from([1.0, 2.0])),
                       max_size=5, unique_by=lambda s: s.passage_id),
       seed=st.randoms())
def test_ties_order_the_same_whatever_the_order_they_arrive_in(scored: list[Scored], seed: object) -> None:
    shuffled = list(scored)
    getattr(seed, "shuffle")(shuffled)
    assert order_scored(shuffled) == order_scored(scored)


@given(rows=_passages, terms=st.lists(st.sampled_from(_vocabulary), min_size=1, max_size=4, unique=True))
def test_a_passage_scores_the_sum_of_its_terms(rows: list[tuple[str, str, str, str]], terms: list[str]) -> None:
    candidates, stats = _collection(rows)
    n = max(stats.passages, 1)
    averages = (stats.body_terms / n, stats.heading_terms / n, stats.trail_terms / n)
    idfs = {term: idf(stats.passages, 1) for term in terms}
    for candidate in candidates.values():
        fields = (candidate.body.split(), candidate.heading.split(), candidate.trail.split())
        expected = math.fsum(
            term_score(idfs[t], (fields[0].count(t), fields[1].count(t), fields[2].count(t)), candidate.lengths, averages)
            for t in terms
        )
        assert math.isclose(passage_score(terms, idfs, candidate, stats), expected, rel_tol=1e-9, abs_tol=1e-12)
