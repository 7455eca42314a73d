"""An SQLite index's vectors kept as one block, in the order a search loads them (issue 35).

A search's first dense ranking loads every passage's vector: 10,000 rows of ``dense_vectors``
joined to the passages through their kept keys, each vector a BLOB of its own, then copied into
one matrix — some 60-70 ms of a one-question ``thrift-fp ask`` process, on its critical path
(BENCHMARKS.md §21). ``dense_block(model, dimensions, passages, vectors)`` holds that matrix as
the index run that finished the vectors left it: ``passages`` the JSON list of each matrix row's
``[row, passage_id, trust_tier, content_hash]``, ``vectors`` their float32 values one after another.
One BLOB read and one small JSON parse replace the join, and the matrix is a view of the BLOB.

It is never stale. Triggers on every table the matrix is computed from (the passages, the
vectors, the kept keys) empty the block on any insert, update or delete, whatever writes the file
(an index run, a hand edit, an older thrift_fp). A search trusts the block only with all of them
in place, checked in the read transaction that reads it; without them, or with a block of another
model or width or of a malformed shape, it computes the matrix from the tables, as before. The
block costs the index its vectors' size again (1.5 KB per passage for a 384-wide model); an
index whose block would pass SQLite's largest value (a billion bytes by default: some 650,000
passages of that model) keeps none, and loads from the tables.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Final

from thrift_fp.sources.dense import DenseMatrix, dense_columns
from thrift_fp.sources.sqlite._held import KEYS_TABLE

BLOCK_TABLE: Final = "dense_block"
# The tables the matrix is computed from (`_dense._load_tables`): a change to any empties the block.
WATCHED: Final = ("passages", "dense_vectors", KEYS_TABLE)
_EVENTS: Final = (("ai", "INSERT"), ("au", "UPDATE"), ("ad", "DELETE"))
BLOCK_TRIGGERS: Final = tuple(f"{BLOCK_TABLE}_{table}_{suffix}" for table in WATCHED for suffix, _ in _EVENTS)
BLOCK: Final = (
    f"CREATE TABLE IF NOT EXISTS {BLOCK_TABLE}("
    "model TEXT PRIMARY KEY, dimensions INTEGER NOT NULL, passages TEXT NOT NULL, vectors BLOB NOT NULL)",
    *(
        f"CREATE TRIGGER IF NOT EXISTS {BLOCK_TABLE}_{table}_{suffix} AFTER {event} ON {table}"
        f" BEGIN DELETE FROM {BLOCK_TABLE}; END"
        for table in WATCHED
        for suffix, event in _EVENTS
    ),
)
# How many of the block's triggers are in place (bound to `BLOCK_TRIGGERS`).
_GUARDS: Final = (
    f"(SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name IN ({', '.join('?' * len(BLOCK_TRIGGERS))}))"
)
# The block's shape, and whether every trigger guarding it is in place; its vectors are read
# after, in the same read transaction (`_snapshot`).
_READ: Final = f"SELECT rowid, dimensions, passages, typeof(vectors), length(vectors), {_GUARDS} FROM {BLOCK_TABLE} WHERE model = ?"


def stored_block(connection: sqlite3.Connection, model_id: str, dimensions: int | None) -> DenseMatrix | None:
    """The matrix the index keeps for ``model_id`` at ``dimensions`` values a vector (any width it
    holds for ``None``), or ``None`` when it keeps none, is unguarded (a trigger missing) or
    malformed: the caller computes it.

    >>> connection = sqlite3.connect(":memory:")
    >>> stored_block(connection, "m", 2) is None  # no block table
    True
    >>> connection.close()
    """
    try:
        with _snapshot(connection):
            row = connection.execute(_READ, (*BLOCK_TRIGGERS, model_id)).fetchone()
            if row is None:
                return None
            rowid, width, listed, kind, size, guarded = row
            if guarded != len(BLOCK_TRIGGERS) or type(width) is not int or width <= 0 or kind != "blob":
                return None
            if dimensions is not None and width != dimensions:
                return None
            columns = _columns(listed)
            if columns is None or size != 4 * width * len(columns[0]):
                return None
            # Straight into one bytes object (a SELECT copies the 15 MB of a 10,000-passage block twice).
            with connection.blobopen(BLOCK_TABLE, "vectors", rowid, readonly=True) as blob:
                vectors = blob.read()
    except sqlite3.Error:
        return None
    if len(vectors) != size:
        return None
    rows, passage_ids, tiers, hashes = columns
    return dense_columns(model_id, passage_ids, rows, tiers, hashes, vectors, width)


@contextmanager
def _snapshot(connection: sqlite3.Connection) -> Iterator[None]:
    # One read transaction for the block's row and its vectors, unless the caller holds one.
    if connection.in_transaction:
        yield
        return
    connection.execute("BEGIN")
    try:
        yield
    finally:
        connection.execute("ROLLBACK")  # nothing was written: ending the read is all


def _columns(listed: object) -> tuple[tuple[int, ...], tuple[str, ...], tuple[str, ...], tuple[str, ...]] | None:
    """The block's ``passages`` as four columns, or ``None`` unless it is a list of
    ``[row, passage_id, trust_tier, content_hash]`` with distinct integer rows.

    >>> _columns('[[1, "a#1", "first-party", "h"]]')
    ((1,), ('a#1',), ('first-party',), ('h',))
    >>> _columns('[[1, "a#1", "first-party", "h"], [1, "a#2", "first-party", "h"]]') is None
    True
    >>> _columns('[[true, "a#1", "first-party", "h"]]') is None
    True
    """
    if not isinstance(listed, str):
        return None
    try:
        entries = json.loads(listed)
    except ValueError:
        return None
    # Type and length checks by C-level maps: a 10,000-passage block is checked in about a millisecond.
    if type(entries) is not list or not set(map(type, entries)) <= {list} or not set(map(len, entries)) <= {4}:
        return None
    if not entries:
        return (), (), (), ()
    rows, passage_ids, tiers, hashes = zip(*entries, strict=True)
    if set(map(type, rows)) != {int} or len(set(rows)) != len(rows):
        return None
    if not set(map(type, passage_ids + tiers + hashes)) <= {str}:
        return None
    return rows, passage_ids, tiers, hashes


def write_block(connection: sqlite3.Connection, model_id: str, dimensions: int, matrix: DenseMatrix | None) -> None:
    """Replace the index's block with ``matrix`` (of ``model_id`` at ``dimensions``), creating the
    table and its triggers where missing; no block for no matrix. The caller holds the write
    transaction in which ``matrix`` was computed from the tables.

    >>> connection = sqlite3.connect(":memory:")
    >>> for table in WATCHED:
    ...     _ = connection.execute(f"CREATE TABLE {table}(x)")
    >>> write_block(connection, "m", 2, None)
    >>> connection.execute("SELECT count(*) FROM dense_block").fetchone()
    (0,)
    >>> connection.close()
    """
    for statement in BLOCK:
        connection.execute(statement)
    connection.execute(f"DELETE FROM {BLOCK_TABLE}")
    if matrix is None:
        return
    listed = json.dumps(
        [list(entry) for entry in zip(matrix.rows, matrix.passage_ids, matrix.tiers, matrix.content_hashes, strict=True)],
        separators=(",", ":"),
    )
    vectors = matrix.matrix.astype("<f4", copy=False).tobytes()
    # Past SQLite's largest value the insert would fail the run: such an index keeps no block.
    largest = connection.getlimit(sqlite3.SQLITE_LIMIT_LENGTH)
    if len(vectors) > largest or len(listed.encode("utf-8")) > largest:
        return
    connection.execute(
        f"INSERT INTO {BLOCK_TABLE}(model, dimensions, passages, vectors) VALUES (?, ?, ?, ?)",
        (model_id, dimensions, listed, vectors),
    )


def block_held(connection: sqlite3.Connection, model_id: str) -> bool:
    """Whether the index keeps a guarded block for ``model_id`` (an index run then writes none).

    >>> connection = sqlite3.connect(":memory:")
    >>> block_held(connection, "m")
    False
    >>> connection.close()
    """
    try:
        row = connection.execute(
            f"SELECT {_GUARDS} FROM {BLOCK_TABLE} WHERE model = ?", (*BLOCK_TRIGGERS, model_id)
        ).fetchone()
    except sqlite3.Error:
        return False
    return row is not None and row[0] == len(BLOCK_TRIGGERS)

