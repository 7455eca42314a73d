"""Reading an SQLite index's kept vector keys (``passage_vector_keys``) and block (``dense_block``) in
tests: the matrix a search loads, the matrix computed from every passage's text, the kept keys
that are not current, and the index file edited by hand."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tests._dense_model import CountingEmbedder
from thrift_fp.sources.dense import DenseMatrix, heading_of, passages_matrix, vector_key
from thrift_fp.sources.sqlite._block import BLOCK_TABLE, BLOCK_TRIGGERS, block_held
from thrift_fp.sources.sqlite._dense import KEYS_TRIGGERS, _load
from thrift_fp.sources.sqlite._held import KEYS_TABLE

_PASSAGES = "SELECT id, passage_id, trust_tier, content_hash, metadata, text FROM passages ORDER BY id"


def loaded(database: Path, embedder: CountingEmbedder) -> DenseMatrix | None:
    """The matrix a search loads (`_load`: kept keys where present)."""
    connection = sqlite3.connect(f"{database.resolve().as_uri()}?mode=ro", uri=True)
    try:
        return _load(connection, embedder)
    finally:
        connection.close()


def computed(database: Path, embedder: CountingEmbedder) -> DenseMatrix:
    """The matrix from every key computed from the passages' texts (the load before keys were kept)."""
    connection = sqlite3.connect(f"{database.resolve().as_uri()}?mode=ro", uri=True)
    try:
        vectors = dict(connection.execute("SELECT key, vector FROM dense_vectors").fetchall())
        return passages_matrix(embedder, vectors, connection.execute(_PASSAGES))
    finally:
        connection.close()


def fields(matrix: DenseMatrix | None) -> tuple[object, ...]:
    """Everything a matrix holds, comparable (numpy arrays as bytes and lists)."""
    assert matrix is not None
    return (
        matrix.model_id, matrix.passage_ids, matrix.rows, matrix.tiers, matrix.content_hashes,
        matrix.matrix.shape, matrix.matrix.tobytes(), matrix.tier_names, matrix.tier_codes.tolist(),
        dict(matrix.positions),
    )


def stale_keys(database: Path) -> list[tuple[object, ...]]:
    """Each kept key that is not its passage's own key under its model (or whose passage is gone)."""
    connection = sqlite3.connect(database)
    try:
        if not connection.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (KEYS_TABLE,)).fetchall():
            return []
        return [
            (row, model, key)
            for row, model, key, metadata, text in connection.execute(
                f"SELECT k.row, k.model, k.key, p.metadata, p.text FROM {KEYS_TABLE} k LEFT JOIN passages p ON p.id = k.row"
            )
            if text is None or key != vector_key(str(model), heading_of(str(metadata)), str(text))
        ]
    finally:
        connection.close()


def kept(database: Path) -> int:
    """How many keys the index keeps (0 where it has no table for them)."""
    connection = sqlite3.connect(database)
    try:
        if not connection.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (KEYS_TABLE,)).fetchall():
            return 0
        return int(connection.execute(f"SELECT count(*) FROM {KEYS_TABLE}").fetchone()[0])
    finally:
        connection.close()


def passages(database: Path) -> int:
    connection = sqlite3.connect(database)
    try:
        return int(connection.execute("SELECT count(*) FROM passages").fetchone()[0])
    finally:
        connection.close()


def as_made_before_kept_keys(database: Path) -> None:
    """Remove the kept keys, their table and triggers: the index as thrift_fp made it before them."""
    connection = sqlite3.connect(database)
    try:
        for trigger in KEYS_TRIGGERS:
            connection.execute(f"DROP TRIGGER IF EXISTS {trigger}")
        connection.execute(f"DROP TABLE IF EXISTS {KEYS_TABLE}")
        connection.commit()
    finally:
        connection.close()


def has_vectors(database: Path) -> bool:
    """Whether an embedding run ever ran on the index (it made ``dense_vectors``)."""
    connection = sqlite3.connect(database)
    try:
        return bool(connection.execute("SELECT 1 FROM sqlite_master WHERE name = 'dense_vectors'").fetchall())
    finally:
        connection.close()


def block_kept(database: Path, model_id: str) -> bool:
    """Whether the index keeps a guarded block for ``model_id`` (a search then loads it)."""
    connection = sqlite3.connect(database)
    try:
        return block_held(connection, model_id)
    finally:
        connection.close()


def as_made_before_blocks(database: Path) -> None:
    """Remove the block, its table and triggers: the index as thrift_fp made it before them."""
    _run(database, *(f"DROP TRIGGER IF EXISTS {trigger}" for trigger in BLOCK_TRIGGERS), f"DROP TABLE IF EXISTS {BLOCK_TABLE}")


# Edits to the tables the matrix is computed from, as a user or another program may make them.
HAND_EDITS = (
    "UPDATE passages SET trust_tier = 'third-party-public' WHERE id = (SELECT min(id) FROM passages)",
    "UPDATE passages SET passage_id = passage_id || '-moved' WHERE id = (SELECT max(id) FROM passages)",
    "UPDATE passages SET content_hash = 'edited' WHERE id = (SELECT min(id) FROM passages)",
    "UPDATE passages SET text = text || ' edited' WHERE id = (SELECT max(id) FROM passages)",
    "DELETE FROM passages WHERE id = (SELECT min(id) FROM passages)",
    # A replace deletes the old row without firing a delete trigger: the insert must do.
    "INSERT OR REPLACE INTO passages SELECT id, passage_id, path, source, ordinal, kind, 'third-party-private',"
    " created_at, updated_at, content_hash, tokens, body_length, heading_length, trail_length, heading_terms,"
    " trail_terms, body_terms, text, metadata FROM passages WHERE id = (SELECT max(id) FROM passages)",
    "UPDATE dense_vectors SET vector = zeroblob(length(vector)) WHERE rowid = (SELECT min(rowid) FROM dense_vectors)",
    "DELETE FROM dense_vectors WHERE rowid = (SELECT max(rowid) FROM dense_vectors)",
    "INSERT OR REPLACE INTO dense_vectors SELECT key, zeroblob(length(vector)) FROM dense_vectors"
    " WHERE rowid = (SELECT max(rowid) FROM dense_vectors)",
    f"DELETE FROM {KEYS_TABLE} WHERE row = (SELECT min(row) FROM {KEYS_TABLE})",
)


def edit_by_hand(database: Path, statement: str) -> None:
    """Run ``statement`` on the index file, where the tables it names exist."""
    try:
        _run(database, statement)
    except sqlite3.OperationalError as exc:
        assert "no such table" in str(exc), exc


def _run(database: Path, *statements: str) -> None:
    connection = sqlite3.connect(database)
    try:
        for statement in statements:
            connection.execute(statement)
        connection.commit()
    finally:
        connection.close()
