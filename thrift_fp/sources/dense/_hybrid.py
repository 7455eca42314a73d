"""Which ranking a search runs, and the fused order of a lexical and a dense candidate list.

`Ranking` says what a search over an index ranks with — ``"hybrid"`` (lexical fused with dense
vectors) or ``"lexical"`` — and, when lexical, why: the ``[dense]`` extra is not installed,
the index holds no vectors of the model, or dense ranking was turned off.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from typing import Final, Literal

from thrift_fp._value import value
from thrift_fp.sources.dense._embedder import Embedder
from thrift_fp.sources.dense._scored import DENSE_POOL
from thrift_fp.sources.ranking import Evidence, Scored, fuse_scores, passage_source, spread_sources

RankingKind = Literal["lexical", "hybrid"]
"""Which ranking ran: ``lexical`` (BM25F) or ``hybrid`` (fused with dense vectors)."""
# The lexical pool beside `DENSE_POOL` (kept in `_scored`, which `ask`'s question child reads
# without the ranking layer; why this one is empty is said there).
LEXICAL_POOL: Final = 0
"""How many lexical-only candidates a hybrid search adds to the dense ones (none: they almost never reach the top)."""
# The score (`match_score`: the best fused score, less a share of what the index does not know)
# a hybrid search must reach to answer at all: the dense side always finds a nearest passage, so without it a question about nothing in the corpus
# ("zzqxv flurbogrant") gets the least unrelated passages. Chosen on tuning questions only
# (benchmarks/no_match_floor.py --choose: the tune halves and offtopic.tune.txt), never on the
# held-out off-topic set or the fresh sets (BENCHMARKS.md, "No passage matched"). An index
# run with vectors raises it for its own corpus where its off-topic probes reach higher
# (`calibrate`): this is the floor of an index not calibrated yet, and the least any may have.
MATCH_FLOOR: Final = 0.3
"""The match score (`match_score`) a hybrid search must reach to answer at all (the least; see `calibrate`)."""
# What the floor is held against is the best fused score less UNKNOWN_WEIGHT times the share of
# the question carried by words no passage of the index holds (`unknown_share`). The dense side
# maps a question about another stack ("webpack module not found cannot resolve fs") near the
# manual's passages on modules whether or not any passage says "webpack"; the index's own term
# counts know it does not. Chosen on tuning questions only (benchmarks/no_match_floor.py
# --choose-rule: the tune halves, offtopic.tune.txt and the spent offtopic.txt and
# offtopic2.txt, the probes): the least weight on a 0.05 grid with which every corpus turns
# away >= 0.95 of the off-topic tuning asks with no tune hit@5 lost (BENCHMARKS.md §23).
UNKNOWN_WEIGHT: Final = 0.25
"""How much of the share of a question no passage holds is taken off its best fused score (`match_score`)."""
MATCH_RULE: Final = f"best fused score - {UNKNOWN_WEIGHT} x share of the question no passage holds"
"""Names what a hybrid search holds to its floor, as a ranking's JSON says it (``match_rule``)."""


def match_score(best: float, unknown: float) -> float:
    """What a hybrid search holds to its floor: the best fused score ``best`` less `UNKNOWN_WEIGHT`
    times ``unknown``, the share of the question carried by words no passage holds (`unknown_share`).

    >>> match_score(0.4, 0.0), round(match_score(0.4, 1.0), 3)
    (0.4, 0.15)
    """
    return best - UNKNOWN_WEIGHT * min(max(unknown, 0.0), 1.0)


@value
class OneQuestion:
    """``dense=`` for a process that embeds one question and exits (``thrift-fp ask``): as ``True``
    (the shipped model of the index's vectors, where installed, making the same vectors), with the
    default model's session loaded for one question (`thrift_fp.sources.dense.default_embedder`).
    An index run takes it as ``True``.

    >>> shipped(OneQuestion()), shipped(True), shipped(False)
    (True, True, False)
    """


# The ``dense`` argument of index and search functions: an embedder, True for the default
# model where the extra is installed, False for lexical ranking only.
DenseChoice = Embedder | bool | OneQuestion
"""The ``dense`` argument: an embedder, ``True`` for the default model where installed (`OneQuestion`:
the same, for one question), ``False`` for lexical only."""


def shipped(dense: DenseChoice) -> bool:
    """Whether ``dense`` asks for the shipped model of the index's vectors (``True``, `OneQuestion`)."""
    return dense is True or isinstance(dense, OneQuestion)


@value
class Ranking:
    """What a search ranks with: ``kind``, the dense ``model`` (hybrid only), ``reason`` (lexical
    only), and ``incomplete``: ``(embedded, total)`` while an embedding run of the index has not
    finished (lexical meanwhile). A hybrid search answers nothing when its `match_score` is below
    ``match_floor``: calibrated on the index's own passages when ``floor_calibrated`` (`calibrate`),
    else `MATCH_FLOOR`.

    A store that can search its vectors in more than one place says where a hybrid search finds
    its dense candidates, ``dense_search`` (PostgreSQL: ``"pgvector"`` or ``"in-process"``), and
    why not in the database (``dense_search_reason``).

    >>> Ranking("lexical", None, "dense ranking is turned off").as_json()
    {'ranking': 'lexical', 'ranking_reason': 'dense ranking is turned off'}
    >>> Ranking("hybrid", "all-MiniLM-L6-v2-int8/128", None).as_json()
    {'ranking': 'hybrid', 'dense_model': 'all-MiniLM-L6-v2-int8/128'}
    >>> Ranking("lexical", None, "the index's vectors are incomplete", (40, 100)).as_json()["vectors"]
    {'embedded': 40, 'total': 100, 'complete': False}
    >>> shown = Ranking("hybrid", "m", None, match_floor=0.34, floor_calibrated=True).as_json()
    >>> shown["match_floor"], shown["match_floor_from"], shown["match_rule"] == MATCH_RULE
    (0.34, "this index's probes", True)
    >>> Ranking("hybrid", "m", None, dense_search="in-process", dense_search_reason="the server has no pgvector").as_json()
    {'ranking': 'hybrid', 'dense_model': 'm', 'dense_search': 'in-process', 'dense_search_reason': 'the server has no pgvector'}
    """

    kind: RankingKind
    model: str | None
    reason: str | None
    incomplete: tuple[int, int] | None = None
    dense_search: str | None = None
    dense_search_reason: str | None = None
    match_floor: float | None = None
    floor_calibrated: bool = False

    def as_json(self) -> dict[str, object]:
        """The fields ``--json`` output carries about the ranking."""
        if self.kind == "hybrid":
            hybrid: dict[str, object] = {"ranking": "hybrid", "dense_model": str(self.model)}
            if self.dense_search is not None:
                hybrid["dense_search"] = self.dense_search
            if self.dense_search_reason:
                hybrid["dense_search_reason"] = self.dense_search_reason
            if self.match_floor is not None:
                hybrid["match_floor"] = self.match_floor
                hybrid["match_floor_from"] = "this index's probes" if self.floor_calibrated else "the default"
                hybrid["match_rule"] = MATCH_RULE
            return hybrid
        shown: dict[str, object] = {"ranking": "lexical", "ranking_reason": str(self.reason)}
        if self.incomplete is not None:
            embedded, total = self.incomplete
            shown["vectors"] = {"embedded": embedded, "total": total, "complete": False}
        return shown


def fuse_scored(
    lexical: Sequence[Scored],
    dense: Sequence[Scored],
    limit: int,
    *,
    shares: Mapping[int, float],
    cosines: Mapping[int, float],
    floor: float = MATCH_FLOOR,
    unknown: float = 0.0,
) -> tuple[Scored, ...]:
    """The ``limit`` best of both lists by `fuse_scores`, none when nothing matched: `fuse_matched`'s passages.

    >>> from thrift_fp.sources.ranking import Scored
    >>> [s.passage_id for s in fuse_scored([], [Scored(3, "c#1", "hc", 0.8, 0.8)], 3, shares={}, cosines={})]
    ['c#1']
    """
    return fuse_matched(lexical, dense, limit, shares=shares, cosines=cosines, floor=floor, unknown=unknown)[0]


def fuse_matched(
    lexical: Sequence[Scored],
    dense: Sequence[Scored],
    limit: int,
    *,
    shares: Mapping[int, float],
    cosines: Mapping[int, float],
    floor: float = MATCH_FLOOR,
    unknown: float = 0.0,
) -> tuple[tuple[Scored, ...], float]:
    """The ``limit`` best of both lists by `fuse_scores`, one per content (a passage and its twin
    are one candidate, shown as the lexical ranking's passage when it has one), sources before
    repeats (`spread_sources`: a source's later passages score less); none when the `match_score`
    of the best fused score (0 without candidates) and ``unknown`` (the share of the question no
    passage holds, `unknown_share`) is below ``floor`` (no passage matched; 0 is no floor). Returned beside the
    passages, that match score is what calibrating a floor measures; the floor decides nothing else.

    ``lexical`` holds lexical shares as scores, ``dense`` cosines; ``shares`` gives the exact
    lexical share of the dense list's passages (by row key), ``cosines`` the cosine of the
    lexical list's (absent: 0). A content's evidence is the best of its passages'. The fused
    ``score`` is in [0, 1]; ``raw`` carries the same value.

    >>> lexical = [Scored(1, "a#1", "ha", 0.9, 3.0), Scored(2, "b#1", "hb", 0.5, 1.0)]
    >>> dense = [Scored(3, "c#1", "hb", 0.8, 0.8), Scored(4, "d#1", "hd", 0.7, 0.7)]
    >>> fused = fuse_scored(lexical, dense, 3, shares={3: 0.5, 4: 0.0}, cosines={1: 0.2, 2: 0.8})
    >>> [(s.passage_id, round(s.score, 3)) for s in fused]
    [('b#1', 0.74), ('d#1', 0.56), ('a#1', 0.34)]
    >>> twice = fuse_scored([Scored(1, "a#1", "h1", 0.9, 1.0), Scored(2, "a#2", "h2", 0.8, 1.0),
    ...                      Scored(3, "b#1", "h3", 0.7, 1.0)], [], 3, shares={}, cosines={1: 0.9, 2: 0.8, 3: 0.7})
    >>> [(s.passage_id, round(s.score, 3)) for s in twice]
    [('a#1', 0.9), ('b#1', 0.7), ('a#2', 0.56)]
    >>> fuse_scored(lexical, dense, 3, shares={3: 0.5, 4: 0.0}, cosines={1: 0.2, 2: 0.8}, floor=0.75)
    ()
    >>> [len(fuse_scored(lexical, dense, 3, shares={3: 0.5, 4: 0.0}, cosines={1: 0.2, 2: 0.8}, floor=0.7, unknown=u))
    ...  for u in (0.0, 0.5)]
    [3, 0]
    >>> round(fuse_matched(lexical, dense, 3, shares={3: 0.5, 4: 0.0}, cosines={1: 0.2, 2: 0.8}, unknown=0.5)[1], 3)
    0.615
    """
    shown: dict[str, Scored] = {}
    lexical_of: dict[str, float] = {}
    cosine_of: dict[str, float] = {}
    for scored in lexical:
        shown.setdefault(scored.content_hash, scored)
        lexical_of[scored.content_hash] = max(lexical_of.get(scored.content_hash, 0.0), scored.score)
        cosine_of[scored.content_hash] = max(cosine_of.get(scored.content_hash, 0.0), cosines.get(scored.key, 0.0))
    for scored in dense:
        shown.setdefault(scored.content_hash, scored)
        lexical_of[scored.content_hash] = max(lexical_of.get(scored.content_hash, 0.0), shares.get(scored.key, 0.0))
        cosine_of[scored.content_hash] = max(cosine_of.get(scored.content_hash, 0.0), scored.score)
    fused = fuse_scores(Evidence(key, lexical_of[key], cosine_of[key]) for key in shown)
    matched = match_score(fused[0].score if fused else 0.0, unknown)
    # A floor of 0 (or less) is no floor: a match score may be below 0, the question answered still.
    if not fused or (floor > 0.0 and matched < floor):
        return (), matched
    spread = spread_sources(fused, lambda f: f.score, lambda f: passage_source(shown[f.key].passage_id))
    return tuple(
        Scored(shown[f.key].key, shown[f.key].passage_id, f.key, score, score) for f, score in spread[: max(limit, 0)]
    ), matched
