"""Which model an SQLite index's vectors are of, read without the dense side (issue 35).

``thrift-fp ask`` asks this before anything else loads, to decide whether to start the child that
embeds its question (`thrift_fp.sources.sqlite.ranked_ahead`): so this module imports the standard
library alone, and the child starts that much sooner.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final

MODEL_KEY: Final = "dense_model"
# An embedding run that started and has not finished: its model, and how many inputs it covers.
PENDING_KEY: Final = "dense_pending"
# Each passage row's vector key (`thrift_fp.sources.sqlite._dense`, which writes it).
KEYS_TABLE: Final = "passage_vector_keys"


def stored_model(connection: sqlite3.Connection) -> str | None:
    """The model whose vectors cover every passage of the index, or ``None``.

    >>> connection = sqlite3.connect(":memory:")
    >>> stored_model(connection) is None
    True
    >>> connection.close()
    """
    return _meta(connection, MODEL_KEY)


def pending_model(connection: sqlite3.Connection) -> str | None:
    """The model of an embedding run that started and has not finished, or ``None``.

    >>> connection = sqlite3.connect(":memory:")
    >>> pending_model(connection) is None
    True
    >>> connection.close()
    """
    return _meta(connection, PENDING_KEY)


def held_model(database: Path) -> str | None:
    """The model an index file's vectors are of, finished or pending; ``None`` for none (or no file).

    >>> held_model(Path("/nonexistent.db")) is None
    True
    """
    with read_only(database) as connection:
        return None if connection is None else stored_model(connection) or pending_model(connection)


@contextmanager
def read_only(database: Path) -> Iterator[sqlite3.Connection | None]:
    """A read-only connection to the index file ``database``, closed on leaving; ``None`` when there
    is no such file or it cannot be opened (for the callers that look before a search: nothing here).

    >>> with read_only(Path("/nonexistent.db")) as connection:
    ...     connection is None
    True
    """
    connection = None
    if database.is_file():
        try:
            connection = sqlite3.connect(f"{database.resolve().as_uri()}?mode=ro", uri=True)
        except (sqlite3.Error, ValueError, OSError):
            connection = None
    try:
        yield connection
    finally:
        if connection is not None:
            connection.close()


def _meta(connection: sqlite3.Connection, key: str) -> str | None:
    try:
        row = connection.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    except sqlite3.Error:
        return None
    return None if row is None else str(row[0])
