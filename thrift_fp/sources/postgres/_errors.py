"""The errors the PostgreSQL source returns as values, and connection strings without passwords.

This module imports no driver: the command line and the error union need it even where the
``postgres`` extra is not installed. Every ``url`` field holds a redacted connection string.
"""

from __future__ import annotations

from thrift_fp.sources.postgres import _secrets
# Here for the face and older imports; its home is _secrets, which loads no library layer.
from thrift_fp.sources.postgres._secrets import URL_SCHEMES as URL_SCHEMES
from thrift_fp.sources.postgres._secrets import is_database_url as is_database_url

from thrift_fp.sources.contract import AssembleError, SourceError
from thrift_fp._errors import ErrorValue


def redact(conninfo: str) -> str:
    """The connection string with its password replaced by ``***`` (URL or ``key=value`` form).

    >>> redact("postgresql://ann:s3cret@db.example/docs?sslmode=require")
    'postgresql://ann:***@db.example/docs?sslmode=require'
    >>> redact("postgresql:///docs?host=/run/pg&password=s3cret")
    'postgresql:///docs?host=/run/pg&password=***'
    >>> redact("host=/run/pg password='two words' dbname=docs")
    'host=/run/pg password=*** dbname=docs'
    """
    try:
        from psycopg.conninfo import conninfo_to_dict  # noqa: PLC0415 - the driver's own parser, when installed
    except ImportError:
        return _secrets.redact(conninfo)
    return _secrets.redact(conninfo, conninfo_to_dict)


def scrub(text: str, password: str | tuple[str, ...] | None) -> str:
    """``text`` (a driver's message) without ``password`` in any spelling (or without each of the
    `secret_forms` of a connection string, given as a tuple).

    >>> scrub("bad URL postgresql://ann:hunter%3F2@x", "hunter?2")
    'bad URL postgresql://ann:***@x'
    """
    if password is None:
        return text
    return _secrets.scrub(text, _secrets.password_forms(password) if isinstance(password, str) else password)


class PostgresExtraMissing(
    ErrorValue,
    template="PostgreSQL support needs the postgres extra ({reason}): pip install 'thrift_fp[postgres]'",
):
    """``psycopg``/``psycopg_pool`` are not installed (the ``postgres`` extra)."""

    reason: str


class _ConnectFailed(ErrorValue):
    """Connecting to ``url`` (redacted) failed; ``reason`` is the driver's message."""

    url: str
    reason: str


class InvalidDatabaseUrl(_ConnectFailed, template="{url} is not a valid PostgreSQL connection string: {reason!l}"):
    """The connection string cannot be parsed."""


class DatabaseUnreachable(_ConnectFailed, template="cannot reach PostgreSQL at {url}: {reason!l}"):
    """No server answered at the address (not running, wrong host, port or socket, timeout)."""


class AuthenticationFailed(
    _ConnectFailed,
    template="PostgreSQL at {url} refused the credentials: {reason!l}; check the user and password",
):
    """The server refused the user name or password."""


class DatabaseNotFound(_ConnectFailed, template="{reason!l} at {url}; create it first (createdb), or fix the URL"):
    """The server is there but the database named in the URL is not."""


class SchemaMissing(
    ErrorValue,
    template="{url} has no thrift_fp schema; build an index first with `thrift-fp index PATH... --db {url}`",
):
    """The database holds no thrift_fp tables (nothing was ever indexed into it)."""

    url: str


class SchemaVersionMismatch(
    ErrorValue,
    template="{url} holds thrift_fp schema version {stored}, this thrift_fp uses {expected}; "
    "nothing was changed: use the thrift_fp version that wrote it, or index into another database",
):
    """The database was set up by a thrift_fp with another schema version; nothing is migrated."""

    url: str
    stored: str
    expected: str


class CollectionMissing(ErrorValue, template="{url} has no collection {_collection_repr}; index into it first"):
    """A search named a collection that was never indexed in this database."""

    url: str
    collection: str

    @property
    def _collection_repr(self) -> str:
        # Python's own repr, not the template's ``!r``: the name is shown whole, never cut.
        return repr(self.collection)


class UnknownTextSearchConfig(
    ErrorValue,
    template="PostgreSQL at {url} has no text search configuration {_config_repr}"
    " (`SELECT cfgname FROM pg_ts_config` lists them)",
):
    """The text search configuration (``english``, ``simple``, ...) does not exist on the server."""

    url: str
    config: str

    @property
    def _config_repr(self) -> str:
        # Python's own repr, not the template's ``!r``: the name is shown whole, never cut.
        return repr(self.config)


class ConnectionLost(
    ErrorValue,
    template="lost the connection to {url} after {committed_batches} of {total_batches} batches ({reason!l});"
    " the batch in flight was rolled back: run the same index again",
):
    """The connection dropped mid-run; the batch in flight was rolled back, earlier ones are kept."""

    url: str
    committed_batches: int
    total_batches: int
    reason: str


class IndexInterrupted(
    ErrorValue,
    template="indexing into {url} stopped after {committed_batches} of {total_batches} batches: {reason!l};"
    " the batch in flight was rolled back",
):
    """The caller's progress callback raised; the batch in flight was rolled back, earlier ones kept."""

    url: str
    committed_batches: int
    total_batches: int
    reason: str
    cause: BaseException | None = None


class PostgresQueryFailed(
    ErrorValue,
    template="PostgreSQL at {url} failed to {operation}: {reason!l} (nothing was half-written)",
):
    """The server refused a statement (permissions, resources, a damaged schema)."""

    url: str
    operation: str
    reason: str
    cause: BaseException | None = None


PostgresError = (
    PostgresExtraMissing
    | InvalidDatabaseUrl
    | DatabaseUnreachable
    | AuthenticationFailed
    | DatabaseNotFound
    | SchemaMissing
    | SchemaVersionMismatch
    | CollectionMissing
    | UnknownTextSearchConfig
    | ConnectionLost
    | IndexInterrupted
    | PostgresQueryFailed
)

PostgresSourceError = PostgresError | SourceError
"""What the PostgreSQL source's stages return: its own errors and the shared source errors."""

PostgresAssembleError = AssembleError | PostgresError
"""What the PostgreSQL ``assemble`` returns: the SQLite ``assemble``'s errors and the PostgreSQL ones."""
