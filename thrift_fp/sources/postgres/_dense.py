"""Dense vectors in a PostgreSQL collection: the same rules as the SQLite index, in two tables.

``thrift_fp_dense_vectors(collection, key, vector bytea)`` holds float32 vectors keyed by
`vector_key`; ``thrift_fp_dense_models(collection, model, generation)`` names the model whose
vectors cover every passage of a collection, and a random ``generation`` that changes with
each embedding run, so an in-process cache of the vectors knows when to load them again. A run
that changes passages without embedding them deletes the collection's row.

Where the database has pgvector, the same run also copies the vectors into the passages'
``embedding`` column and a search finds the nearest passages in SQL (`_pgvector`); elsewhere
they are found in process, as for SQLite, and the ranking says why.
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Callable, Collection
from typing import Final

import psycopg
from returns.result import Failure, Result, Success

from thrift_fp.sources.dense import (
    FLOOR_RULE,
    MATCH_FLOOR,
    NO_VECTORS,
    DenseChoice,
    DenseError,
    DenseMatrix,
    Embedder,
    Ranking,
    cached_matrix,
    checked_embed,
    chosen_embedder,
    embed_inputs,
    heading_of,
    missing_inputs,
    missing_runtime,
    nearest_candidates,
    passages_matrix,
    shipped,
)
from thrift_fp.sources.postgres._pgvector import VectorColumn, nearest_in_sql, prepare_column, search_column, sync_column
from thrift_fp.sources.ranking import Scored
from thrift_fp.sources.postgres._connection import Connection as _Connection

TABLES: Final = """
CREATE TABLE IF NOT EXISTS thrift_fp_dense_vectors (
    collection text NOT NULL REFERENCES thrift_fp_collections ON DELETE CASCADE,
    key text NOT NULL,
    vector bytea NOT NULL,
    PRIMARY KEY (collection, key)
);
CREATE TABLE IF NOT EXISTS thrift_fp_dense_models (
    collection text PRIMARY KEY REFERENCES thrift_fp_collections ON DELETE CASCADE,
    model text NOT NULL,
    generation text NOT NULL
);
ALTER TABLE thrift_fp_dense_models ADD COLUMN IF NOT EXISTS match_floor double precision;
ALTER TABLE thrift_fp_dense_models ADD COLUMN IF NOT EXISTS match_floor_rule text
"""


def _tables_exist(connection: _Connection) -> bool:
    row = connection.execute("SELECT to_regclass('thrift_fp_dense_models') IS NOT NULL").fetchone()
    return bool(row and row[0])


def stored_model(connection: _Connection, collection: str) -> tuple[str, str] | None:
    """The model whose vectors cover every passage of ``collection`` and its generation, or ``None``."""
    if not _tables_exist(connection):
        return None
    row = connection.execute(
        "SELECT model, generation FROM thrift_fp_dense_models WHERE collection = %s", (collection,)
    ).fetchone()
    return None if row is None else (str(row[0]), str(row[1]))


def stored_floor(connection: _Connection, collection: str, generation: str) -> float | None:
    """The no-match floor calibrated on ``generation`` of the collection's vectors, or ``None``."""
    if not _tables_exist(connection):
        return None
    # Read through to_jsonb: a table made before the column existed has no match_floor to name.
    row = connection.execute(
        "SELECT to_jsonb(m) ->> 'match_floor', to_jsonb(m) ->> 'match_floor_rule' FROM thrift_fp_dense_models AS m"
        " WHERE collection = %s AND generation = %s",
        (collection, generation),
    ).fetchone()
    if row is None or row[0] is None or row[1] != FLOOR_RULE:
        return None
    try:
        floor = float(str(row[0]))
    except ValueError:
        return None
    return floor if math.isfinite(floor) and 0.0 <= floor <= 1.0 else None


def record_floor(connection: _Connection, collection: str, generation: str, floor: float) -> None:
    """Store the floor calibrated on ``generation`` of the vectors (a newer generation keeps none)."""
    connection.execute(
        "UPDATE thrift_fp_dense_models SET match_floor = %s, match_floor_rule = %s"
        " WHERE collection = %s AND generation = %s",
        (floor, FLOOR_RULE, collection, generation),
    )


def forget_vectors_model(connection: _Connection, collection: str) -> None:
    """Mark the collection's vectors incomplete: a run changed passages without embedding them."""
    if _tables_exist(connection):
        connection.execute("DELETE FROM thrift_fp_dense_models WHERE collection = %s", (collection,))


def sync_vectors(
    connection: _Connection,
    collection: str,
    embedder: Embedder,
    progress: Callable[[int, int], None] | None = None,
) -> Result[int, DenseError]:
    """Embed the passages of ``collection`` whose vectors are missing, drop the vectors no passage
    needs, copy them into the pgvector column where the database has (or may create) the
    extension, and record the model under a new generation, in one transaction; returns how many
    texts were embedded."""
    schema = prepare_column(connection)
    with connection.transaction():
        # Two first runs at once would both create the tables: one waits for the other.
        connection.execute("SELECT pg_advisory_xact_lock(hashtextextended('thrift_fp dense tables', 0))")
        connection.execute(TABLES)
        stored = {
            str(key)
            for (key,) in connection.execute(
                "SELECT key FROM thrift_fp_dense_vectors WHERE collection = %s", (collection,)
            ).fetchall()
        }
        rows = connection.execute(
            "SELECT metadata::text, text FROM thrift_fp_passages WHERE collection = %s", (collection,)
        ).fetchall()
        live, todo = missing_inputs(embedder.model_id, ((heading_of(str(m)), str(t)) for m, t in rows), stored)
        embedded = embed_inputs(embedder, todo, progress)
        if isinstance(embedded, Failure):
            return Failure(embedded.failure())
        with connection.cursor() as cursor:
            cursor.executemany(
                "INSERT INTO thrift_fp_dense_vectors (collection, key, vector) VALUES (%s, %s, %s)"
                " ON CONFLICT (collection, key) DO UPDATE SET vector = excluded.vector",
                [(collection, key, vector) for key, vector in embedded.unwrap()],
            )
        connection.execute(
            "DELETE FROM thrift_fp_dense_vectors WHERE collection = %s AND key = ANY(%s)",
            (collection, sorted(stored - live)),
        )
        if schema is not None:
            sync_column(connection, collection, schema, embedder.model_id, embedder.dimensions)
        connection.execute(
            "INSERT INTO thrift_fp_dense_models (collection, model, generation) VALUES (%s, %s, %s)"
            " ON CONFLICT (collection) DO UPDATE SET model = excluded.model, generation = excluded.generation,"
            # The calibrated floor holds while the vectors are the same set; any change drops it.
            " match_floor = CASE WHEN %s AND thrift_fp_dense_models.model = excluded.model"
            " THEN thrift_fp_dense_models.match_floor END",
            (collection, embedder.model_id, secrets.token_hex(8), not todo and not stored - live),
        )
    return Success(len(todo))


def ranking_of(
    connection: _Connection, collection: str, dense: DenseChoice
) -> tuple[Ranking, Embedder | None, str | None, VectorColumn | None]:
    """What a search of ``collection`` ranks with, the embedder for the question, the vectors'
    generation when hybrid, and the pgvector column that holds them (``None``: in process)."""
    if shipped(dense) and stored_model(connection, collection) is None and missing_runtime() is None:
        # Nothing to fuse: said without loading the model, as the SQLite source does.
        return Ranking("lexical", None, NO_VECTORS.format(store="collection")), None, None, None
    chosen = chosen_embedder(dense)
    if chosen is None:
        return Ranking("lexical", None, "dense ranking is turned off"), None, None, None
    if isinstance(chosen, Failure):
        return Ranking("lexical", None, chosen.failure().message), None, None, None
    embedder = chosen.unwrap()
    stored = stored_model(connection, collection)
    if stored is None or stored[0] != embedder.model_id:
        held = "no complete set of vectors" if stored is None else f"vectors of {stored[0]}"
        return Ranking(
            "lexical", None,
            f"the collection holds {held}, not of {embedder.model_id}: "
            "index it again with the [dense] extra installed",
        ), None, None, None
    column, why = search_column(connection, collection, embedder.model_id, embedder.dimensions)
    floor = stored_floor(connection, collection, stored[1])
    match_floor, calibrated = (MATCH_FLOOR, False) if floor is None else (floor, True)
    if column is None:
        return Ranking(
            "hybrid", embedder.model_id, None, dense_search="in-process", dense_search_reason=why,
            match_floor=match_floor, floor_calibrated=calibrated,
        ), embedder, stored[1], None
    return Ranking(
        "hybrid", embedder.model_id, None, dense_search="pgvector", match_floor=match_floor, floor_calibrated=calibrated
    ), embedder, stored[1], column


def dense_candidates(
    url: str,
    connection: _Connection,
    collection: str,
    generation: str,
    embedder: Embedder,
    question: str,
    tiers: Collection[str],
    limit: int,
    also: Collection[int] = (),
    column: VectorColumn | None = None,
) -> Result[tuple[tuple[Scored, ...], dict[int, float]], DenseError]:
    """The ``limit`` passages of ``collection`` nearest ``question`` among ``tiers`` (``score`` the cosine),
    and the cosine of each passage of ``also`` (row keys) that has a vector: from the pgvector
    ``column`` when given (no vector enters the process), else from the vectors loaded in process."""
    if column is not None:
        query = checked_embed(embedder, [question])
        if isinstance(query, Failure):
            return Failure(query.failure())
        near, cosines = nearest_in_sql(connection, collection, column, query.unwrap()[0], tiers, limit, also)
        return Success((tuple(Scored(row, pid, digest, cosine, cosine) for row, pid, digest, cosine in near), cosines))
    version = ("postgres", url, collection, embedder.model_id, generation)
    matrix = cached_matrix(version, lambda: _load(connection, collection, embedder))
    return nearest_candidates(matrix, embedder, question, tiers, limit, also)


def _load(connection: _Connection, collection: str, embedder: Embedder) -> DenseMatrix | None:
    vectors = {
        str(key): bytes(vector)  # type: ignore[call-overload]  # bytea arrives as bytes (or memoryview)
        for key, vector in connection.execute(
            "SELECT key, vector FROM thrift_fp_dense_vectors WHERE collection = %s", (collection,)
        ).fetchall()
    }
    passages = connection.execute(
        "SELECT id, passage_id, trust_tier, content_hash, metadata::text, text FROM thrift_fp_passages"
        " WHERE collection = %s ORDER BY id",
        (collection,),
    ).fetchall()
    return passages_matrix(embedder, vectors, passages)
