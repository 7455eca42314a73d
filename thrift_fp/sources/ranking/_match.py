"""Turning a user's text into a safe FTS5 query, and bm25 ranks into scores.

Queries keep technical tokens whole: ``C++`` is one term (the index treats ``+`` as a
token character), and a joined name — ``node:fs``, ``snake_case``, ``fs.readFile``,
``utf-8`` — is searched as the exact phrase of its parts *and* as each part, so the exact
spelling ranks first and a partial mention still counts. Common English words (``how``,
``the``, ``do``) are dropped unless the question holds nothing else, so they never decide
what comes back.
"""

from __future__ import annotations

import math
import re
from typing import Final

# A run of word characters (and '+') possibly joined by . : _ / - into one name.
_CANDIDATE: Final = re.compile(r"[^\W_]*(?:[^\W_]|\+)+(?:[.:_/\-][^\W_]+(?:\+*))*")
# Tokens as the index's tokenizer (unicode61 with '+' as a token character) cuts them.
_TOKEN: Final = re.compile(r"(?:[^\W_]|\+)+")
# A question longer than this adds nothing but cost to a bm25 query.
MAX_QUERY_TERMS: Final = 64
STOP_WORDS: Final = frozenset(
    """a about above after again against all am an and any are as at be because been before being below
    between both but by can could did do does doing down during each few for from further had has have
    having he her here hers herself him himself his how i if in into is it its itself just me more most
    my myself no nor not now of off on once only or other our ours ourselves out over own same she
    should so some such than that the their theirs them themselves then there these they this those
    through to too under until up use using very was we were what when where which while who whom why
    will with would you your yours yourself yourselves""".split()
)


def query_terms(query: str) -> tuple[str, ...]:
    """The quoted FTS5 phrases a free-text query searches for, in order, without repeats.

    >>> query_terms("How do I use C++ with node:fs and snake_case?")
    ('"C++"', '"node fs"', '"node"', '"fs"', '"snake case"', '"snake"', '"case"')
    >>> query_terms("how to")
    ('"how"', '"to"')
    """
    candidates: list[list[str]] = []
    for match in _CANDIDATE.finditer(query):
        tokens = [token for token in _TOKEN.findall(match.group()) if not set(token) <= {"+"}]
        if tokens:
            candidates.append(tokens)
    content = [tokens for tokens in candidates if len(tokens) > 1 or tokens[0].lower() not in STOP_WORDS]
    phrases: dict[str, str] = {}
    for tokens in content or candidates:
        parts = [tokens] if len(tokens) == 1 else [tokens, *([t] for t in tokens if t.lower() not in STOP_WORDS)]
        for part in parts:
            # \W-free tokens hold no double quote, but doubling keeps the quoting correct regardless.
            phrase = '"' + " ".join(part).replace('"', '""') + '"'
            phrases.setdefault(phrase.lower(), phrase)
    return tuple(phrases.values())[:MAX_QUERY_TERMS]


def match_expression(query: str) -> str:
    """The FTS5 ``MATCH`` expression for free text: its `query_terms` joined with ``OR``.

    Quoting makes every term a plain string to FTS5, so operators, quotes, brackets and
    column filters in the user's text can never raise a syntax error. An empty result
    means the text holds no searchable word.

    >>> match_expression('how does "shedding" work? AND NEAR(x')
    '"shedding" OR "work" OR "NEAR" OR "x"'
    >>> match_expression("?! --")
    ''
    """
    return " OR ".join(query_terms(query))


def bm25_to_score(rank: float, ideal: float) -> float:
    """Map an FTS5 ``bm25()`` rank to a score in [0, 1]: the share of the ``ideal`` it reaches.

    FTS5's ``bm25()`` is minus a sum over the query's phrases of ``idf × f(k1+1)/(f + k1·L)``,
    and each term tends to ``idf × (k1+1)`` as the phrase's (weighted) frequency ``f`` grows.
    So ``ideal = (k1+1) × Σ idf`` is the most any passage could reach for
    this query, and ``score = -rank / ideal``: near 1 for a passage dense in every rare term of
    the question (and its heading), about half for one plain mention of each, and near 0 for
    a passage that only shares common words. The score of a passage does not depend on the
    other hits, so it separates good matches from bad ones across queries. NaN scores 0.

    >>> bm25_to_score(-3.0, 6.0), bm25_to_score(0.5, 6.0), bm25_to_score(-9.0, 6.0)
    (0.5, 0.0, 1.0)
    >>> bm25_to_score(float("nan"), 6.0), bm25_to_score(-1.0, 0.0)
    (0.0, 1.0)
    """
    if math.isnan(rank) or rank >= 0:
        return 0.0
    if not ideal > 0:
        return 1.0
    return min(1.0, max(0.0, -rank / ideal))
