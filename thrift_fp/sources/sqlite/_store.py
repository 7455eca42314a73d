"""The SQLite FTS5 index file: its schema, opening it, and checking FTS5 is there."""

from __future__ import annotations

import sqlite3
from functools import cache
from pathlib import Path
from typing import Final

from returns.result import Failure, Result, Success

from thrift_fp.sources.contract import CorruptDatabase, DatabaseMissing, Fts5Unavailable, SourceError

SCHEMA_VERSION: Final = "4"

# External-content FTS5 table kept in step with `passages` by triggers, so the analyzed terms
# are stored once. `files` drives incremental indexing. The FTS5 table indexes the passage's
# analyzed terms (see `analyze`: lower-cased, stemmed, letters and digits only), not its text:
# it only finds each question term's passages; the score is computed by the shared ranking
# from the stored terms, as in every store. `heading` is the passage's own heading, `trail`
# the headings above it.
SCHEMA: Final = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE files(
    path TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    kind TEXT NOT NULL,
    trust_tier TEXT NOT NULL,
    mtime_ns INTEGER NOT NULL,
    size INTEGER NOT NULL,
    sha256 TEXT NOT NULL,
    checked_ns INTEGER NOT NULL
);
CREATE TABLE passages(
    id INTEGER PRIMARY KEY,
    passage_id TEXT NOT NULL,
    path TEXT NOT NULL REFERENCES files(path) ON DELETE CASCADE,
    source TEXT NOT NULL,
    ordinal INTEGER NOT NULL,
    kind TEXT NOT NULL,
    trust_tier TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    tokens INTEGER NOT NULL,
    -- Before the text: scoring reads these columns without walking past the text's pages.
    body_length INTEGER NOT NULL,
    heading_length INTEGER NOT NULL,
    trail_length INTEGER NOT NULL,
    heading_terms TEXT NOT NULL,
    trail_terms TEXT NOT NULL,
    body_terms TEXT NOT NULL,
    text TEXT NOT NULL,
    metadata TEXT NOT NULL
);
CREATE INDEX passages_path ON passages(path);
-- The collection's sizes are summed from this narrow index, never from the wide rows.
CREATE INDEX passages_lengths ON passages(body_length, heading_length, trail_length);
CREATE VIRTUAL TABLE passages_fts USING fts5(
    body_terms, heading_terms, trail_terms, content='passages', content_rowid='id',
    tokenize="unicode61 remove_diacritics 0"
);
CREATE TRIGGER passages_ai AFTER INSERT ON passages BEGIN
    INSERT INTO passages_fts(rowid, body_terms, heading_terms, trail_terms)
    VALUES (new.id, new.body_terms, new.heading_terms, new.trail_terms);
END;
CREATE TRIGGER passages_ad AFTER DELETE ON passages BEGIN
    INSERT INTO passages_fts(passages_fts, rowid, body_terms, heading_terms, trail_terms)
    VALUES ('delete', old.id, old.body_terms, old.heading_terms, old.trail_terms);
END;
"""


@cache
def check_fts5() -> Result[None, Fts5Unavailable]:
    """Whether this Python's SQLite can create FTS5 tables (checked once, in memory).

    >>> check_fts5()
    <Success: None>
    """
    probe = sqlite3.connect(":memory:")
    try:
        probe.execute("CREATE VIRTUAL TABLE probe USING fts5(text)")
    except sqlite3.Error as exc:
        return Failure(Fts5Unavailable(sqlite3.sqlite_version, str(exc)))
    finally:
        probe.close()
    return Success(None)


def connect(path: Path) -> sqlite3.Connection:
    """A writable connection as the indexer uses it: explicit transactions, foreign keys on.

    >>> connection = connect(Path(":memory:"))
    >>> connection.execute("PRAGMA foreign_keys").fetchone(), connection.isolation_level
    ((1,), None)
    >>> connection.close()
    """
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("PRAGMA foreign_keys = ON")
    return connection


def create_schema(connection: sqlite3.Connection, settings: dict[str, str]) -> None:
    """Create the tables of an empty index and record its settings.

    >>> connection = connect(Path(":memory:"))
    >>> create_schema(connection, {"encoding": "cl100k_base"})
    >>> read_settings(connection, Path(":memory:")).unwrap()
    {'schema_version': '4', 'encoding': 'cl100k_base'}
    >>> connection.close()
    """
    connection.executescript(SCHEMA)
    connection.executemany(
        "INSERT INTO meta(key, value) VALUES (?, ?)",
        [("schema_version", SCHEMA_VERSION), *settings.items()],
    )


def read_settings(connection: sqlite3.Connection, path: Path) -> Result[dict[str, str], SourceError]:
    """The stored settings of an index, or ``CorruptDatabase`` if it is not one of ours.

    >>> connection = connect(Path(":memory:"))
    >>> read_settings(connection, Path("empty.db")).failure().message
    'empty.db is not a usable thrift_fp index: no such table: meta'
    >>> connection.close()
    """
    try:
        rows = connection.execute("SELECT key, value FROM meta").fetchall()
        connection.execute("SELECT rowid FROM passages_fts LIMIT 0").fetchall()
    except sqlite3.DatabaseError as exc:
        return Failure(CorruptDatabase(str(path), str(exc), exc))
    settings = {str(key): str(value) for key, value in rows}
    if settings.get("schema_version") != SCHEMA_VERSION:
        return Failure(
            CorruptDatabase(str(path), f"schema version {settings.get('schema_version')!r}, expected {SCHEMA_VERSION}")
        )
    return Success(settings)


def open_index(path: Path) -> Result[sqlite3.Connection, SourceError]:
    """Open an existing index read-only, after checking FTS5 and the schema.

    >>> open_index(Path("/nonexistent/index.db")).failure().message
    'no index at /nonexistent/index.db; build one first with `thrift-fp index PATH... --db /nonexistent/index.db`'
    """
    available: Result[None, SourceError] = check_fts5()
    if isinstance(available, Failure):
        return available
    if path.is_dir():
        return Failure(CorruptDatabase(str(path), "it is a folder, not an index file"))
    if not path.is_file():
        return Failure(DatabaseMissing(str(path)))
    try:
        connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        return Failure(CorruptDatabase(str(path), str(exc), exc))
    settings = read_settings(connection, path)
    if isinstance(settings, Failure):
        connection.close()
        return settings
    return Success(connection)
