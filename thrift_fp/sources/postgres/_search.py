"""Full-text search over a PostgreSQL collection: websearch terms, ``ts_rank_cd``, one hit per content.

The user's text is never query syntax. Its terms are the SQLite source's (`query_terms`):
common English words dropped unless nothing else is left, a joined name (``node:fs``,
``CMAKE_PREFIX_PATH``) searched as the phrase of its parts and as each part, every term a
double-quoted phrase of word characters. Each goes through ``websearch_to_tsquery`` on its
own (which never raises, and reads a quoted phrase as a phrase and nothing else); the terms
are joined with OR (``|``) by re-parsing each one's canonical ``tsquery`` text, so a passage
matching any term is a candidate.

The rank weighs each term by its rarity in the collection, as bm25 does in the SQLite source:
``ts_rank_cd`` alone (cover density, heading words weighted 'A', body words 'B') uses no
collection statistics, so a passage that repeats a word found everywhere ("target", "file")
outranks the one holding the question's rare word. The rank is the mean of the terms'
``ts_rank_cd`` weighted by their bm25 inverse document frequency (`bm25_idf`, counted over
the collection's passages like FTS5's), on ``ts_rank_cd``'s own scale.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from datetime import UTC, datetime
from types import MappingProxyType
from typing import Final

import psycopg
from psycopg_pool import PoolTimeout
from returns.result import Failure, Result, Success

from thrift_fp._args import CheckedStringsArg
from thrift_fp.sources._contract import ALL_TIERS, Hit
from thrift_fp.sources.ranking._match import MAX_QUERY_TERMS, bm25_idf, query_terms
from thrift_fp.sources._postgres_errors import (
    CollectionMissing,
    DatabaseUnreachable,
    PostgresSourceError,
)
from thrift_fp.sources.postgres._index import DEFAULT_COLLECTION
from thrift_fp.sources.postgres._store import PostgresDatabase, query_error
from thrift_fp.sources._tiers import checked_tiers

# The collection's size and each term's canonical tsquery (a term the configuration reduces
# to nothing, such as a stop word, is left out).
_TERMS: Final = """
SELECT (SELECT count(*) FROM thrift_fp_passages WHERE collection = %(collection)s),
       ARRAY(SELECT DISTINCT q::text FROM unnest(%(terms)s::text[]) AS term,
                 LATERAL websearch_to_tsquery(c.ts_config, term) AS q
             WHERE numnode(q) > 0)
FROM thrift_fp_collections AS c WHERE c.collection = %(collection)s
"""
# One term's passages, as FTS5 counts a phrase's rows for bm25 (the GIN index serves it).
_COUNT: Final = "SELECT count(*) FROM thrift_fp_passages WHERE collection = %s AND document @@ %s::tsquery"

# The terms and their weights arrive as constants, so the planner uses the GIN index for the
# match and computes nothing per row but the rank (a statistics-free plan of one statement
# once recomputed the term counts for every passage). Ranking and de-duplication run on
# narrow rows (id, hash, rank); only the hits returned are joined back for their text, so a
# common word's thousands of matches never sort wide rows.
_QUERY: Final = """
WITH hits AS (
    SELECT p.id, p.content_hash,
           (SELECT sum(term.idf * ts_rank_cd(p.document, term.q))
            FROM unnest(%(qs)s::tsquery[], %(idfs)s::float8[]) AS term(q, idf)) / %(weight)s AS rank
    FROM thrift_fp_passages AS p
    WHERE p.collection = %(collection)s AND p.document @@ %(query)s::tsquery AND p.trust_tier = ANY(%(tiers)s)
), best AS (
    SELECT DISTINCT ON (content_hash) id, rank FROM hits ORDER BY content_hash, rank DESC, id
), top AS (
    SELECT id, rank FROM best ORDER BY rank DESC, id LIMIT %(limit)s
)
SELECT p.passage_id, p.source, p.path, p.kind, p.trust_tier, p.created_at, p.updated_at, p.content_hash,
       p.tokens, p.text, p.metadata, top.rank
FROM top JOIN thrift_fp_passages AS p ON p.collection = %(collection)s AND p.id = top.id
ORDER BY top.rank DESC, top.id
"""


def search_terms(query: str) -> tuple[str, ...]:
    """The terms of ``query`` searched for, the SQLite source's (`query_terms`): double-quoted
    phrases of word characters (and ``+``), so ``websearch_to_tsquery`` reads each as a phrase
    and never as an operator. At most ``MAX_QUERY_TERMS``.

    >>> search_terms('how "does" -shedding OR work? C++ node:fs')
    ('"shedding"', '"work"', '"C++"', '"node fs"', '"node"', '"fs"')
    >>> search_terms('" - ')
    ()
    """
    return query_terms(query)


def rank_to_score(rank: float) -> float:
    """Map a ``ts_rank_cd`` rank (0 or more, higher is better) to a score in [0, 1].

    ``rank / (1 + rank)``: PostgreSQL's own normalisation 32 for ``ts_rank_cd``. 0 for no
    evidence, approaching 1 for strong matches, strictly increasing in the rank and
    independent of the other hits, so a passage keeps its score across result sets. A NaN
    or negative rank scores 0.

    >>> rank_to_score(1.0), rank_to_score(3.0), rank_to_score(float("inf"))
    (0.5, 0.75, 1.0)
    """
    if math.isnan(rank) or rank <= 0:
        return 0.0
    if math.isinf(rank):
        return 1.0
    return rank / (1.0 + rank)


def search_index(
    database: PostgresDatabase,
    query: str,
    *,
    collection: str = DEFAULT_COLLECTION,
    limit: int = 8,
    tiers: CheckedStringsArg = ALL_TIERS,
) -> Result[tuple[Hit, ...], PostgresSourceError]:
    """The ``limit`` best passages of ``collection`` for free-text ``query``, one per distinct content.

    Any text is a valid query; text without a searchable word finds nothing. A collection that
    was never indexed is `CollectionMissing`.

    >>> import os, tempfile, pathlib
    >>> from thrift_fp.sources.postgres import index_paths, open_database
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (root / "a.txt").write_text("Shedding drops the lowest score first.\\n\\nBudgets are tokens.")
    >>> with open_database(os.environ["THRIFT_FP_TEST_PG_URL"], create=True).unwrap() as db:
    ...     _ = index_paths(db, [root], collection=str(root), max_tokens=8).unwrap()
    ...     hits = search_index(db, "shedding?", collection=str(root)).unwrap()
    ...     hostile = search_index(db, '"AND ( -x | !y:*', collection=str(root)).unwrap()
    >>> [(h.passage_id, round(h.score, 2)) for h in hits], hostile
    ([('...a.txt#1', 0.29)], ())
    """
    chosen = checked_tiers(tiers)  # one tier as a str is one tier; each element is checked
    if isinstance(chosen, Failure):
        return Failure(chosen.failure())
    tiers = chosen.unwrap()
    terms = search_terms(query)
    try:
        with database.pool.connection() as connection:
            found = connection.execute(_TERMS, {"collection": collection, "terms": list(terms)}).fetchone()
            if found is None:
                return Failure(CollectionMissing(database.url, collection))
            total, queries = int(str(found[0])), [str(q) for q in found[1]]
            rows = []
            if queries and limit > 0:
                idfs = [bm25_idf(total, _count(connection, collection, q)) for q in queries]
                rows = connection.execute(
                    _QUERY,
                    {
                        "collection": collection, "query": " | ".join(f"({q})" for q in queries), "qs": queries,
                        "idfs": idfs, "weight": math.fsum(idfs), "tiers": sorted(tiers), "limit": limit,
                    },
                ).fetchall()
    except PoolTimeout as exc:
        return Failure(DatabaseUnreachable(database.url, f"no pooled connection became free: {exc}"))
    except psycopg.Error as exc:
        return Failure(query_error(exc, database.url, database.password, "search"))
    return Success(tuple(_hit(row) for row in rows))


def _count(connection: psycopg.Connection[tuple[object, ...]], collection: str, query: str) -> int:
    row = connection.execute(_COUNT, (collection, query)).fetchone()
    return int(str(row[0])) if row else 0


def _hit(row: tuple[object, ...]) -> Hit:
    (passage_id, source, path, kind, tier, created, updated, digest, tokens, text, metadata, rank) = row
    assert isinstance(created, datetime) and isinstance(updated, datetime)  # timestamptz columns
    raw_rank = float(str(rank))
    return Hit(
        str(passage_id), str(source), str(path), str(kind), str(tier),
        created.astimezone(UTC), updated.astimezone(UTC), str(digest), int(str(tokens)), str(text),
        raw_rank, rank_to_score(raw_rank), MappingProxyType(metadata if isinstance(metadata, dict) else {}),
    )
