"""The PostgreSQL schema, opening a database through a connection pool, and driver errors as values.

Tables carry the ``thrift_fp_`` prefix and live in the connection's ``search_path`` (set one
with ``?options=-csearch_path%3Dmy_schema`` in the URL). Every table is keyed by collection
first, so a collection can become a partition (see the scaling notes in the README).
"""

from __future__ import annotations

from dataclasses import field
from typing import Final

import psycopg
from psycopg.conninfo import conninfo_to_dict
from psycopg_pool import ConnectionPool, PoolTimeout
from returns.result import Failure, Result, Success

from thrift_fp._value import value
from thrift_fp.sources.postgres._errors import (
    AuthenticationFailed,
    DatabaseNotFound,
    DatabaseUnreachable,
    InvalidDatabaseUrl,
    PostgresError,
    PostgresQueryFailed,
    SchemaMissing,
    SchemaVersionMismatch,
    redact,
    scrub,
)
from thrift_fp.sources.postgres._secrets import invalid_port, secret_forms
from thrift_fp.sources.postgres._statistics import ensure_statistics

SCHEMA_VERSION: Final = 2
"""The version of the tables this release reads and writes (`SchemaVersionMismatch` otherwise)."""
DEFAULT_POOL_SIZE: Final = 8
DEFAULT_TIMEOUT: Final = 10.0
APPLICATION_NAME: Final = "thrift_fp"

# Each passage keeps its analyzed fields (see `analyze`: the same terms the SQLite source
# keeps) and `lexicon`, the distinct terms of all three, under a GIN index that finds each
# question term's passages; the score is computed by the shared ranking from the fields, so
# both stores rank alike. The GIN index is built without a pending list (fastupdate off):
# an index run leaves it merged, and the first searches after a run are as fast as later ones.
# `ts_config` is the collection's text search configuration as given by its first run.
SCHEMA: Final = """
CREATE TABLE thrift_fp_schema (
    singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    version integer NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE thrift_fp_collections (
    collection text PRIMARY KEY,
    encoding text NOT NULL,
    max_tokens integer NOT NULL,
    ts_config regconfig NOT NULL,
    analyzer text NOT NULL
);
CREATE TABLE thrift_fp_files (
    collection text NOT NULL REFERENCES thrift_fp_collections ON DELETE CASCADE,
    path text NOT NULL,
    source text NOT NULL,
    kind text NOT NULL,
    trust_tier text NOT NULL,
    mtime_ns bigint NOT NULL,
    size bigint NOT NULL,
    sha256 text NOT NULL,
    checked_ns bigint NOT NULL,
    PRIMARY KEY (collection, path),
    UNIQUE (collection, source)
);
CREATE TABLE thrift_fp_passages (
    id bigint GENERATED ALWAYS AS IDENTITY,
    collection text NOT NULL,
    path text NOT NULL,
    passage_id text NOT NULL,
    source text NOT NULL,
    ordinal integer NOT NULL,
    kind text NOT NULL,
    trust_tier text NOT NULL
        CHECK (trust_tier IN ('first-party', 'third-party-public', 'third-party-private')),
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    content_hash text NOT NULL,
    tokens integer NOT NULL,
    heading_path text NOT NULL,
    text text NOT NULL,
    metadata jsonb NOT NULL,
    body_terms text NOT NULL,
    heading_terms text NOT NULL,
    trail_terms text NOT NULL,
    body_length integer NOT NULL,
    heading_length integer NOT NULL,
    trail_length integer NOT NULL,
    lexicon text[] NOT NULL,
    PRIMARY KEY (collection, id),
    UNIQUE (collection, passage_id),
    FOREIGN KEY (collection, path) REFERENCES thrift_fp_files ON DELETE CASCADE
);
CREATE INDEX thrift_fp_passages_lexicon ON thrift_fp_passages USING gin (lexicon) WITH (fastupdate = off);
CREATE INDEX thrift_fp_passages_file ON thrift_fp_passages (collection, path);
"""

DEFAULT_COLLECTION: Final = "default"
"""The collection an index run and a search use unless told otherwise."""


@value
class PostgresDatabase:
    """An open PostgreSQL database: its redacted ``url`` and a thread-safe connection pool.

    Open one with `open_database`, share it between threads, ``close()`` it (or use ``with``).
    """

    url: str
    pool: ConnectionPool = field(repr=False)
    password: str | None = field(repr=False, default=None)

    def close(self) -> None:
        """Close every pooled connection.

        >>> import os
        >>> database = open_database(os.environ["THRIFT_FP_TEST_PG_URL"], create=True).unwrap()
        >>> database.close(); database.pool.closed
        True
        """
        self.pool.close()

    def __enter__(self) -> PostgresDatabase:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def open_database(
    conninfo: str,
    *,
    create: bool = False,
    pool_size: int = DEFAULT_POOL_SIZE,
    timeout: float = DEFAULT_TIMEOUT,
) -> Result[PostgresDatabase, PostgresError]:
    """Connect to ``conninfo`` (a ``postgresql://`` URL or libpq ``key=value`` string) and check the
    schema: missing → `SchemaMissing` (or created, with ``create=True``), another version →
    `SchemaVersionMismatch`. Never migrates. Errors name the URL with its password redacted.

    >>> import os
    >>> with open_database(os.environ["THRIFT_FP_TEST_PG_URL"], create=True).unwrap() as database:
    ...     "***" in database.url or "@" not in database.url
    True
    >>> open_database("postgresql://ann:hunter2@/docs?host=/nonexistent").failure().message
    'cannot reach PostgreSQL at postgresql://ann:***@/docs?host=/nonexistent: connection to server on socket ...'
    """
    shown = redact(conninfo)
    hidden = secret_forms(conninfo, conninfo_to_dict)
    try:
        params = conninfo_to_dict(conninfo)
    except (psycopg.Error, ValueError) as exc:  # ValueError: a percent-escape that is not UTF-8
        return Failure(InvalidDatabaseUrl(shown, scrub(str(exc) or type(exc).__name__, hidden)))
    bad_port = invalid_port(str(params.get("port") or ""))
    if bad_port is not None:
        return Failure(InvalidDatabaseUrl(shown, bad_port))
    password = params.get("password")
    secret = str(password) if password is not None else None
    options = {
        "autocommit": True,
        "fallback_application_name": APPLICATION_NAME,
        "connect_timeout": max(1, round(timeout)),
    }
    try:
        probe = psycopg.connect(conninfo, **options)  # type: ignore[arg-type]  # libpq keywords
    except psycopg.Error as exc:
        return Failure(connect_error(exc, shown, hidden))
    try:
        checked = ensure_schema(probe, shown) if create else check_schema(probe, shown)
    except psycopg.Error as exc:
        return Failure(query_error(exc, shown, hidden, "check the thrift_fp schema"))
    finally:
        probe.close()
    if isinstance(checked, Failure):
        return Failure(checked.failure())
    pool = ConnectionPool(
        conninfo,
        min_size=1,
        max_size=max(1, pool_size),
        kwargs=options,
        open=False,
        timeout=timeout,
        check=ConnectionPool.check_connection,
        name=APPLICATION_NAME,
    )
    try:
        pool.open(wait=True, timeout=timeout)
    except PoolTimeout as exc:
        pool.close()
        return Failure(DatabaseUnreachable(shown, scrub(str(exc), hidden)))
    return Success(PostgresDatabase(shown, pool, secret))


def check_schema(connection: psycopg.Connection[tuple[object, ...]], url: str) -> Result[None, PostgresError]:
    """`SchemaMissing` or `SchemaVersionMismatch` unless the thrift_fp schema of this version is there."""
    row = connection.execute("SELECT to_regclass('thrift_fp_schema') IS NOT NULL").fetchone()
    if row is None or not row[0]:
        return Failure(SchemaMissing(url))
    version = connection.execute("SELECT version FROM thrift_fp_schema").fetchone()
    stored = "none" if version is None else str(version[0])
    if stored != str(SCHEMA_VERSION):
        return Failure(SchemaVersionMismatch(url, stored, str(SCHEMA_VERSION)))
    return Success(None)


def ensure_schema(connection: psycopg.Connection[tuple[object, ...]], url: str) -> Result[None, PostgresError]:
    """Create the schema in one transaction unless it is there, and the ranking statistics a database
    made before them lacks (`ensure_statistics`); concurrent callers wait on a lock."""
    with connection.transaction():
        connection.execute("SELECT pg_advisory_xact_lock(hashtextextended('thrift_fp schema', 0))")
        row = connection.execute("SELECT to_regclass('thrift_fp_schema') IS NOT NULL").fetchone()
        if row is not None and not row[0]:
            connection.execute(SCHEMA)
            connection.execute("INSERT INTO thrift_fp_schema (version) VALUES (%s)", (SCHEMA_VERSION,))
        checked = check_schema(connection, url)
        if isinstance(checked, Success):
            ensure_statistics(connection)
    return checked


_AUTHENTICATION: Final = (
    "password authentication failed",
    "no password supplied",
    "authentication failed",
    "role \"",
    "fe_sendauth",
)


def connect_error(exc: psycopg.Error, url: str, password: str | tuple[str, ...] | None) -> PostgresError:
    """The error value for a failed connection attempt (libpq gives no SQLSTATE here: by message)."""
    reason = scrub(str(exc), password)
    for prefix in ("connection failed: ", "connection is bad: "):
        reason = reason.removeprefix(prefix)
    if reason.startswith("invalid ") or reason.startswith("could not match "):
        # libpq's own checks of the options (a non-numeric port, an unknown sslmode), before any
        # connection: the string is wrong, the server was never asked.
        return InvalidDatabaseUrl(url, reason)
    server_said = reason.split("FATAL:", 1)[-1].strip()
    if 'database "' in server_said and "does not exist" in server_said:
        return DatabaseNotFound(url, server_said)
    if any(marker in server_said for marker in _AUTHENTICATION):
        return AuthenticationFailed(url, server_said)
    return DatabaseUnreachable(url, reason)


def query_error(
    exc: psycopg.Error, url: str, password: str | tuple[str, ...] | None, operation: str
) -> PostgresError:
    """The error value for a failed statement: a dropped link, a missing table, or a refusal."""
    reason = scrub(str(exc).splitlines()[0] if str(exc) else type(exc).__name__, password)
    if isinstance(exc, psycopg.errors.UndefinedTable):
        return SchemaMissing(url)
    if isinstance(exc, psycopg.OperationalError) and not isinstance(exc, psycopg.errors.QueryCanceled):
        return DatabaseUnreachable(url, f"the connection was lost while trying to {operation}: {reason}")
    return PostgresQueryFailed(url, operation, reason, exc)
