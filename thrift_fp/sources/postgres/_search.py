"""Search over a PostgreSQL collection: the shared ranking over the GIN index's candidates.

The user's text is never query syntax: it is analyzed into terms by the same analyzer the
SQLite source uses (`query_words`), and each term is looked up in the passages' ``lexicon``
(their distinct analyzed terms, under a GIN index). PostgreSQL finds each term's passages, hands
back the candidates' analyzed fields, and reads the collection's sizes and each term's passage
count from the statistics it keeps as passages change (`_statistics`); the
score and the order are the shared ranking's (`top_passages`), so a collection and an SQLite
index of the same files return the same passages in the same order.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime
from types import MappingProxyType
from typing import Final

import psycopg
from psycopg_pool import PoolTimeout
from returns.result import Failure, Result, Success

from thrift_fp._args import CheckedStringsArg
from thrift_fp.sources.contract import ALL_TIERS, CANDIDATES_PER_HIT, Hit, MissingParser, checked_tiers, collapsed_hits
from thrift_fp.sources.postgres._errors import (
    CollectionMissing,
    DatabaseUnreachable,
    PostgresSourceError,
    scrub,
)
from thrift_fp.sources.dense import DENSE_POOL, LEXICAL_POOL, MATCH_FLOOR, DenseChoice, Ranking, fuse_matched
from thrift_fp.sources.postgres._dense import dense_candidates, ranking_of
from thrift_fp.sources.postgres._statistics import collection_sizes, term_counts
from thrift_fp.sources.postgres._store import DEFAULT_COLLECTION, PostgresDatabase, query_error
from thrift_fp.sources.ranking import (
    Candidate,
    CollectionStats,
    Scored,
    analyzer_available,
    by_rarity,
    query_words,
    shares,
    term_idfs,
    top_passages,
    unknown_share,
)
from thrift_fp.sources.postgres._connection import Connection as _Connection

# The collection's analyzer, and whether the database keeps its statistics (`_statistics`).
_COLLECTION: Final = """
SELECT analyzer, to_regclass('thrift_fp_term_passages') IS NOT NULL FROM thrift_fp_collections
WHERE collection = %(collection)s
"""
# One phase of `by_rarity`: each candidate of an allowed tier holding one of the phase's terms
# (the GIN index finds them), with its bound (the idfs of the question terms it holds, summed in
# the question's order, so every phase sums a passage alike) in the phase's range, best first.
_PHASE: Final = """
SELECT id, bound FROM (
    SELECT p.id, (SELECT sum(t.w) FROM unnest(%(terms)s::text[], %(idfs)s::float8[]) AS t(term, w)
                  WHERE t.term = ANY(p.lexicon)) AS bound
    FROM thrift_fp_passages AS p
    WHERE p.collection = %(collection)s AND p.lexicon && %(essential)s::text[] AND p.trust_tier = ANY(%(tiers)s)
) AS candidate
WHERE bound > %(lower)s AND (%(upper)s::float8 IS NULL OR bound <= %(upper)s::float8)
ORDER BY bound DESC, id"""
_FIRST_PAGE: Final = 512
_FIELDS: Final = """
SELECT id, passage_id, content_hash, body_terms, heading_terms, trail_terms, body_length, heading_length,
       trail_length FROM thrift_fp_passages
WHERE collection = %(collection)s AND id = ANY(%(keys)s)
"""
_ROWS: Final = """
SELECT id, passage_id, source, path, kind, trust_tier, created_at, updated_at, content_hash, tokens, text, metadata
FROM thrift_fp_passages WHERE collection = %(collection)s AND id = ANY(%(keys)s)
"""


def search_terms(query: str) -> tuple[str, ...]:
    """The analyzed terms of ``query`` searched for, the SQLite source's (`query_words`):
    letters and digits only, never an operator. At most ``MAX_QUERY_TERMS``.

    >>> search_terms('how "does" -shedding OR work? C++ node:fs')
    ('shed', 'work', 'cplusplus', 'nodefs', 'node', 'fs')
    >>> search_terms('" - ')
    ()
    """
    return query_words(query)


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
    dense: DenseChoice = True,
    match_floor: float | None = None,
) -> Result[tuple[Hit, ...], PostgresSourceError]:
    """The ``limit`` best passages of ``collection`` for free-text ``query``, one per distinct content.

    ``dense`` as in the SQLite source: where the collection holds the model's vectors, the
    lexical ranking is fused with the passages nearest the question (see `search_ranking`), and
    ``match_floor`` is the floor under which a hybrid search's `match_score` answers nothing (``None``: the one
    the index run calibrated on this collection, else `MATCH_FLOOR`; 0 turns it off).

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
    ([('...a.txt#1', 0.25)], ())
    """
    return search_matched(
        database, query, collection=collection, limit=limit, tiers=tiers, dense=dense, match_floor=match_floor
    ).map(lambda found: found[0])


def search_matched(
    database: PostgresDatabase,
    query: str,
    *,
    collection: str = DEFAULT_COLLECTION,
    limit: int = 8,
    tiers: CheckedStringsArg = ALL_TIERS,
    dense: DenseChoice = True,
    match_floor: float | None = None,
) -> Result[tuple[tuple[Hit, ...], float | None], PostgresSourceError]:
    """`search_index`'s hits, and the `match_score` its hybrid ranking held to the floor (``None``
    when the ranking was lexical or the question has no word), as the SQLite source's `search_matched`.

    >>> import os, tempfile, pathlib
    >>> from thrift_fp.sources.postgres import index_paths, open_database
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (root / "a.txt").write_text("Shedding drops the lowest score first.")
    >>> with open_database(os.environ["THRIFT_FP_TEST_PG_URL"], create=True).unwrap() as db:
    ...     _ = index_paths(db, [root], collection=str(root)).unwrap()
    ...     matched = search_matched(db, "shedding", collection=str(root), dense=False).unwrap()[1]
    >>> matched is None
    True
    """
    chosen = checked_tiers(tiers)  # one tier as a str is one tier; each element is checked
    if isinstance(chosen, Failure):
        return Failure(chosen.failure())
    allowed = sorted(chosen.unwrap())
    try:
        with database.pool.connection() as connection:
            found = connection.execute(_COLLECTION, {"collection": collection}).fetchone()
            if found is None:
                return Failure(CollectionMissing(database.url, collection))
            analyzer, kept = str(found[0]), bool(found[1])
            if not analyzer_available(analyzer):
                where = f"{database.url} collection {collection!r}"
                return Failure(MissingParser(where, f"a collection built with {analyzer}", "snowballstemmer"))
            terms = query_words(query, analyzer)
            if not terms or limit <= 0:
                return Success(((), None))
            # Ranked deeper than asked: near-duplicates (a page's .txt and .html) collapse below.
            deeper = limit * CANDIDATES_PER_HIT
            stats = collection_sizes(connection, collection, kept)
            ranking, embedder, generation, column = ranking_of(connection, collection, dense)
            matched: float | None = None
            if embedder is None or generation is None:
                ranked = _ranked(connection, collection, terms, stats, kept, allowed, deeper)[0]
            else:
                # Each ranking offers its pool; every candidate gets both scores, computed exactly.
                lexical, share_of, unknown = _ranked(connection, collection, terms, stats, kept, allowed, LEXICAL_POOL)
                near = dense_candidates(
                    database.url, connection, collection, generation, embedder, query, allowed,
                    max(limit, DENSE_POOL), [s.key for s in lexical], column,
                )
                if isinstance(near, Failure):
                    return Failure(near.failure())
                nearest, cosines = near.unwrap()
                ranked, matched = fuse_matched(
                    lexical, nearest, deeper, shares=share_of([s.key for s in nearest]), cosines=cosines,
                    floor=match_floor if match_floor is not None else ranking.match_floor or MATCH_FLOOR,
                    unknown=unknown,
                )
            rows = connection.execute(_ROWS, {"collection": collection, "keys": [s.key for s in ranked]}).fetchall()
    except PoolTimeout as exc:
        return Failure(DatabaseUnreachable(database.url, scrub(f"no pooled connection became free: {exc}", database.password)))
    except psycopg.Error as exc:
        return Failure(query_error(exc, database.url, database.password, "search"))
    by_key = {int(str(row[0])): row for row in rows}
    hits = collapsed_hits([_hit(by_key[scored.key], scored) for scored in ranked if scored.key in by_key], limit)
    return Success((hits, matched))


def search_ranking(
    database: PostgresDatabase, *, collection: str = DEFAULT_COLLECTION, dense: DenseChoice = True
) -> Result[Ranking, PostgresSourceError]:
    """Which ranking `search_index` runs on ``collection`` with ``dense``: hybrid, or lexical and why."""
    try:
        with database.pool.connection() as connection:
            return Success(ranking_of(connection, collection, dense)[0])
    except PoolTimeout as exc:
        return Failure(DatabaseUnreachable(database.url, scrub(f"no pooled connection became free: {exc}", database.password)))
    except psycopg.Error as exc:
        return Failure(query_error(exc, database.url, database.password, "read the ranking"))


def _ranked(
    connection: _Connection,
    collection: str,
    terms: Sequence[str],
    stats: CollectionStats,
    kept: bool,
    tiers: Sequence[str],
    limit: int,
) -> tuple[tuple[Scored, ...], Callable[[Sequence[int]], dict[int, float]], float]:
    # The lexical top, how to score any other passages of the collection the same way, and the
    # share of the question no passage holds (`unknown_share`).
    df = term_counts(connection, collection, terms, kept)
    idfs = term_idfs(terms, stats, df)
    parameters = {"collection": collection, "terms": list(terms), "idfs": [idfs[t] for t in terms], "tiers": list(tiers)}

    def phase(essential: Sequence[str], lower: float, upper: float | None) -> Iterator[tuple[int, float]]:
        # The first page usually proves the top; the rest crosses the wire only when it does not.
        asked = {**parameters, "essential": list(essential), "lower": lower, "upper": upper}
        first = connection.execute(_PHASE + f" LIMIT {_FIRST_PAGE}", asked).fetchall()
        yield from ((int(str(key)), float(str(bound))) for key, bound in first)
        if len(first) == _FIRST_PAGE:
            rest = connection.execute(_PHASE + f" OFFSET {_FIRST_PAGE}", asked).fetchall()
            yield from ((int(str(key)), float(str(bound))) for key, bound in rest)

    def fetch(keys: Sequence[int]) -> list[Candidate]:
        return [
            Candidate(
                int(str(key)), str(pid), str(digest), str(body), str(heading), str(trail),
                (int(str(b)), int(str(h)), int(str(t))),
            )
            for key, pid, digest, body, heading, trail, b, h, t in connection.execute(
                _FIELDS, {"collection": collection, "keys": list(keys)}
            )
        ]

    return (
        top_passages(terms, stats, idfs, by_rarity(terms, idfs, phase), fetch, limit),
        lambda keys: shares(terms, stats, idfs, fetch(keys)),
        unknown_share(terms, stats, df),
    )


def _hit(row: tuple[object, ...], scored: Scored) -> Hit:
    (_, passage_id, source, path, kind, tier, created, updated, digest, tokens, text, metadata) = row
    assert isinstance(created, datetime) and isinstance(updated, datetime)  # timestamptz columns
    return Hit(
        str(passage_id), str(source), str(path), str(kind), str(tier),
        created.astimezone(UTC), updated.astimezone(UTC), str(digest), int(str(tokens)), str(text),
        scored.raw, scored.score, MappingProxyType(metadata if isinstance(metadata, dict) else {}),
    )
