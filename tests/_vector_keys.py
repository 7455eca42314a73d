"""Reading an SQLite index's kept vector keys (``passage_vector_keys``) in tests: the matrix a search
loads, the matrix computed from every passage's text, and the kept keys that are not current."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tests._dense_model import CountingEmbedder
from thrift_fp.sources.dense import DenseMatrix, heading_of, passages_matrix, vector_key
from thrift_fp.sources.sqlite._dense import KEYS_TABLE, KEYS_TRIGGERS, _load

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
