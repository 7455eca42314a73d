"""A PostgreSQL database as the server's source (the ``postgres`` extra); several server
processes can share one, each with its own sessions."""

from __future__ import annotations

from typing import Final

import psycopg

from returns.result import Failure, Result, Success

from thrift_fp._value import value
from thrift_fp.serve._surroundings import SPAN, neighbour
from thrift_fp.sources import FtsDefinition, Hit
from thrift_fp.sources.postgres import (
    DEFAULT_COLLECTION,
    PostgresDatabase,
    PostgresError,
    open_database,
    postgres_definition,
    search_ranking,
)


_SURROUNDINGS: Final = """
SELECT n.passage_id, n.ordinal, n.content_hash, n.tokens, n.text, n.metadata, p.ordinal
FROM thrift_fp_passages AS p
JOIN thrift_fp_passages AS n ON n.collection = p.collection AND n.path = p.path AND n.trust_tier = p.trust_tier
WHERE p.collection = %s AND p.passage_id = %s AND n.ordinal BETWEEN p.ordinal - %s AND p.ordinal + %s AND n.id != p.id
ORDER BY n.ordinal
"""


@value
class PostgresBackend:
    """A collection in an open PostgreSQL database, searched by `postgres_definition`."""

    database: PostgresDatabase
    collection: str = DEFAULT_COLLECTION
    dense: bool = True

    def definition(self, tiers: tuple[str, ...], max_results: int, max_calls: int) -> FtsDefinition:
        """The full-text search over ``tiers`` (hybrid where the collection holds vectors, unless ``dense`` is off)."""
        return postgres_definition(
            self.database, collection=self.collection, max_results=max_results, max_queries=max_calls, tiers=tiers,
            dense=self.dense,
        )

    def ranking(self) -> dict[str, object]:
        """The ranking `search_ranking` names for the collection (none when it cannot be read)."""
        ranked = search_ranking(self.database, collection=self.collection, dense=self.dense)
        return ranked.map(lambda ranking: ranking.as_json()).value_or({})

    def surroundings(self, hit: Hit) -> tuple[tuple[int, Hit], ...]:
        """The passages within `SPAN` of ``hit`` in its file (none when the database cannot say)."""
        try:
            with self.database.pool.connection() as connection:
                rows = connection.execute(_SURROUNDINGS, (self.collection, hit.passage_id, SPAN, SPAN)).fetchall()
        except psycopg.Error:
            return ()
        return tuple(neighbour(hit, row) for row in rows)

    def describe(self) -> str:
        """The collection's name (the database's address is the operator's, not the agent's)."""
        return f"the collection {self.collection!r}"


def open_postgres_backend(url: str, *, pool_size: int = 8, dense: bool = True) -> Result[PostgresBackend, PostgresError]:
    """Open the database at ``url`` (its pool shared by the server's worker threads).

    >>> open_postgres_backend("postgresql://ann:pw@/docs?host=/nonexistent").failure().message
    'cannot reach PostgreSQL at postgresql://ann:***@/docs?host=/nonexistent: ...'
    """
    opened = open_database(url, pool_size=pool_size)
    if isinstance(opened, Failure):
        return Failure(opened.failure())
    return Success(PostgresBackend(opened.unwrap(), dense=dense))
