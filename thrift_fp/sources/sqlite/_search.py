"""Search over an SQLite index: the shared ranking over FTS5's candidates, one passage per content.

FTS5 only finds the passages holding each analyzed question term (and counts them); the
score and the order are the shared ranking's (`top_passages`), computed from the analyzed
fields the index stores, exactly as the PostgreSQL source does. Scores are the share of the
most the question could reach (see `thrift_fp.sources.ranking`).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from types import MappingProxyType
from typing import Final

from returns.result import Failure, Result, Success

from thrift_fp._args import CheckedStringsArg, PathArg, as_path
from thrift_fp.sources.contract import (
    ALL_TIERS, CANDIDATES_PER_HIT, CorruptDatabase, Hit, MissingParser, SourceError, checked_tiers, collapsed_hits,
)
from thrift_fp.sources.ranking import (
    HEADING_WEIGHT,
    SNOWBALL,
    Candidate,
    CollectionStats,
    Scored,
    analyzer_available,
    query_words,
    shares,
    term_idfs,
    top_passages,
    unknown_share,
)
from thrift_fp.sources.dense import LEXICAL_POOL, MATCH_FLOOR, DenseChoice, Ranking, fuse_matched
from thrift_fp.sources.sqlite._dense import dense_candidates, ranking_of
from thrift_fp.sources.sqlite._pool import MAX_LIMIT as _MAX_LIMIT, dense_pool
from thrift_fp.sources.sqlite._store import open_index

__all__ = ["HEADING_WEIGHT", "search_index", "search_ranking"]

_STATS: Final = "SELECT count(*), total(body_length), total(heading_length), total(trail_length) FROM passages"
_COUNT: Final = "SELECT count(*) FROM passages_fts WHERE passages_fts MATCH ?"
# CROSS JOIN keeps json_each outermost: one rowid lookup per key, never a scan of passages.
_FIELDS: Final = (
    "SELECT p.id, p.passage_id, p.content_hash, p.body_terms, p.heading_terms, p.trail_terms, p.body_length,"
    " p.heading_length, p.trail_length FROM json_each(?) AS k CROSS JOIN passages AS p ON p.id = k.value"
)
_ROWS: Final = (
    "SELECT p.id, p.passage_id, p.source, p.path, p.kind, p.trust_tier, p.created_at, p.updated_at,"
    " p.content_hash, p.tokens, p.text, p.metadata FROM json_each(?) AS k CROSS JOIN passages AS p"
    " ON p.id = k.value"
)


def search_index(
    database: PathArg,
    query: str,
    *,
    limit: int = 8,
    tiers: CheckedStringsArg = ALL_TIERS,
    dense: DenseChoice = True,
    match_floor: float | None = None,
) -> Result[tuple[Hit, ...], SourceError]:
    """The ``limit`` best passages for free-text ``query``, one per distinct content.

    By default (``dense=True``), where the index holds vectors of the ``[dense]`` extra's
    installed model, the lexical ranking is fused with the passages nearest the question, and
    the ranking is lexical otherwise (`search_ranking` tells which ranking runs, and why); a
    given embedder uses that model; ``dense=False`` ranks lexically. A hybrid search answers
    nothing when its `match_score` (the best fused score, less a share for the question's words
    no passage holds) is below ``match_floor``: by default (``None``) the floor
    the index run calibrated on this corpus (`calibrate`), or `MATCH_FLOOR` for an index not
    calibrated yet, so that a question about nothing in the corpus finds no passage; 0 turns
    the floor off.

    Any text is a valid query (see `query_words`); text without a word finds nothing.

    >>> import tempfile, pathlib
    >>> from thrift_fp.sources import index_paths
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (root / "a.txt").write_text("Shedding drops the lowest score first.\\n\\nBudgets are tokens.")
    >>> _ = index_paths(root / "i.db", [root], max_tokens=8).unwrap()
    >>> [(h.passage_id, round(h.score, 2)) for h in search_index(root / "i.db", "shedding?").unwrap()]
    [('...a.txt#1', 0.25)]
    >>> search_index(root / "i.db", '"AND (').unwrap()
    ()
    >>> search_index(root / "i.db", "budgets", tiers=["first-party", "internal"]).failure().message
    "trust tier 'internal' is not one of first-party, third-party-public, third-party-private"
    """
    return search_matched(database, query, limit=limit, tiers=tiers, dense=dense, match_floor=match_floor).map(
        lambda found: found[0]
    )


def search_matched(
    database: PathArg,
    query: str,
    *,
    limit: int = 8,
    tiers: CheckedStringsArg = ALL_TIERS,
    dense: DenseChoice = True,
    match_floor: float | None = None,
) -> Result[tuple[tuple[Hit, ...], float | None], SourceError]:
    """`search_index`'s hits, and the `match_score` its hybrid ranking held to the floor (``None``
    when the ranking was lexical or the question has no word): what calibrating a floor measures.

    >>> import tempfile, pathlib
    >>> from thrift_fp.sources import index_paths
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (root / "a.txt").write_text("Shedding drops the lowest score first.")
    >>> _ = index_paths(root / "i.db", [root], dense=False).unwrap()
    >>> search_matched(root / "i.db", "shedding", dense=False).unwrap()[1] is None
    True
    """
    database = as_path(database)
    allowed = checked_tiers(tiers)
    if isinstance(allowed, Failure):
        return Failure(allowed.failure())
    opened = open_index(database)
    if isinstance(opened, Failure):
        return opened
    connection = opened.unwrap()
    try:
        rows = connection.execute("SELECT value FROM meta WHERE key = 'analyzer'").fetchone()
        analyzer = str(rows[0]) if rows else SNOWBALL
        if not analyzer_available(analyzer):
            return Failure(MissingParser(str(database), f"an index built with {analyzer}", "snowballstemmer"))
        terms = query_words(query, analyzer)
        if not terms or limit <= 0:
            return Success(((), None))
        bounded = min(limit, _MAX_LIMIT)
        # Ranked deeper than asked: near-duplicates (a page's .txt and .html) collapse below.
        deeper = min(bounded * CANDIDATES_PER_HIT, _MAX_LIMIT)
        ranking, embedder = ranking_of(connection, dense)
        matched: float | None = None
        if embedder is None:
            ranked = _ranked(connection, terms, sorted(allowed.unwrap()), deeper)[0]
        else:
            # Each ranking offers its pool; every candidate gets both scores, computed exactly.
            lexical, share_of, unknown = _ranked(connection, terms, sorted(allowed.unwrap()), LEXICAL_POOL)
            near = dense_candidates(
                database, connection, embedder, query, allowed.unwrap(), dense_pool(bounded),
                [s.key for s in lexical],
            )
            if isinstance(near, Failure):
                return Failure(near.failure())
            nearest, cosines = near.unwrap()
            ranked, matched = fuse_matched(
                lexical, nearest, deeper, shares=share_of([s.key for s in nearest]), cosines=cosines,
                floor=_floor(match_floor, ranking), unknown=unknown,
            )
        hits = collapsed_hits(_hits(connection, ranked), bounded)
    except sqlite3.DatabaseError as exc:
        return Failure(CorruptDatabase(str(database), str(exc), exc))
    finally:
        connection.close()
    return Success((hits, matched))


def _floor(given: float | None, ranking: Ranking) -> float:
    # The caller's floor, else the one the ranking reads off the index (calibrated or the default).
    if given is not None:
        return given
    return MATCH_FLOOR if ranking.match_floor is None else ranking.match_floor


def search_ranking(database: PathArg, dense: DenseChoice = True) -> Result[Ranking, SourceError]:
    """Which ranking `search_index` runs on ``database`` with ``dense``: hybrid, or lexical and why.

    >>> import tempfile, pathlib
    >>> from thrift_fp.sources import index_paths
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (root / "a.txt").write_text("Shedding drops the lowest score first.")
    >>> _ = index_paths(root / "i.db", [root], dense=False).unwrap()
    >>> search_ranking(root / "i.db", dense=False).unwrap().as_json()
    {'ranking': 'lexical', 'ranking_reason': 'dense ranking is turned off'}
    """
    opened = open_index(as_path(database))
    if isinstance(opened, Failure):
        return Failure(opened.failure())
    connection = opened.unwrap()
    try:
        return Success(ranking_of(connection, dense)[0])
    finally:
        connection.close()


def _ranked(
    connection: sqlite3.Connection, terms: Sequence[str], tiers: list[str], limit: int
) -> tuple[tuple[Scored, ...], Callable[[Sequence[int]], dict[int, float]], float]:
    # The lexical top, how to score any other passages of the index the same way, and the share
    # of the question no passage holds (`unknown_share`).
    passages, body, heading, trail = connection.execute(_STATS).fetchone()
    stats = CollectionStats(int(passages), int(body), int(heading), int(trail))
    matches = ['"' + term.replace('"', '""') + '"' for term in terms]
    # How many passages hold each term, over every tier (FTS5 counts from its index).
    df = {term: int(connection.execute(_COUNT, (match,)).fetchone()[0]) for term, match in zip(terms, matches)}
    idfs = term_idfs(terms, stats, df)
    # Each candidate's bound (the idfs of the terms it holds), summed and sorted in SQL; read
    # only as far as the ranking needs.
    held = " UNION ALL ".join(["SELECT rowid AS id, ? AS w FROM passages_fts WHERE passages_fts MATCH ?"] * len(terms))
    parameters: list[object] = [value for term, match in zip(terms, matches) for value in (idfs[term], match)]
    if set(tiers) >= ALL_TIERS:
        query = f"SELECT id, sum(w) AS bound FROM ({held}) GROUP BY id ORDER BY bound DESC, id"
    else:
        query = (
            f"SELECT c.id, sum(c.w) AS bound FROM ({held}) AS c JOIN passages AS p ON p.id = c.id"
            " WHERE p.trust_tier IN (SELECT value FROM json_each(?)) GROUP BY c.id ORDER BY bound DESC, c.id"
        )
        parameters.append(json.dumps(tiers))

    def ordered() -> Iterator[tuple[int, float]]:
        # Run only when the ranking reads it: a fusion asking for no lexical top needs none.
        yield from connection.cursor().execute(query, parameters)

    def fetch(keys: Sequence[int]) -> list[Candidate]:
        return [
            Candidate(key, pid, digest, body, heading, trail, (b, h, t))
            for key, pid, digest, body, heading, trail, b, h, t in connection.execute(
                _FIELDS, (json.dumps(list(keys)),)
            )
        ]

    return (
        top_passages(terms, stats, idfs, ordered(), fetch, limit),
        lambda keys: shares(terms, stats, idfs, fetch(keys)),
        unknown_share(terms, stats, df),
    )


def _hits(connection: sqlite3.Connection, ranked: tuple[Scored, ...]) -> tuple[Hit, ...]:
    rows = {
        int(row[0]): row
        for row in connection.execute(_ROWS, (json.dumps([scored.key for scored in ranked]),)).fetchall()
    }
    return tuple(_hit(rows[scored.key], scored) for scored in ranked)


def _hit(row: tuple[object, ...], scored: Scored) -> Hit:
    (_, passage_id, source, path, kind, tier, created, updated, digest, tokens, text, metadata) = row
    loaded = json.loads(str(metadata))
    return Hit(
        str(passage_id), str(source), str(path), str(kind), str(tier),
        datetime.fromisoformat(str(created)), datetime.fromisoformat(str(updated)), str(digest),
        int(str(tokens)), str(text), scored.raw, scored.score,
        MappingProxyType(loaded if isinstance(loaded, dict) else {}),
    )
