"""Fusing the lexical and the dense ranking of one question into one order: weighted reciprocal ranks.

Each list contributes ``weight / (k + rank)`` for every passage it holds (rank 1 is its best); a
passage in neither list is not a candidate. Ranks, not scores, are fused: bm25 and cosine live on
scales that do not compare, and a rank is the same on both stores. The fused score is normalised
by the most any passage could get (first in both lists), so it lies in (0, 1].
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

# Chosen on the tuning half of the evaluation questions only (docs/dense.md).
FUSION_K: Final = 60.0
DENSE_WEIGHT: Final = 1.5


@dataclass(frozen=True, slots=True)
class Fused:
    """One candidate of the fused order: its key, fused score in (0, 1], and its rank in each list (or ``None``)."""

    key: str
    score: float
    lexical_rank: int | None
    dense_rank: int | None


def fuse_rankings(
    lexical: Sequence[str],
    dense: Sequence[str],
    *,
    k: float = FUSION_K,
    dense_weight: float = DENSE_WEIGHT,
) -> tuple[Fused, ...]:
    """Fuse two best-first lists of keys into one, best first.

    Ties (equal fused scores) go to the better lexical rank, then the better dense rank, then the
    key, so the order is a function of the two lists alone. A key repeated within one list counts
    at its first rank. With no dense list, the order is the lexical one.

    >>> [(f.key, round(f.score, 3)) for f in fuse_rankings(["a", "b", "c"], ["c", "a"])]
    [('a', 0.99), ('c', 0.987), ('b', 0.394)]
    >>> [f.key for f in fuse_rankings(["a", "b"], [])]
    ['a', 'b']
    """
    lexical_weight = 1.0
    ranks: dict[str, list[int | None]] = {}
    for position, key in enumerate(lexical, start=1):
        ranks.setdefault(key, [position, None])
    for position, key in enumerate(dense, start=1):
        entry = ranks.setdefault(key, [None, None])
        if entry[1] is None:
            entry[1] = position
    best = (lexical_weight + (dense_weight if dense else 0.0)) / (k + 1.0)
    fused = [
        Fused(
            key,
            _share(lexical_rank, lexical_weight, k) + _share(dense_rank, dense_weight, k),
            lexical_rank,
            dense_rank,
        )
        for key, (lexical_rank, dense_rank) in ranks.items()
    ]
    missing = len(lexical) + len(dense) + 1
    fused.sort(key=lambda f: (-f.score, f.lexical_rank or missing, f.dense_rank or missing, f.key))
    return tuple(Fused(f.key, min(f.score / best, 1.0), f.lexical_rank, f.dense_rank) for f in fused)


def _share(rank: int | None, weight: float, k: float) -> float:
    return 0.0 if rank is None else weight / (k + rank)
