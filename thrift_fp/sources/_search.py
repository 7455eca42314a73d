"""bm25 search over an index: the best passage per distinct content, best first."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from datetime import datetime
from types import MappingProxyType

from returns.result import Failure, Result, Success

from thrift_fp._args import PathArg, StringsArg, as_path, as_strings
from thrift_fp.sources._errors import CorruptDatabase, SourceError
from thrift_fp.sources._match import bm25_to_score, match_expression
from thrift_fp.sources._store import open_index

# bm25() only works in the query that runs MATCH, so the ranks are computed first and
# de-duplicated by content hash afterwards (ties broken by row id for a stable order).
_QUERY = """
WITH hits AS MATERIALIZED (
    SELECT rowid AS id, bm25(passages_fts) AS rank FROM passages_fts WHERE passages_fts MATCH ?
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

ALL_TIERS = frozenset({"first-party", "third-party-public", "third-party-private"})


@dataclass(frozen=True, slots=True)
class Hit:
    """One retrieved passage with its bm25 ``rank`` and the ``score`` in [0, 1] derived from it."""

    passage_id: str
    source: str
    path: str
    kind: str
    trust_tier: str
    created_at: datetime
    updated_at: datetime
    content_hash: str
    tokens: int
    text: str
    rank: float
    score: float
    metadata: MappingProxyType[str, object]


def search_index(
    database: PathArg,
    query: str,
    *,
    limit: int = 8,
    tiers: StringsArg = ALL_TIERS,
) -> Result[tuple[Hit, ...], SourceError]:
    """The ``limit`` best passages for free-text ``query``, one per distinct content.

    Any text is a valid query (see ``match_expression``); text without a word finds nothing.

    >>> import tempfile, pathlib
    >>> from thrift_fp.sources import index_paths
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (root / "a.txt").write_text("Shedding drops the lowest score first.\\n\\nBudgets are tokens.")
    >>> _ = index_paths(root / "i.db", [root], max_tokens=8).unwrap()
    >>> [(h.passage_id, round(h.score, 2)) for h in search_index(root / "i.db", "shedding?").unwrap()]
    [('...a.txt#1', 0.29)]
    >>> search_index(root / "i.db", '"AND (').unwrap()
    ()
    """
    database = as_path(database)
    expression = match_expression(query)
    opened = open_index(database)
    if isinstance(opened, Failure):
        return opened
    connection = opened.unwrap()
    if not expression:
        connection.close()
        return Success(())
    try:
        rows = connection.execute(_QUERY, (expression, json.dumps(sorted(as_strings(tiers))), max(limit, 0))).fetchall()
    except sqlite3.DatabaseError as exc:
        return Failure(CorruptDatabase(str(database), str(exc), exc))
    finally:
        connection.close()
    return Success(tuple(_hit(row) for row in rows))


def _hit(row: tuple[object, ...]) -> Hit:
    (passage_id, source, path, kind, tier, created, updated, digest, tokens, text, metadata, rank) = row
    loaded = json.loads(str(metadata))
    return Hit(
        str(passage_id), str(source), str(path), str(kind), str(tier),
        datetime.fromisoformat(str(created)), datetime.fromisoformat(str(updated)), str(digest),
        int(str(tokens)), str(text), float(str(rank)), bm25_to_score(float(str(rank))),
        MappingProxyType(loaded if isinstance(loaded, dict) else {}),
    )
