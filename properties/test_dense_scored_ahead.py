"""Dense candidates ranked ahead (`thrift_fp.sources.dense.ScoredAhead`, issue 35): what ``ask``'s
child sends through the pipe gives the search exactly what it would compute itself (the same
passages in the same order, the same cosines to the bit), only for the search they were made for,
and anything else that arrives is refused, never raised."""

from __future__ import annotations

import base64
import json
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from thrift_fp.sources.dense import ScoredAhead, missing_runtime, nearest_candidates, scored_json
from thrift_fp.sources.dense._scored import scored_from_json
from thrift_fp.sources.dense._vectors import dense_matrix

pytestmark = pytest.mark.skipif(missing_runtime() is not None, reason="the [dense] extra (numpy) is not installed")

TIERS = ("first-party", "third-party-public", "third-party-private")
WIDTH = 3
unit = st.floats(-1.0, 1.0, allow_nan=False, width=32)
passages = st.lists(
    st.tuples(st.sampled_from(TIERS), st.sampled_from("abcd"), st.tuples(unit, unit, unit)),
    max_size=30,
)


class _Fixed:
    """An embedder whose every text is one given vector (the question's, made ahead)."""

    model_id, dimensions = "m", WIDTH

    def __init__(self, vector: bytes) -> None:
        self.vector = vector

    def embed(self, texts: object) -> list[bytes]:
        return [self.vector]


@settings(deadline=None)
@given(
    passages, st.tuples(unit, unit, unit), st.sets(st.sampled_from(TIERS), min_size=1), st.integers(0, 12),
    st.lists(st.integers(0, 40), max_size=10),
)
def test_what_the_child_sends_is_what_the_search_computes(
    rows: list[tuple[str, str, tuple[float, float, float]]], question: tuple[float, float, float],
    tiers: set[str], limit: int, also: list[int],
) -> None:
    matrix = dense_matrix("m", [
        (f"p{at}#1", at, tier, digest, struct.pack(f"<{WIDTH}f", *vector))
        for at, (tier, digest, vector) in enumerate(rows)
    ], WIDTH)
    vector = struct.pack(f"<{WIDTH}f", *question)
    expected = nearest_candidates(matrix, _Fixed(vector), "q", tiers, limit, also).unwrap()
    # What the child computes and sends (`sqlite._ahead.score`), through JSON as the pipe carries it.
    near, cosines = nearest_candidates(matrix, _Fixed(vector), "q", tiers, limit, matrix.rows).unwrap()
    sent = json.loads(json.dumps(scored_json(
        ("v", 1), "q", tiers, limit, [(s.key, s.passage_id, s.content_hash, s.score) for s in near], cosines,
    )))
    ahead = scored_from_json("q", sent)
    assert ahead is not None
    assert ahead.candidates(("v", 1), "q", sorted(tiers), limit, also) == expected
    # Only for the search they were made for.
    assert ahead.candidates(("v", 2), "q", tiers, limit, also) is None
    assert ahead.candidates(("v", 1), "other", tiers, limit, also) is None
    assert ahead.candidates(("v", 1), "q", tiers, limit + 1, also) is None
    if set(TIERS) - tiers:
        assert ahead.candidates(("v", 1), "q", set(TIERS), limit, also) is None


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
fields = st.fixed_dictionaries({}, optional={
    "version": json_values, "tiers": json_values, "limit": json_values, "near": json_values,
    "rows": json_values | st.binary(max_size=40).map(lambda b: base64.b64encode(b).decode()),
    "cosines": json_values | st.binary(max_size=40).map(lambda b: base64.b64encode(b).decode()),
})


@given(json_values | fields)
def test_anything_else_that_arrives_is_refused_never_raised(shown: object) -> None:
    ahead = scored_from_json("q", shown)
    assert ahead is None or isinstance(ahead, ScoredAhead)
    if ahead is not None:
        assert len(ahead.near) <= ahead.limit and all(isinstance(row, int) for row in ahead.cosines)
