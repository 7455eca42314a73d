"""Vectors inside PostgreSQL: the passages' ``embedding`` column, its HNSW indexes, and the dense
candidates of a question found in SQL (pgvector), so a worker process loads no vectors.

Where the database holds the ``vector`` extension (created by the operator, or by an index run
that may create it), an index run copies each passage's stored vector (``bytea`` in
``thrift_fp_dense_vectors``, keyed by what was embedded) into ``thrift_fp_passages.embedding``
and keeps one HNSW index per trust tier of the collection. An existing collection gains the
column on its next index run, from the vectors it already holds: nothing is embedded again.
``thrift_fp_pgvector`` names the model whose vectors the column holds; a search uses the
column only when that is the model of the collection's complete set of vectors.

The similarity is the cosine: stored vectors are of unit length (the `Embedder` contract), so
the index orders by the inner product (``vector_ip_ops``, pgvector's advice for normalised
vectors), exactly the number the in-process path computes.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Collection, Sequence

from typing import Final

import psycopg
from psycopg import sql

from thrift_fp._value import value
from thrift_fp.records import TRUST_TIERS
from thrift_fp.sources.dense import heading_of, vector_key
from thrift_fp.sources.postgres._connection import Connection as _Connection

# HNSW's search breadth (candidates kept while walking the graph). pgvector's default, 40,
# misses a few of the exact nearest at 50 candidates; 200 holds recall@50 above 0.98 on the
# evaluation questions for a fraction of a millisecond more (benchmarks/pgvector_quality.py).
EF_SEARCH: Final = 200
# The graph's shape: pgvector's defaults (16 links per node, 64 candidates while building).
HNSW_M: Final = 16
HNSW_EF_CONSTRUCTION: Final = 64
# Passages whose vectors are copied into the column per statement while filling it.
FILL_BATCH: Final = 2000

MODELS: Final = """
CREATE TABLE IF NOT EXISTS thrift_fp_pgvector (
    collection text PRIMARY KEY REFERENCES thrift_fp_collections ON DELETE CASCADE,
    model text NOT NULL,
    dimensions integer NOT NULL
)
"""


@value
class VectorColumn:
    """A collection's vectors searchable in SQL: the ``vector`` extension's ``schema``, the
    ``model`` and ``dimensions`` the column holds.

    >>> VectorColumn("public", "m", 384).type_name.as_string(None)
    '"public".vector(384)'
    """

    schema: str
    model: str
    dimensions: int

    @property
    def type_name(self) -> sql.Composed:
        """The column's type as the indexes and the questions cast to it."""
        return sql.SQL("{}.vector({})").format(sql.Identifier(self.schema), sql.Literal(self.dimensions))


def extension_schema(connection: _Connection) -> str | None:
    """The schema of the database's ``vector`` extension, or ``None`` when it is not created."""
    row = connection.execute(
        "SELECT n.nspname FROM pg_extension AS e JOIN pg_namespace AS n ON n.oid = e.extnamespace"
        " WHERE e.extname = 'vector'"
    ).fetchone()
    return None if row is None else str(row[0])


def enable_extension(connection: _Connection) -> tuple[str | None, str]:
    """The ``vector`` extension's schema, creating the extension where the server has it and the
    role may; else ``None`` and why not (inside a transaction: a refusal is a rolled-back savepoint)."""
    schema = extension_schema(connection)
    if schema is not None:
        return schema, ""
    if connection.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'").fetchone() is None:
        return None, "the server has no pgvector (no vector extension is available to CREATE EXTENSION)"
    try:
        with connection.transaction():
            connection.execute("CREATE EXTENSION IF NOT EXISTS vector")
    except psycopg.Error as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return None, f"CREATE EXTENSION vector failed ({first}); an operator can run it once"
    return extension_schema(connection), ""


def index_name(collection: str, tier: str, dimensions: int) -> str:
    """The name of the HNSW index over one tier of one collection (short: names stop at 63 bytes).

    >>> index_name("docs", "first-party", 384)
    'thrift_fp_hnsw_...'
    >>> index_name("docs", "first-party", 384) != index_name("docs", "first-party", 8)
    True
    """
    digest = hashlib.sha256("\0".join((collection, tier, str(dimensions))).encode("utf-8", "surrogatepass"))
    return f"thrift_fp_hnsw_{digest.hexdigest()[:24]}"


def vector_text(vector: bytes) -> str:
    """A stored float32 vector as pgvector's text form; each number round-trips exactly.

    >>> vector_text(struct.pack("<2f", 0.6, -1.0))
    '[0.6000000238418579,-1.0]'
    """
    return "[" + ",".join(repr(value) for value in struct.unpack(f"<{len(vector) // 4}f", vector)) + "]"


def stored_column(connection: _Connection, collection: str) -> VectorColumn | None:
    """The model and size of the vectors in ``collection``'s column, or ``None`` when it has none."""
    schema = extension_schema(connection)
    if schema is None or not _has_column(connection):
        return None
    if connection.execute("SELECT to_regclass('thrift_fp_pgvector') IS NOT NULL").fetchone() != (True,):
        return None
    row = connection.execute(
        "SELECT model, dimensions FROM thrift_fp_pgvector WHERE collection = %s", (collection,)
    ).fetchone()
    return None if row is None else VectorColumn(schema, str(row[0]), int(str(row[1])))


def search_column(connection: _Connection, collection: str, model: str, dimensions: int) -> tuple[VectorColumn | None, str]:
    """The column a search of ``collection``'s ``model`` vectors uses, or ``None`` and why the
    vectors are searched in process instead."""
    schema = extension_schema(connection)
    if schema is None:
        available = connection.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'").fetchone()
        if available is None:
            return None, "the server has no pgvector (no vector extension is available)"
        return None, (
            "the database has not created the vector extension: the next index run creates it where the role may,"
            " or an operator runs CREATE EXTENSION vector"
        )
    column = stored_column(connection, collection)
    if column is None or (column.model, column.dimensions) != (model, dimensions):
        return None, (
            "the collection's vectors are not in the database's vector column yet: the next index run copies them"
            " there (nothing is embedded again)"
        )
    return column, ""


def _has_column(connection: _Connection) -> bool:
    row = connection.execute(
        "SELECT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass('thrift_fp_passages')"
        " AND attname = 'embedding' AND NOT attisdropped)"
    ).fetchone()
    return bool(row and row[0])


def prepare_column(connection: _Connection) -> str | None:
    """In a short transaction of its own: the ``vector`` extension's schema (created where the role
    may), with the passages table's ``embedding`` column and ``thrift_fp_pgvector`` made once;
    ``None`` where the database has no pgvector (`search_column` says why to searches).

    Apart from the run's long one: adding a column locks out every reader of the table until
    its transaction ends, and this one ends at once (the column is empty, nothing is rewritten).
    """
    with connection.transaction():
        connection.execute("SELECT pg_advisory_xact_lock(hashtextextended('thrift_fp pgvector column', 0))")
        schema, _ = enable_extension(connection)
        if schema is None:
            return None
        if not _has_column(connection):
            connection.execute(
                sql.SQL("ALTER TABLE thrift_fp_passages ADD COLUMN embedding {}.vector").format(sql.Identifier(schema))
            )
            # What each run must fill: the passages its batches wrote since the last one.
            connection.execute(
                "CREATE INDEX IF NOT EXISTS thrift_fp_passages_unembedded ON thrift_fp_passages (collection)"
                " WHERE embedding IS NULL"
            )
        connection.execute(MODELS)
    return schema


def sync_column(
    connection: _Connection, collection: str, schema: str, model: str, dimensions: int
) -> int:
    """Inside the index run's transaction, after `prepare_column`: copy the stored vector of every
    passage of ``collection`` that has none into the column, keep one HNSW index per tier, and
    record ``model``; returns how many passages were filled.

    A new model (or size) empties the collection's column and drops its indexes first.
    """
    column = VectorColumn(schema, model, dimensions)
    before = connection.execute(
        "SELECT model, dimensions FROM thrift_fp_pgvector WHERE collection = %s", (collection,)
    ).fetchone()
    if before is not None and (str(before[0]), int(str(before[1]))) != (model, dimensions):
        for tier in TRUST_TIERS:
            connection.execute(
                sql.SQL("DROP INDEX IF EXISTS {}").format(sql.Identifier(index_name(collection, tier, int(str(before[1])))))
            )
        connection.execute("UPDATE thrift_fp_passages SET embedding = NULL WHERE collection = %s", (collection,))
    filled = _fill(connection, collection, column)
    for tier in TRUST_TIERS:
        name = index_name(collection, tier, dimensions)
        if connection.execute("SELECT to_regclass(%s) IS NOT NULL", (name,)).fetchone() == (True,):
            continue  # built: even CREATE INDEX IF NOT EXISTS would lock out writers until commit
        # One graph per tier: a search over some tiers walks only theirs, and never filters a
        # graph's answers down (which would lose the nearest of a small tier).
        connection.execute(
            sql.SQL(
                "CREATE INDEX IF NOT EXISTS {name} ON thrift_fp_passages USING hnsw ((embedding::{type}) {ops})"
                " WITH (m = {m}, ef_construction = {ef}) WHERE collection = {collection} AND trust_tier = {tier}"
                # The size in the predicate too: the build also reads the versions a new model's
                # run has just replaced in this transaction, which must not be cast.
                " AND {dims}(embedding) = {dimensions}"
            ).format(
                dims=sql.SQL("{}.vector_dims").format(sql.Identifier(schema)),
                dimensions=sql.Literal(dimensions),
                name=sql.Identifier(name),
                type=column.type_name,
                ops=sql.SQL("{}.vector_ip_ops").format(sql.Identifier(schema)),
                m=sql.Literal(HNSW_M),
                ef=sql.Literal(HNSW_EF_CONSTRUCTION),
                collection=sql.Literal(collection),
                tier=sql.Literal(tier),
            )
        )
    connection.execute(
        "INSERT INTO thrift_fp_pgvector (collection, model, dimensions) VALUES (%s, %s, %s)"
        " ON CONFLICT (collection) DO UPDATE SET model = excluded.model, dimensions = excluded.dimensions",
        (collection, model, dimensions),
    )
    return filled


def _fill(connection: _Connection, collection: str, column: VectorColumn) -> int:
    # The passages without a vector in the column, a batch at a time (bounded memory at any size);
    # each gets the stored vector of what it embeds. One of another size stays empty, as the
    # in-process path leaves it out.
    width = 4 * column.dimensions
    filled = 0
    last = -1
    while True:
        rows = connection.execute(
            "SELECT id, metadata::text, text FROM thrift_fp_passages WHERE collection = %s AND embedding IS NULL"
            " AND id > %s ORDER BY id LIMIT %s",
            (collection, last, FILL_BATCH),
        ).fetchall()
        if not rows:
            return filled
        last = int(str(rows[-1][0]))
        keys = {int(str(row)): vector_key(column.model, heading_of(str(metadata)), str(text)) for row, metadata, text in rows}
        vectors = {
            str(key): bytes(vector)  # type: ignore[call-overload]  # bytea arrives as bytes (or memoryview)
            for key, vector in connection.execute(
                "SELECT key, vector FROM thrift_fp_dense_vectors WHERE collection = %s AND key = ANY(%s)",
                (collection, sorted(set(keys.values()))),
            ).fetchall()
        }
        found = [(row, vectors[key]) for row, key in keys.items() if len(vectors.get(key, b"")) == width]
        with connection.cursor() as cursor:
            cursor.execute("CREATE TEMPORARY TABLE IF NOT EXISTS thrift_fp_fill (id bigint, embedding text) ON COMMIT DROP")
            cursor.execute("TRUNCATE thrift_fp_fill")
            with cursor.copy("COPY thrift_fp_fill (id, embedding) FROM STDIN") as copy:
                for row, vector in found:
                    copy.write_row((row, vector_text(vector)))
            cursor.execute(
                sql.SQL(
                    "UPDATE thrift_fp_passages AS p SET embedding = f.embedding::{}.vector FROM thrift_fp_fill AS f"
                    " WHERE p.collection = %s AND p.id = f.id"
                ).format(sql.Identifier(column.schema)),
                (collection,),
            )
        filled += len(found)


def nearest_statement(collection: str, column: VectorColumn, tier: str, wanted: int) -> sql.Composed:
    """The statement that asks one tier's HNSW index for the ``wanted`` passages nearest ``%(q)s``
    (the question as pgvector text): ``(row, passage_id, content_hash, cosine)`` best first.

    The collection and the tier are literals (quoted by psycopg), not parameters: the planner
    must see the partial index's own predicate to use it, whatever plan a prepared statement keeps.

    >>> text = nearest_statement("it's", VectorColumn("public", "m", 3), "first-party", 5).as_string(None)
    >>> "collection = 'it''s' AND trust_tier = 'first-party'" in text, "LIMIT 5" in text
    (True, True)
    """
    typed = column.type_name
    ip = sql.SQL("OPERATOR({}.<#>)").format(sql.Identifier(column.schema))
    return sql.SQL(
        "SELECT id, passage_id, content_hash, -((embedding::{type}) {ip} %(q)s::{type})"
        " FROM thrift_fp_passages WHERE collection = {collection} AND trust_tier = {tier}"
        " AND {dims}(embedding) = {dimensions}"
        " ORDER BY (embedding::{type}) {ip} %(q)s::{type} LIMIT {wanted}"
    ).format(
        type=typed, ip=ip, collection=sql.Literal(collection), tier=sql.Literal(tier), wanted=sql.Literal(wanted),
        dims=sql.SQL("{}.vector_dims").format(sql.Identifier(column.schema)), dimensions=sql.Literal(column.dimensions),
    )


def nearest_in_sql(
    connection: _Connection,
    collection: str,
    column: VectorColumn,
    query: bytes,
    tiers: Collection[str],
    limit: int,
    also: Collection[int] = (),
) -> tuple[tuple[tuple[int, str, str, float], ...], dict[int, float]]:
    """``(row, passage_id, content_hash, cosine)`` of the ``limit`` passages of ``collection``
    nearest ``query`` among ``tiers`` (each tier's HNSW index), best first, one per distinct
    content, ties by row; and the cosine of each passage of ``also`` (row keys) with a vector.

    Runs in its own transaction, which raises ``hnsw.ef_search`` for its statements only.
    """
    typed = column.type_name
    ip = sql.SQL("OPERATOR({}.<#>)").format(sql.Identifier(column.schema))
    # Twins share a content: ask for more than ``limit`` so that one per content still fills it
    # (as the in-process path looks at 2 × limit + 8).
    wanted = 2 * limit + 8 if limit > 0 else 0
    near: list[tuple[int, str, str, float]] = []
    cosines: dict[int, float] = {}
    text = vector_text(query)
    with connection.transaction():
        connection.execute("SELECT set_config('hnsw.ef_search', %s, true)", (str(max(EF_SEARCH, wanted)),))
        for tier in sorted(set(tiers) & set(TRUST_TIERS)) if wanted else ():
            statement = nearest_statement(collection, column, tier, wanted)
            near.extend(
                (int(str(row)), str(pid), str(digest), float(str(cosine)))
                for row, pid, digest, cosine in connection.execute(statement, {"q": text}, prepare=False).fetchall()
                if cosine is not None
            )
        if also:
            statement = sql.SQL(
                "SELECT id, -((embedding::{type}) {ip} %(q)s::{type}) FROM thrift_fp_passages"
                " WHERE collection = %(collection)s AND id = ANY(%(rows)s) AND {dims}(embedding) = {dimensions}"
            ).format(
                type=typed, ip=ip, dims=sql.SQL("{}.vector_dims").format(sql.Identifier(column.schema)),
                dimensions=sql.Literal(column.dimensions),
            )
            rows: Sequence[tuple[object, ...]] = connection.execute(
                statement, {"q": text, "collection": collection, "rows": sorted(also)}
            ).fetchall()
            cosines = {int(str(row)): float(str(cosine)) for row, cosine in rows}
    best: list[tuple[int, str, str, float]] = []
    seen: set[str] = set()
    for found in sorted(near, key=lambda item: (-item[3], item[0])):
        if found[2] in seen:
            continue
        seen.add(found[2])
        best.append(found)
        if len(best) == limit:
            break
    return tuple(best), cosines
