"""Fusing the lexical and the dense evidence of one question into one order: a convex combination of scores.

Every candidate (a passage either ranking offered) carries **both** of its scores, each computed
exactly for it: its lexical share in [0, 1] (see `top_passages`: the share of the most the
question could reach) and its cosine with the question. The fused score is

    fused = LEXICAL_WEIGHT × lexical + (1 − LEXICAL_WEIGHT) × max(cosine, 0)

which lies in [0, 1]. Why scores and not ranks: reciprocal-rank fusion gives a passage that both
lists rank moderately (lexical 8th, dense 20th) more than the passage dense ranks first with a
clear margin, because a rank forgets how far ahead the first was; on paraphrased questions, whose
words the answer does not share, that pushed the dense ranking's right answers out of the top 5.
Both scores are already on fixed scales (a share of the ideal, a cosine), so no per-query
normalisation is needed, and a candidate missing from one list is never scored as absent:
its score there is computed, not guessed. The order is a function of each candidate's two scores
and its key alone, so every store that computes the same scores returns the same order.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

# The lexical share's weight (the dense cosine gets the rest); chosen on the whole evaluation set
# across five documentation corpora (docs/dense.md, "Fusion").
LEXICAL_WEIGHT: Final = 0.2


@dataclass(frozen=True, slots=True)
class Evidence:
    """One candidate: its ``key`` (content hash), its exact lexical share in [0, 1] and its cosine in [-1, 1]."""

    key: str
    lexical: float
    cosine: float


@dataclass(frozen=True, slots=True)
class Fused:
    """One candidate of the fused order: its key, fused score in [0, 1], and the two scores it came from."""

    key: str
    score: float
    lexical: float
    cosine: float


def fused_score(lexical: float, cosine: float, lexical_weight: float = LEXICAL_WEIGHT) -> float:
    """The fused score of one candidate: a convex combination of its lexical share and its
    (non-negative) cosine, in [0, 1].

    >>> round(fused_score(0.5, 0.6, 0.2), 3), fused_score(1.0, 1.0), fused_score(0.0, -0.3)
    (0.58, 1.0, 0.0)
    """
    lexical = min(max(lexical, 0.0), 1.0)
    cosine = min(max(cosine, 0.0), 1.0)
    return lexical_weight * lexical + (1.0 - lexical_weight) * cosine


def fuse_scores(candidates: Iterable[Evidence], *, lexical_weight: float = LEXICAL_WEIGHT) -> tuple[Fused, ...]:
    """The candidates best first by `fused_score`; one entry per key (a repeated key keeps its best).

    Ties go to the higher cosine, then the higher lexical share, then the key, so the order is a
    function of the candidates' scores alone, whatever order they arrive in.

    >>> [(f.key, round(f.score, 3)) for f in fuse_scores([Evidence("a", 0.9, 0.30), Evidence("b", 0.1, 0.62)])]
    [('b', 0.516), ('a', 0.42)]
    >>> [f.key for f in fuse_scores([Evidence("a", 0.9, 0.30), Evidence("b", 0.1, 0.62)], lexical_weight=1.0)]
    ['a', 'b']
    """
    best: dict[str, Fused] = {}
    for one in candidates:
        fused = Fused(one.key, fused_score(one.lexical, one.cosine, lexical_weight), one.lexical, one.cosine)
        kept = best.get(one.key)
        if kept is None or _order(fused) < _order(kept):
            best[one.key] = fused
    return tuple(sorted(best.values(), key=_order))


def _order(fused: Fused) -> tuple[float, float, float, str]:
    return (-fused.score, -fused.cosine, -fused.lexical, fused.key)
