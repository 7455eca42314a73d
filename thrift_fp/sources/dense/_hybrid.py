"""Which ranking a search runs, and the fused order of a lexical and a dense candidate list.

`Ranking` says what a search over an index ranks with — ``"hybrid"`` (lexical fused with dense
vectors) or ``"lexical"`` — and, when lexical, why: the ``[dense]`` extra is not installed,
the index holds no vectors of the model, or dense ranking was turned off.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

from thrift_fp.sources.dense._embedder import Embedder
from thrift_fp.sources.ranking._fusion import fuse_rankings
from thrift_fp.sources.ranking._score import Scored

RankingKind = Literal["lexical", "hybrid"]
# Candidates each ranking contributes to the fusion, whatever the final limit (chosen on the
# tuning questions: deeper pools let a passage both rankings like moderately surface).
POOL: Final = 50
# The ``dense`` argument of index and search functions: an embedder, True for the default
# model where the extra is installed, False for lexical ranking only.
DenseChoice = Embedder | bool


@dataclass(frozen=True, slots=True)
class Ranking:
    """What a search ranks with: ``kind``, the dense ``model`` (hybrid only), and ``reason`` (lexical only).

    >>> Ranking("lexical", None, "dense ranking is turned off").as_json()
    {'ranking': 'lexical', 'ranking_reason': 'dense ranking is turned off'}
    >>> Ranking("hybrid", "all-MiniLM-L6-v2-int8/128", None).as_json()
    {'ranking': 'hybrid', 'dense_model': 'all-MiniLM-L6-v2-int8/128'}
    """

    kind: RankingKind
    model: str | None
    reason: str | None

    def as_json(self) -> dict[str, str]:
        """The fields ``--json`` output carries about the ranking."""
        if self.kind == "hybrid":
            return {"ranking": "hybrid", "dense_model": str(self.model)}
        return {"ranking": "lexical", "ranking_reason": str(self.reason)}


def fuse_scored(lexical: Sequence[Scored], dense: Sequence[Scored], limit: int) -> tuple[Scored, ...]:
    """The ``limit`` best of both lists, fused by content (a passage and its twin are one
    candidate, shown as the lexical ranking's passage when it has one).

    The fused ``score`` is in (0, 1] (see `fuse_rankings`); ``raw`` carries the same value.

    >>> lexical = [Scored(1, "a#1", "ha", 0.9, 3.0), Scored(2, "b#1", "hb", 0.5, 1.0)]
    >>> dense = [Scored(3, "c#1", "hb", 0.8, 0.8), Scored(4, "d#1", "hd", 0.7, 0.7)]
    >>> [(s.passage_id, round(s.score, 3)) for s in fuse_scored(lexical, dense, 3)]
    [('b#1', 0.994), ('d#1', 0.59), ('a#1', 0.4)]
    """
    shown: dict[str, Scored] = {}
    for scored in (*lexical, *dense):
        shown.setdefault(scored.content_hash, scored)
    fused = fuse_rankings([s.content_hash for s in lexical], [s.content_hash for s in dense])
    return tuple(
        Scored(shown[f.key].key, shown[f.key].passage_id, f.key, f.score, f.score) for f in fused[: max(limit, 0)]
    )
