"""A byte store in one SQLite table: each value is a run of chunk rows, written in one transaction."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

from returns.result import Failure, Result, Success

from thrift_fp.records._errors import StoreError, StoreFailed, ValueNotFound
from thrift_fp.records._reader import SpoolReader
from thrift_fp.records._store import StoreReader, Writable, check_id, checked_chunks

_SCHEMA: Final = (
    "CREATE TABLE IF NOT EXISTS spool_chunks ("
    " id TEXT NOT NULL, seq INTEGER NOT NULL, chunk BLOB NOT NULL, PRIMARY KEY (id, seq))"
)
_HAS_TABLE: Final = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'spool_chunks'"
# A writer holding the lock makes others wait this long before giving up with an error value.
_BUSY_SECONDS: Final = 30.0


@dataclass(frozen=True, slots=True, init=False)
class SqliteStore:
    """Values in the SQLite file ``path`` (made absolute; created on first write).

    A value is stored as rows of at most 1 MiB (``seq`` 0, 1, ...), so a reader streams it one row
    at a time instead of loading it whole. A write deletes the old rows and inserts the new ones in
    one ``BEGIN IMMEDIATE`` transaction: a reader, or a crash, sees the old value or the new one.
    Each operation opens its own connection, so a store may be shared across threads.

    >>> import os, tempfile
    >>> store = SqliteStore(os.path.join(tempfile.mkdtemp(), "spool.db"))
    >>> store.write("doc", "one\\ntwo").unwrap().line(1).unwrap()
    'two'
    """

    path: str

    def __init__(self, path: str | os.PathLike[str]) -> None:
        # Any path-like is accepted; the store holds it as an absolute str (what descriptors record).
        object.__setattr__(self, "path", os.path.abspath(os.fspath(path)))

    @property
    def kind(self) -> str:
        """The store kind, as written in reader descriptors."""
        return "sqlite"

    @property
    def location(self) -> str:
        """Where the store lives, as written in reader descriptors."""
        return self.path

    def write(self, id: str, data: Writable) -> Result[SpoolReader, StoreError]:
        """Store ``data`` under ``id`` in one transaction, replacing any previous value.

        >>> import os, tempfile
        >>> store = SqliteStore(os.path.join(tempfile.mkdtemp(), "spool.db"))
        >>> store.write("doc", b"\\xff").failure().message
        "value for id 'doc' is not UTF-8 text: ..."
        """
        checked: Result[str, StoreError] = check_id(id)
        if isinstance(checked, Failure):
            return checked
        try:
            connection = self._connect(create=True)
        except sqlite3.Error as exc:
            return Failure(StoreFailed("write", id, f"cannot open {self.path!r}: {exc}", exc))
        try:
            connection.execute("BEGIN IMMEDIATE")
            connection.execute("DELETE FROM spool_chunks WHERE id = ?", (id,))
            for seq, chunk in enumerate(checked_chunks(id, data)):
                if isinstance(chunk, Failure):
                    connection.execute("ROLLBACK")
                    return chunk
                connection.execute("INSERT INTO spool_chunks (id, seq, chunk) VALUES (?, ?, ?)", (id, seq, chunk.unwrap()))
            connection.execute("COMMIT")
        except sqlite3.Error as exc:
            if connection.in_transaction:
                connection.execute("ROLLBACK")
            return Failure(StoreFailed("write", id, str(exc), exc))
        finally:
            connection.close()
        return Success(self._reader(id))

    def read(self, id: str) -> Result[SpoolReader, StoreError]:
        """A reader for ``id``.

        >>> import os, tempfile
        >>> SqliteStore(os.path.join(tempfile.mkdtemp(), "spool.db")).read("nope").failure().message
        "no value stored under id 'nope' in sqlite store ..."
        """
        return self.size(id).map(lambda _: self._reader(id))

    def delete(self, id: str) -> Result[bool, StoreError]:
        """Remove ``id``; ``True`` when it was there.

        >>> import os, tempfile
        >>> store = SqliteStore(os.path.join(tempfile.mkdtemp(), "spool.db"))
        >>> _ = store.write("doc", "x")
        >>> store.delete("doc").unwrap(), store.delete("doc").unwrap()
        (True, False)
        """
        checked: Result[str, StoreError] = check_id(id)
        if isinstance(checked, Failure):
            return checked
        if not os.path.exists(self.path):
            return Success(False)
        try:
            connection = self._connect(create=False)
            try:
                with connection:
                    removed = (
                        connection.execute("DELETE FROM spool_chunks WHERE id = ?", (id,)).rowcount
                        if connection.execute(_HAS_TABLE).fetchone()
                        else 0
                    )
            finally:
                connection.close()
        except sqlite3.Error as exc:
            return Failure(StoreFailed("delete", id, str(exc), exc))
        return Success(removed > 0)

    def size(self, id: str) -> Result[int, StoreError]:
        """Byte length of ``id``'s value, summed by SQLite without reading the rows into Python.

        >>> import os, tempfile
        >>> store = SqliteStore(os.path.join(tempfile.mkdtemp(), "spool.db"))
        >>> _ = store.write("doc", "é")
        >>> store.size("doc").unwrap()
        2
        """
        checked: Result[str, StoreError] = check_id(id)
        if isinstance(checked, Failure):
            return checked
        if not os.path.exists(self.path):
            return Failure(self._missing(id))
        try:
            connection = self._connect(create=False)
            try:
                rows, total = (
                    connection.execute(
                        "SELECT count(*), coalesce(sum(length(chunk)), 0) FROM spool_chunks WHERE id = ?", (id,)
                    ).fetchone()
                    if connection.execute(_HAS_TABLE).fetchone()
                    else (0, 0)
                )
            finally:
                connection.close()
        except sqlite3.Error as exc:
            return Failure(StoreFailed("read", id, str(exc), exc))
        return Success(int(total)) if rows else Failure(self._missing(id))

    def chunks(self, id: str) -> Iterator[Result[bytes, StoreError]]:
        """``id``'s value row by row, inside one read transaction (a concurrent write is not seen).

        >>> import os, tempfile
        >>> store = SqliteStore(os.path.join(tempfile.mkdtemp(), "spool.db"))
        >>> _ = store.write("doc", "ab")
        >>> [chunk.unwrap() for chunk in store.chunks("doc")]
        [b'ab']
        """
        checked: Result[str, StoreError] = check_id(id)
        if isinstance(checked, Failure):
            yield checked
            return
        if not os.path.exists(self.path):
            yield Failure(self._missing(id))
            return
        try:
            connection = self._connect(create=False)
        except sqlite3.Error as exc:
            yield Failure(StoreFailed("read", id, str(exc), exc))
            return
        try:
            connection.execute("BEGIN")
            found = False
            if not connection.execute(_HAS_TABLE).fetchone():
                yield Failure(self._missing(id))
                return
            cursor = connection.execute("SELECT chunk FROM spool_chunks WHERE id = ? ORDER BY seq", (id,))
            while True:
                row = cursor.fetchone()
                if row is None:
                    break
                found = True
                yield Success(bytes(row[0]))
            if not found:
                yield Failure(self._missing(id))
        except sqlite3.Error as exc:
            yield Failure(StoreFailed("read", id, str(exc), exc))
        finally:
            connection.close()

    def _connect(self, *, create: bool) -> sqlite3.Connection:
        # Autocommit mode: this module issues BEGIN/COMMIT itself, one transaction per write.
        # Only writes create the table: a lookup must not write to a database it was pointed at.
        connection = sqlite3.connect(self.path, timeout=_BUSY_SECONDS, isolation_level=None)
        if create:
            try:
                connection.execute(_SCHEMA)
            except sqlite3.Error:
                connection.close()
                raise
        return connection

    def _reader(self, id: str) -> StoreReader:
        return StoreReader(self, self.kind, self.location, id)

    def _missing(self, id: str) -> ValueNotFound:
        return ValueNotFound(f"sqlite store {self.path!r}", id)
