"""bm25 search over an index: the best passage per distinct content, best first.

The heading path of a passage is its own FTS5 column, weighted ``HEADING_WEIGHT`` times the
text, so a question about ``fsPromises.readFile`` ranks the section headed by it first.
Scores are the share of the query's ideal bm25 that a passage reaches (see `bm25_to_score`).
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from datetime import datetime
from types import MappingProxyType
from typing import Final

from returns.result import Failure, Result, Success

from thrift_fp._args import CheckedStringsArg, PathArg, as_path
from thrift_fp.sources._contract import ALL_TIERS, Hit
from thrift_fp.sources._tiers import checked_tiers
from thrift_fp.sources._errors import CorruptDatabase, SourceError
from thrift_fp.sources.ranking._match import bm25_idf, bm25_to_score, ideal_rank, query_terms
from thrift_fp.sources.sqlite._store import open_index

HEADING_WEIGHT: Final = 4.0
# SQLite's INTEGER is 64 bits: a larger LIMIT would raise OverflowError in the driver.
_MAX_LIMIT: Final = 2**63 - 1

# bm25() only works in the query that runs MATCH, so the ranks are computed first and
# de-duplicated by content hash afterwards (ties broken by row id for a stable order).
_QUERY = """
WITH hits AS MATERIALIZED (
    SELECT rowid AS id, bm25(passages_fts, 1.0, ?) AS rank FROM passages_fts WHERE passages_fts MATCH ?
)
SELECT passage_id, source, path, kind, trust_tier, created_at, updated_at, content_hash, tokens,
       text, metadata, rank
FROM (
    SELECT p.*, hits.rank,
           row_number() OVER (PARTITION BY p.content_hash ORDER BY hits.rank, p.id) AS copy
    FROM hits JOIN passages AS p ON p.id = hits.id
    WHERE p.trust_tier IN (SELECT value FROM json_each(?))
)
WHERE copy = 1
ORDER BY rank, id
LIMIT ?
"""

def search_index(
    database: PathArg,
    query: str,
    *,
    limit: int = 8,
    tiers: CheckedStringsArg = ALL_TIERS,
) -> Result[tuple[Hit, ...], SourceError]:
    """The ``limit`` best passages for free-text ``query``, one per distinct content.

    Any text is a valid query (see ``match_expression``); text without a word finds nothing.

    >>> import tempfile, pathlib
    >>> from thrift_fp.sources import index_paths
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (root / "a.txt").write_text("Shedding drops the lowest score first.\\n\\nBudgets are tokens.")
    >>> _ = index_paths(root / "i.db", [root], max_tokens=8).unwrap()
    >>> [(h.passage_id, round(h.score, 2)) for h in search_index(root / "i.db", "shedding?").unwrap()]
    [('...a.txt#1', 0.36)]
    >>> search_index(root / "i.db", '"AND (').unwrap()
    ()
    >>> search_index(root / "i.db", "budgets", tiers=["first-party", "internal"]).failure().message
    "trust tier 'internal' is not one of first-party, third-party-public, third-party-private"
    """
    database = as_path(database)
    allowed = checked_tiers(tiers)
    if isinstance(allowed, Failure):
        return Failure(allowed.failure())
    terms = query_terms(query)
    opened = open_index(database)
    if isinstance(opened, Failure):
        return opened
    connection = opened.unwrap()
    if not terms:
        connection.close()
        return Success(())
    bounded = min(max(limit, 0), _MAX_LIMIT)
    try:
        ideal = _ideal(connection, terms)
        rows = connection.execute(
            _QUERY, (HEADING_WEIGHT, " OR ".join(terms), json.dumps(sorted(allowed.unwrap())), bounded)
        ).fetchall()
    except sqlite3.DatabaseError as exc:
        return Failure(CorruptDatabase(str(database), str(exc), exc))
    finally:
        connection.close()
    return Success(tuple(_hit(row, ideal) for row in rows))


def _ideal(connection: sqlite3.Connection, terms: tuple[str, ...]) -> float:
    # The same statistics FTS5's bm25 uses: passages in the index, passages holding each phrase.
    (rows,) = connection.execute("SELECT count(*) FROM passages").fetchone()
    idfs = [
        bm25_idf(int(rows), int(hits))
        for (hits,) in (
            connection.execute("SELECT count(*) FROM passages_fts WHERE passages_fts MATCH ?", (term,)).fetchone()
            for term in terms
        )
    ]
    return ideal_rank(idfs)


def _hit(row: tuple[object, ...], ideal: float) -> Hit:
    (passage_id, source, path, kind, tier, created, updated, digest, tokens, text, metadata, rank) = row
    loaded = json.loads(str(metadata))
    return Hit(
        str(passage_id), str(source), str(path), str(kind), str(tier),
        datetime.fromisoformat(str(created)), datetime.fromisoformat(str(updated)), str(digest),
        int(str(tokens)), str(text), float(str(rank)), bm25_to_score(float(str(rank)), ideal),
        MappingProxyType(loaded if isinstance(loaded, dict) else {}),
    )
