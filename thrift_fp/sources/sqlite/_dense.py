"""Dense vectors in an SQLite index: the side table, embedding what is new, and the dense candidates of a question.

Vectors live in ``dense_vectors(key, vector)``: ``key`` as `vector_key` makes it, ``vector``
a BLOB of float32 values. ``meta`` holds ``dense_model``, the model whose vectors cover every
passage; a run that changes passages without embedding them removes it, so a search never
fuses an incomplete set of vectors. An embedding run commits its vectors batch by batch and
names its model ``dense_pending`` until it finishes: an interrupted run keeps what it made, the
next one continues, and meanwhile search is lexical and says how far the vectors are.

``passage_vector_keys(row, model, key)`` keeps each passage row's vector key, written by the
embedding run that computed it, so that a search loading the vectors reads neither the passages'
texts nor their heading paths; triggers drop a row's key whenever its passage changes.
"""

from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import contextmanager

from pathlib import Path
from typing import Final

from returns.result import Failure, Result, Success

from thrift_fp._value import value
from thrift_fp.sources.dense import (
    FLOOR_RULE,
    MATCH_FLOOR,
    DenseChoice,
    DenseError,
    DenseMatrix,
    DenseUnavailable,
    Embedder,
    SHIPPED_MODELS,
    Prefetched,
    Ranking,
    cached_matrix,
    chosen_embedder,
    embed_inputs,
    heading_of,
    keyed_inputs,
    keyed_matrix,
    missing_runtime,
    nearest_candidates,
    passages_matrix,
    shipped,
    vector_key,
)
from thrift_fp.sources.ranking import Scored
from thrift_fp.sources.sqlite._block import block_held, stored_block, write_block
from thrift_fp.sources.sqlite._pool import file_version
from thrift_fp.sources.sqlite._held import KEYS_TABLE, MODEL_KEY, PENDING_KEY, read_only, stored_model
from thrift_fp.sources.sqlite._held import pending_model as _pending_model

VECTORS: Final = "CREATE TABLE IF NOT EXISTS dense_vectors(key TEXT PRIMARY KEY, vector BLOB NOT NULL)"
# Each passage row's vector key under one model, written in the transaction that read the passage
# to compute it (`sync_vectors`, `keep_vector_keys`). The triggers drop a row's key whenever a
# passage row is inserted, changed or deleted, whatever the path (a re-chunked or removed file,
# a reused rowid, an INSERT OR REPLACE, whose deletions fire no delete trigger, or an older
# thrift_fp writing the file): a key present is the key of the passage as it is. Created with
# the first embedding run, beside `dense_vectors`, with no schema change: an index without it
# (or with rows it lacks) computes those keys from the texts, as before.
KEYS_TRIGGERS: Final = ("passage_vector_keys_ai", "passage_vector_keys_au", "passage_vector_keys_ad")
KEYS: Final = (
    f"CREATE TABLE IF NOT EXISTS {KEYS_TABLE}(row INTEGER PRIMARY KEY, model TEXT NOT NULL, key TEXT NOT NULL)",
    f"CREATE TRIGGER IF NOT EXISTS {KEYS_TRIGGERS[0]} AFTER INSERT ON passages BEGIN"
    f" DELETE FROM {KEYS_TABLE} WHERE row = new.id; END",
    f"CREATE TRIGGER IF NOT EXISTS {KEYS_TRIGGERS[1]} AFTER UPDATE ON passages BEGIN"
    f" DELETE FROM {KEYS_TABLE} WHERE row IN (old.id, new.id); END",
    f"CREATE TRIGGER IF NOT EXISTS {KEYS_TRIGGERS[2]} AFTER DELETE ON passages BEGIN"
    f" DELETE FROM {KEYS_TABLE} WHERE row = old.id; END",
)
# How many inputs an unfinished embedding run covers (its model: `PENDING_KEY`).
TOTAL_KEY: Final = "dense_total"
# The no-match floor calibrated on this index's passages (`calibrate`), as JSON naming the model
# whose vectors it was measured with; any change to the passages or the vectors removes it.
FLOOR_KEY: Final = "dense_floor"


def forget_vectors_model(connection: sqlite3.Connection) -> None:
    """Mark the vectors incomplete: a run changed passages without embedding them."""
    connection.execute("DELETE FROM meta WHERE key IN (?, ?)", (MODEL_KEY, FLOOR_KEY))


def stored_floor(connection: sqlite3.Connection, model_id: str) -> float | None:
    """The no-match floor calibrated on this index with ``model_id``'s vectors, or ``None``.

    >>> connection = sqlite3.connect(":memory:")
    >>> _ = connection.execute("CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT)")
    >>> record_floor(connection, "m", 0.35)
    >>> stored_floor(connection, "m"), stored_floor(connection, "other")
    (0.35, None)
    >>> connection.close()
    """
    try:
        row = connection.execute("SELECT value FROM meta WHERE key = ?", (FLOOR_KEY,)).fetchone()
    except sqlite3.Error:
        return None
    if row is None:
        return None
    try:
        stored = json.loads(str(row[0]))
        # A hand-edited or foreign value is no floor at all: the search falls back to the base one.
        floor = float(stored["floor"]) if (stored.get("model"), stored.get("rule")) == (model_id, FLOOR_RULE) else None
    except (ValueError, TypeError, KeyError, AttributeError):
        return None
    return floor if floor is not None and math.isfinite(floor) and 0.0 <= floor <= 1.0 else None


def record_floor(connection: sqlite3.Connection, model_id: str, floor: float) -> None:
    """Store the floor calibrated with ``model_id``'s vectors (`stored_floor` reads it)."""
    connection.execute(
        "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)",
        (FLOOR_KEY, json.dumps({"model": model_id, "floor": floor, "rule": FLOOR_RULE})),
    )


def sync_vectors(
    connection: sqlite3.Connection, embedder: Embedder, progress: Callable[[int, int], None] | None = None
) -> Result[int, DenseError]:
    """Embed the passages whose vectors the index lacks, drop the vectors no passage needs, and
    record the model; returns how many texts were embedded.

    Each batch of vectors is committed as it is made (the connection must be in autocommit
    mode, outside a transaction), so an interrupted run keeps them and the next run embeds only
    the rest. Until the last batch, ``meta`` names the model as pending with the number of
    inputs it covers (`vectors_progress`), and search stays lexical. ``progress(done, total)``
    follows this run's inputs.

    >>> import struct
    >>> from thrift_fp.sources.sqlite._store import connect, create_schema
    >>> class Fixed:
    ...     model_id, dimensions = "fixed", 1
    ...     def embed(self, texts):
    ...         return [struct.pack("<f", 1.0) for _ in texts]
    >>> connection = connect(Path(":memory:"))
    >>> create_schema(connection, {"encoding": "cl100k_base"})
    >>> sync_vectors(connection, Fixed()).unwrap(), stored_model(connection)
    (0, 'fixed')
    >>> connection.close()
    """
    with _transaction(connection):
        connection.execute(VECTORS)
        for statement in KEYS:
            connection.execute(statement)
        stored = {str(key) for (key,) in connection.execute("SELECT key FROM dense_vectors")}
        held = connection.execute(
            f"SELECT p.id, p.metadata, p.text, k.model, k.key FROM passages p LEFT JOIN {KEYS_TABLE} k ON k.row = p.id"
        ).fetchall()
        keys, todo = keyed_inputs(
            embedder.model_id, ((int(row), (heading_of(str(metadata)), str(text))) for row, metadata, text, _, _ in held),
            stored,
        )
        live = set(keys.values())
        # Read in this transaction, so each key is of the passage as it is committed with it.
        _keep_keys(connection, embedder.model_id, [
            (row, keys[row]) for row, _, _, model, key in held if (model, key) != (embedder.model_id, keys[row])
        ])
        connection.executemany("DELETE FROM dense_vectors WHERE key = ?", [(key,) for key in stored - live])
        if todo or stored - live:
            connection.execute("DELETE FROM meta WHERE key = ?", (FLOOR_KEY,))
        if todo:
            connection.execute("DELETE FROM meta WHERE key = ?", (MODEL_KEY,))
            connection.executemany(
                "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)",
                [(PENDING_KEY, embedder.model_id), (TOTAL_KEY, str(len(live)))],
            )
    # Shortest first: a batch pads to its longest input, and the early batches report quickly.
    ordered = dict(sorted(todo.items(), key=lambda item: len(item[1])))

    def commit(batch: Sequence[tuple[str, bytes]]) -> None:
        with _transaction(connection):  # one per batch: what is committed survives an interruption
            connection.executemany("INSERT OR REPLACE INTO dense_vectors(key, vector) VALUES (?, ?)", batch)

    embedded = embed_inputs(embedder, ordered, progress, commit)
    if isinstance(embedded, Failure):
        return Failure(embedded.failure())
    with _transaction(connection):
        connection.execute("DELETE FROM meta WHERE key IN (?, ?)", (PENDING_KEY, TOTAL_KEY))
        connection.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (MODEL_KEY, embedder.model_id))
    return Success(len(todo))


def keep_vector_keys(connection: sqlite3.Connection, model_id: str) -> int:
    """Store the vector key under ``model_id`` of every passage the index keeps none for (an index
    embedded before keys were kept); returns how many. Writes nothing when every key is kept.

    >>> from thrift_fp.sources.sqlite._store import connect, create_schema
    >>> connection = connect(Path(":memory:"))
    >>> create_schema(connection, {"encoding": "cl100k_base"})
    >>> keep_vector_keys(connection, "m")
    0
    >>> connection.close()
    """
    if _keys_kept(connection) and not _unkeyed(connection, model_id):
        return 0  # the common case: no write lock taken, the file untouched
    with _transaction(connection):
        for statement in KEYS:
            connection.execute(statement)
        # Read again in the transaction that writes: the keys are of the passages as committed.
        unkeyed = _unkeyed(connection, model_id)
        _keep_keys(connection, model_id, [
            (row, vector_key(model_id, heading_of(metadata), text)) for row, metadata, text in unkeyed
        ])
    return len(unkeyed)


def keep_block(connection: sqlite3.Connection, embedder: Embedder) -> bool:
    """Keep the matrix a search of the index loads under ``embedder``'s model as one block
    (`thrift_fp.sources.sqlite._block`); returns whether it wrote one. Only for whole vectors of
    that model with kept keys; nothing is written where the index holds the block already.

    >>> import struct
    >>> from thrift_fp.sources.sqlite._store import connect, create_schema
    >>> class Fixed:
    ...     model_id, dimensions = "fixed", 1
    ...     def embed(self, texts):
    ...         return [struct.pack("<f", 1.0) for _ in texts]
    >>> connection = connect(Path(":memory:"))
    >>> create_schema(connection, {"encoding": "cl100k_base"})
    >>> _ = sync_vectors(connection, Fixed())
    >>> keep_block(connection, Fixed()), keep_block(connection, Fixed())
    (True, False)
    >>> connection.close()
    """
    if block_held(connection, embedder.model_id) or not _blockable(connection, embedder.model_id):
        return False
    with _transaction(connection):
        # Read again in the transaction that writes: the block is of the tables as committed.
        if not _blockable(connection, embedder.model_id):
            return False
        write_block(connection, embedder.model_id, embedder.dimensions, _load_tables(connection, embedder))
    return True


def keep_index_block(database: Path) -> bool:
    """`keep_block` for the model the index file's vectors are of, loading no model (an index run
    with nothing to embed); an index that cannot be written is left as it is (the block only
    spares a search some work). Returns whether it wrote one.

    >>> keep_index_block(Path("/nonexistent.db"))
    False
    """
    from thrift_fp.sources.sqlite._store import connect  # noqa: PLC0415 - an index run's, not a search's

    if not database.is_file():
        return False
    try:
        connection = connect(database)
        try:
            held = _held_width(connection)
            return held is not None and keep_block(connection, held)
        finally:
            connection.close()
    except sqlite3.Error:
        return False


def _blockable(connection: sqlite3.Connection, model_id: str) -> bool:
    # The block's triggers watch the kept keys' table: it must exist, with its own triggers.
    return stored_model(connection) == model_id and _keys_kept(connection)


def _unkeyed(connection: sqlite3.Connection, model_id: str) -> list[tuple[int, str, str]]:
    return connection.execute(
        f"SELECT p.id, p.metadata, p.text FROM passages p LEFT JOIN {KEYS_TABLE} k ON k.row = p.id AND k.model = ?"
        " WHERE k.row IS NULL",
        (model_id,),
    ).fetchall()


def _keep_keys(connection: sqlite3.Connection, model_id: str, keys: Sequence[tuple[int, str]]) -> None:
    connection.executemany(
        f"INSERT OR REPLACE INTO {KEYS_TABLE}(row, model, key) VALUES (?, ?, ?)",
        [(row, model_id, key) for row, key in keys],
    )


def _keys_kept(connection: sqlite3.Connection) -> bool:
    # The table without all its triggers (made by hand, or half dropped) could hold stale keys: unused.
    names = (KEYS_TABLE, *KEYS_TRIGGERS)
    (found,) = connection.execute(
        f"SELECT count(*) FROM sqlite_master WHERE name IN ({', '.join('?' * len(names))})", names
    ).fetchone()
    return int(found) == len(names)


@contextmanager
def _transaction(connection: sqlite3.Connection) -> Iterator[None]:
    # The indexer's connections are in autocommit mode: each statement would be its own commit.
    connection.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        connection.execute("ROLLBACK")
        raise
    connection.execute("COMMIT")


def vectors_progress(connection: sqlite3.Connection, model_id: str) -> tuple[int, int] | None:
    """``(embedded, total)`` when an embedding run with ``model_id`` started and has not finished, else ``None``.

    >>> connection = sqlite3.connect(":memory:")
    >>> vectors_progress(connection, "m") is None
    True
    >>> connection.close()
    """
    try:
        meta = dict(connection.execute(
            "SELECT key, value FROM meta WHERE key IN (?, ?)", (PENDING_KEY, TOTAL_KEY)
        ).fetchall())
        if meta.get(PENDING_KEY) != model_id:
            return None
        (embedded,) = connection.execute("SELECT count(*) FROM dense_vectors").fetchone()
    except sqlite3.Error:
        return None
    total = int(str(meta.get(TOTAL_KEY, "0")))
    return min(int(embedded), total), total


def vectors_current(database: Path) -> bool:
    """Whether the index file's vectors are of a shipped model and whole: every passage's vector,
    its kept key and the calibrated floor, so that an index run that changes no passage has
    nothing for the model to do (and need not load it).

    >>> vectors_current(Path("/nonexistent.db"))
    False
    """
    with read_only(database) as connection:
        if connection is None:
            return False
        try:
            model = stored_model(connection)
            return (
                model in SHIPPED_MODELS and _keys_kept(connection) and not _unkeyed(connection, model)
                and stored_floor(connection, model) is not None
            )
        except sqlite3.Error:
            return False


def ranking_of(connection: sqlite3.Connection, dense: DenseChoice) -> tuple[Ranking, Embedder | None]:
    """What a search of this index ranks with, and the embedder for the question when hybrid.

    >>> connection = sqlite3.connect(":memory:")
    >>> ranking_of(connection, False)[0].reason
    'dense ranking is turned off'
    >>> connection.close()
    """
    if shipped(dense) and stored_model(connection) is None and _pending_model(connection) is None:
        # Checked before the default model loads: loading it costs most of an `ask` process,
        # and an index without vectors (nor a run embedding them) ranks lexically whichever
        # model is installed.
        missing = missing_runtime()
        return Ranking("lexical", None, DenseUnavailable(missing).message if missing is not None else (
            "the index holds no complete set of vectors: index it again with the [dense] extra installed"
        )), None
    chosen = chosen_embedder(dense, stored_model(connection) or _pending_model(connection))
    if chosen is None:
        return Ranking("lexical", None, "dense ranking is turned off"), None
    if isinstance(chosen, Failure):
        return Ranking("lexical", None, chosen.failure().message), None
    embedder = chosen.unwrap()
    model = stored_model(connection)
    partial = vectors_progress(connection, embedder.model_id) if model != embedder.model_id else None
    if partial is not None:
        embedded, total = partial
        return Ranking(
            "lexical", None,
            f"the index's vectors are incomplete ({embedded} of {total} passages embedded): "
            "run the index command again to finish them",
            partial,
        ), None
    if model != embedder.model_id:
        held = "no complete set of vectors" if model is None else f"vectors of {model}"
        return Ranking(
            "lexical", None,
            f"the index holds {held}, not of {embedder.model_id}: index it again with the [dense] extra installed",
        ), None
    floor = stored_floor(connection, embedder.model_id)
    return Ranking(
        "hybrid", embedder.model_id, None, match_floor=MATCH_FLOOR if floor is None else floor,
        floor_calibrated=floor is not None,
    ), embedder


def dense_candidates(
    database: Path, connection: sqlite3.Connection, embedder: Embedder, question: str, tiers: Collection[str], limit: int,
    also: Collection[int] = (),
) -> Result[tuple[tuple[Scored, ...], dict[int, float]], DenseError]:
    """The ``limit`` passages nearest ``question`` among ``tiers``, as ranked candidates (``score`` the cosine),
    and the cosine of each passage of ``also`` (row keys) that has a vector."""
    if isinstance(embedder, Prefetched) and embedder.scored is not None:
        # Ranked ahead by `ask`'s child (`_ahead`), if for this very search of this version of the file.
        ahead = embedder.scored.candidates(matrix_version(database, embedder), question, tiers, limit, also)
        if ahead is not None:
            return Success(ahead)
    return nearest_candidates(_matrix(database, connection, embedder), embedder, question, tiers, limit, also)


def warm_matrix(database: Path) -> None:
    """Load the vectors of the index at ``database`` (kept per process, `cached_matrix`) without
    loading the model they are of: ``thrift-fp ask`` does it while its question is embedded in a
    second process (`thrift_fp.sources.dense._ahead`), so the search finds both ready. Only for an
    index whose vectors are complete; a failure is left for the search to meet and report.

    >>> warm_matrix(Path("/nonexistent.db"))
    """
    with read_only(database) as connection:
        if connection is None:
            return
        try:
            held = _held_width(connection)
            if held is not None:
                _matrix(database, connection, held)
        except sqlite3.Error:
            return


def _held_width(connection: sqlite3.Connection) -> _Held | None:
    """The model of the index's whole vectors, with the width of its stored vectors, or ``None``."""
    model = stored_model(connection)
    row = connection.execute("SELECT length(vector) FROM dense_vectors LIMIT 1").fetchone()
    if model is None or row is None or not isinstance(row[0], int) or row[0] <= 0 or row[0] % 4:
        return None
    # The matrix's key names the model's width: a width read off a stored vector that is not the
    # model's own is another key, and the search loads the matrix itself (as without this).
    return _Held(model, row[0] // 4)


@value
class _Held:
    """The shipped model an index's vectors are of, as `warm_matrix` knows it before it loads:
    its id and width, all that loading the vectors needs. Asked to embed, it loads the model."""

    model_id: str
    dimensions: int

    def embed(self, texts: Sequence[str]) -> Sequence[bytes]:
        # The shipped model of these vectors, as a search of the index chooses it.
        loaded = chosen_embedder(True, self.model_id)
        if loaded is None or isinstance(loaded, Failure):
            raise RuntimeError(f"cannot load {self.model_id}" if loaded is None else loaded.failure().message)
        return loaded.unwrap().embed(texts)


def matrix_version(database: Path, embedder: Embedder) -> tuple[str, str, int, int, int, str, int]:
    """The version of the index file's vectors under ``embedder``'s model (`_pool.file_version`)."""
    return file_version(database, embedder.model_id, embedder.dimensions)


def _matrix(database: Path, connection: sqlite3.Connection, embedder: Embedder) -> DenseMatrix | None:
    return cached_matrix(matrix_version(database, embedder), lambda: _load(connection, embedder))


def _load(connection: sqlite3.Connection, embedder: Embedder) -> DenseMatrix | None:
    # The block an index run kept (`_block`) where it is whole and guarded; else from the tables.
    kept = stored_block(connection, embedder.model_id, embedder.dimensions)
    return kept if kept is not None else _load_tables(connection, embedder)


def _load_tables(connection: sqlite3.Connection, embedder: Embedder) -> DenseMatrix | None:
    vectors = dict(connection.execute("SELECT key, vector FROM dense_vectors").fetchall())
    if not _keys_kept(connection):
        passages = connection.execute(
            "SELECT id, passage_id, trust_tier, content_hash, metadata, text FROM passages ORDER BY id"
        )
        return passages_matrix(embedder, vectors, passages)
    # One statement, one snapshot; SQLite reads a passage's metadata and text only where the CASE
    # needs them, i.e. for a passage whose key is not kept, and `keyed_matrix` computes that one.
    passages = connection.execute(
        "SELECT p.id, p.passage_id, p.trust_tier, p.content_hash, k.key,"
        " CASE WHEN k.key IS NULL THEN p.metadata END, CASE WHEN k.key IS NULL THEN p.text END"
        f" FROM passages p LEFT JOIN {KEYS_TABLE} k ON k.row = p.id AND k.model = ? ORDER BY p.id",
        (embedder.model_id,),
    )
    return keyed_matrix(embedder, vectors, passages)
