"""Properties of the rank → score mappings and of the query sanitiser."""

from __future__ import annotations

import math
import sqlite3

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from thrift_fp.sources import index_paths, search_index
from thrift_fp.sources.ranking import bm25_to_score, match_expression

_ranks = st.floats(allow_nan=True, allow_infinity=True)
_ideals = st.floats(min_value=0.0, allow_nan=False, allow_infinity=False)


@given(rank=_ranks, ideal=_ideals)
def test_score_is_within_unit_interval(rank: float, ideal: float) -> None:
    score = bm25_to_score(rank, ideal)
    assert math.isfinite(score)
    assert 0.0 <= score <= 1.0


@given(better=st.floats(allow_nan=False), worse=st.floats(allow_nan=False), ideal=_ideals)
def test_a_better_rank_never_scores_lower(better: float, worse: float, ideal: float) -> None:
    better, worse = min(better, worse), max(better, worse)
    assert bm25_to_score(better, ideal) >= bm25_to_score(worse, ideal)


@given(better=st.floats(min_value=-1e6, max_value=-1e-3), gap=st.floats(min_value=1e-3, max_value=1e3))
def test_strictly_monotone_below_the_ideal(better: float, gap: float) -> None:
    worse = min(better + gap, -1e-9)
    assert bm25_to_score(better, 2e6) > bm25_to_score(worse, 2e6)


_words = st.sampled_from(["budget", "shed", "token", "C++", "node:fs", "reserve", "the", "window", "score"])
_documents = st.lists(st.lists(_words, min_size=1, max_size=40).map(" ".join), min_size=1, max_size=12)


@settings(max_examples=25, deadline=None)
@given(documents=_documents, headings=st.lists(_words, max_size=3), query=st.lists(_words, min_size=1, max_size=4))
def test_every_score_is_a_share_of_the_ideal(documents: list[str], headings: list[str], query: list[str]) -> None:
    # The score is the raw sum over the sum of the question's idfs: within [0, 1] for real passages.
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "d.md").write_text("\n\n".join(f"# {' '.join(headings)} {n}\n\n{text}"
                                                for n, text in enumerate(documents)))
        index_paths(root / "i.db", [root / "d.md"], max_tokens=64).unwrap()
        hits = search_index(root / "i.db", " ".join(query), limit=50).unwrap()
        assert all(0.0 < hit.score <= 1.0 and hit.rank > 0 for hit in hits), hits
        assert [hit.score for hit in hits] == sorted((hit.score for hit in hits), reverse=True)


_fts = sqlite3.connect(":memory:")
_fts.execute("CREATE VIRTUAL TABLE t USING fts5(text, tokenize='porter unicode61')")
_fts.execute("INSERT INTO t(text) VALUES ('shedding budget tokens')")


_syntax = st.sampled_from(["AND", "OR", "NOT", "NEAR", '"', "(", ")", "*", "^", ":", "-", "+", "text:", "{t}"])
_queries = st.lists(st.one_of(_syntax, st.text(max_size=6)), max_size=8).map(" ".join)


@given(query=_queries)
def test_any_text_is_a_valid_fts5_query(query: str) -> None:
    expression = match_expression(query)
    if expression:
        _fts.execute("SELECT rowid, bm25(t) FROM t WHERE t MATCH ?", (expression,)).fetchall()
