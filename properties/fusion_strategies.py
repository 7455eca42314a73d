"""Candidate lists for the fusion's floor properties: lexical and dense hits over a few sources."""

from __future__ import annotations

from hypothesis import strategies as st

from thrift_fp.sources.ranking._score import Scored

SCORES = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
"""A score or share in [0, 1]."""
CANDIDATES = st.lists(
    st.tuples(st.integers(0, 20), st.sampled_from(["a", "b", "c", "d"]), SCORES), max_size=10,
    unique_by=lambda row: row[0],
)
"""Rows (key, unused label, score), keys distinct within a list."""


def scored(rows: list[tuple[int, str, float]], side: str) -> list[Scored]:
    """``rows`` as one ranking's hits: four sources per side, a content hash per key."""
    return [Scored(key, f"{side}{key % 4}.md#{key}", f"h{key}", score, score) for key, _, score in rows]
