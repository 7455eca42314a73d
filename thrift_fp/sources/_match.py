"""Turning a user's text into a safe FTS5 query, and bm25 ranks into scores."""

from __future__ import annotations

import math
import re
from typing import Final

# Word characters as SQLite's unicode61 tokenizer sees them (it also splits on '_').
_TERM: Final = re.compile(r"[^\W_]+")
# A question longer than this adds nothing but cost to a bm25 query.
MAX_QUERY_TERMS: Final = 64


def match_expression(query: str) -> str:
    """The FTS5 ``MATCH`` expression for free text: each word quoted, joined with ``OR``.

    Quoting makes every word a plain string to FTS5, so operators, quotes, brackets and
    column filters in the user's text can never raise a syntax error. An empty result
    means the text holds no searchable word.

    >>> match_expression('how does "shedding" work? AND NEAR(x')
    '"how" OR "does" OR "shedding" OR "work" OR "AND" OR "NEAR" OR "x"'
    >>> match_expression("?! --")
    ''
    """
    terms = list(dict.fromkeys(_TERM.findall(query)))[:MAX_QUERY_TERMS]
    # \W-free terms hold no double quote, but doubling keeps the quoting correct regardless.
    return " OR ".join('"' + term.replace('"', '""') + '"' for term in terms)


def bm25_to_score(rank: float) -> float:
    """Map an FTS5 ``bm25()`` rank to a score in [0, 1].

    FTS5's ``bm25()`` is negative and more negative means a better match. With
    ``x = max(0, -rank)`` the score is ``x / (1 + x)``: 0 for no evidence, approaching 1
    for strong matches, strictly increasing in ``x`` (so monotone in the rank) and
    independent of the other hits, so a passage keeps its score across result sets.
    A NaN rank scores 0.

    >>> bm25_to_score(-3.0)
    0.75
    >>> bm25_to_score(0.5), bm25_to_score(float("-inf"))
    (0.0, 1.0)
    """
    if math.isnan(rank):
        return 0.0
    evidence = max(0.0, -rank)
    if math.isinf(evidence):
        return 1.0
    return evidence / (1.0 + evidence)
