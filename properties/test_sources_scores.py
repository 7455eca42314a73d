"""Properties of the bm25 rank → score mapping and of the query sanitiser."""

from __future__ import annotations

import math
import sqlite3

from hypothesis import given
from hypothesis import strategies as st

from thrift_fp.sources import bm25_to_score, match_expression

_ranks = st.floats(allow_nan=True, allow_infinity=True)


@given(rank=_ranks)
def test_score_is_within_unit_interval(rank: float) -> None:
    score = bm25_to_score(rank)
    assert math.isfinite(score)
    assert 0.0 <= score <= 1.0


@given(better=st.floats(allow_nan=False), worse=st.floats(allow_nan=False))
def test_a_better_rank_never_scores_lower(better: float, worse: float) -> None:
    better, worse = min(better, worse), max(better, worse)
    assert bm25_to_score(better) >= bm25_to_score(worse)


@given(better=st.floats(min_value=-1e6, max_value=-1e-3), gap=st.floats(min_value=1e-3, max_value=1e3))
def test_strictly_monotone_over_real_bm25_ranks(better: float, gap: float) -> None:
    worse = min(better + gap, -1e-9)
    assert bm25_to_score(better) > bm25_to_score(worse)


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
