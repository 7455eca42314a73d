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

import heapq
from collections.abc import Callable, Iterable, Sequence

from typing import Final, TypeVar

from thrift_fp._value import value

# The lexical share's weight (the dense cosine gets the rest); chosen on the whole evaluation set
# across five documentation corpora (docs/dense.md, "Fusion").
LEXICAL_WEIGHT: Final = 0.2
# What each earlier passage of the same source multiplies a passage's score by, so that an answer
# reaches further sources before it repeats one: a file's second passage must score 1/0.7 of
# another file's first to come before it. Chosen on the whole evaluation set (docs/dense.md,
# "Sources before repeats"): 0.5 to 0.8 gave the same answers, 0.9 slightly fewer hits.
SOURCE_REPEAT: Final = 0.7

_Item = TypeVar("_Item")


@value
class Evidence:
    """One candidate: its ``key`` (content hash), its exact lexical share in [0, 1] and its cosine in [-1, 1]."""

    key: str
    lexical: float
    cosine: float


@value
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


def spread_sources(
    items: Sequence[_Item],
    score: Callable[[_Item], float],
    source: Callable[[_Item], str],
    *,
    repeat: float = SOURCE_REPEAT,
) -> tuple[tuple[_Item, float], ...]:
    """``items`` (best first) reordered so that sources come before repeats, each with its shown score.

    Greedy: the next item is the one whose score × ``repeat`` ** (items of its source already
    taken) is highest, and that product is its shown score, so the shown scores never rise and a
    caller that sheds the lowest score first sheds repeats of a source before another source.
    Ties keep the input order. With every source distinct, nothing moves and no score changes.

    >>> hits = [("a.md#1", 0.9), ("a.md#2", 0.8), ("b.md#1", 0.7)]
    >>> [(h, round(s, 2)) for (h, _), s in spread_sources(hits, lambda h: h[1], lambda h: h[0].split("#")[0])]
    [('a.md#1', 0.9), ('b.md#1', 0.7), ('a.md#2', 0.56)]
    """
    taken: dict[str, int] = {}
    # Lazy re-scoring: demotion only lowers a score, so an item popped at its current demoted
    # score is the best left; one popped at a stale score goes back with its new one.
    queue = [(-max(score(item), 0.0), at, 0) for at, item in enumerate(items)]
    heapq.heapify(queue)
    spread: list[tuple[_Item, float]] = []
    while queue:
        negative, at, seen = heapq.heappop(queue)
        name = source(items[at])
        now = taken.get(name, 0)
        if now != seen:
            heapq.heappush(queue, (-max(score(items[at]), 0.0) * repeat**now, at, now))
            continue
        spread.append((items[at], -negative))
        taken[name] = now + 1
    return tuple(spread)


def passage_source(passage_id: str) -> str:
    """The source (file) a passage id names: the id up to its last ``#``.

    >>> passage_source("api/fs.md#12"), passage_source("no-anchor")
    ('api/fs.md', 'no-anchor')
    """
    return passage_id.rpartition("#")[0] or passage_id
