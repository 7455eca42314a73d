"""Ranking shared by every store: turning a question into terms, the one scoring formula, and
fusing it with the dense ranking. The bottom of the ``sources`` stack: it imports nothing else
of ``thrift_fp.sources``, and every store ranks through this face.

>>> from thrift_fp.sources.ranking import query_words
>>> query_words("What is the budget?")
('budget',)
"""

from thrift_fp.sources.ranking._analyze import (
    SNOWBALL,
    analyze_fields,
    analyzer_available,
    default_analyzer,
    query_words,
)
from thrift_fp.sources.ranking._duplicates import Page, collapse, collapse_copies, page_of
from thrift_fp.sources.ranking._fusion import Evidence, fuse_scores, passage_source, spread_sources
from thrift_fp.sources.ranking._match import bm25_to_score, match_expression, query_terms
from thrift_fp.sources.ranking._score import (
    Candidate,
    CollectionStats,
    HEADING_WEIGHT,
    Scored,
    by_rarity,
    shares,
    term_idfs,
    top_passages,
    unknown_share,
)

__all__ = [
    "HEADING_WEIGHT",
    "SNOWBALL",
    "Candidate",
    "CollectionStats",
    "Evidence",
    "Page",
    "Scored",
    "analyze_fields",
    "analyzer_available",
    "bm25_to_score",
    "by_rarity",
    "collapse",
    "collapse_copies",
    "default_analyzer",
    "fuse_scores",
    "match_expression",
    "page_of",
    "passage_source",
    "query_terms",
    "query_words",
    "shares",
    "spread_sources",
    "term_idfs",
    "top_passages",
    "unknown_share",
]
