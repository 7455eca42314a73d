"""The errors the PostgreSQL source returns as values, and connection strings without passwords.

This module imports no driver: the command line and the error union need it even where the
``postgres`` extra is not installed. Every ``url`` field holds a redacted connection string.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final
from urllib.parse import urlsplit

from thrift_fp.sources._answer import AssembleError
from thrift_fp.sources._errors import SourceError
from thrift_fp._errors import ThriftFpError

URL_SCHEMES: Final = ("postgresql://", "postgres://")
_HIDDEN: Final = "***"
# libpq key=value strings: `password = 'two words'`, `password=secret` (libpq escapes with \\).
_KEYWORD_PASSWORD: Final = re.compile(r"(\bpassword\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)", re.IGNORECASE)
# URL query parameters: `?host=/run/pg&password=secret`.
_QUERY_PASSWORD: Final = re.compile(r"((?:^|&)password=)[^&]*", re.IGNORECASE)


def is_database_url(value: str) -> bool:
    """Whether ``value`` names a PostgreSQL database (a ``postgresql://`` or ``postgres://`` URL).

    >>> is_database_url("postgresql://localhost/docs"), is_database_url("thrift-fp.db")
    (True, False)
    """
    return value.lower().startswith(URL_SCHEMES)


def redact(conninfo: str) -> str:
    """The connection string with its password replaced by ``***`` (URL or ``key=value`` form).

    >>> redact("postgresql://ann:s3cret@db.example/docs?sslmode=require")
    'postgresql://ann:***@db.example/docs?sslmode=require'
    >>> redact("postgresql:///docs?host=/run/pg&password=s3cret")
    'postgresql:///docs?host=/run/pg&password=***'
    >>> redact("host=/run/pg password='two words' dbname=docs")
    'host=/run/pg password=*** dbname=docs'
    """
    if not is_database_url(conninfo):
        return _KEYWORD_PASSWORD.sub(lambda match: match.group(1) + _HIDDEN, conninfo)
    try:
        parts = urlsplit(conninfo)
    except ValueError:
        return _KEYWORD_PASSWORD.sub(lambda match: match.group(1) + _HIDDEN, conninfo.split("@")[-1])
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, _, hosts = netloc.rpartition("@")
        user = userinfo.split(":", 1)[0]
        netloc = f"{user}:{_HIDDEN}@{hosts}" if ":" in userinfo else f"{user}@{hosts}"
    query = _QUERY_PASSWORD.sub(lambda match: match.group(1) + _HIDDEN, parts.query)
    # Not urlunsplit: it drops the empty host of `postgresql:///db?host=/run/pg`.
    return f"{parts.scheme}://{netloc}{parts.path}" + (f"?{query}" if query else "") + (
        f"#{parts.fragment}" if parts.fragment else ""
    )


def scrub(text: str, password: str | None) -> str:
    """``text`` (a driver's message) with every occurrence of ``password`` replaced by ``***``.

    >>> scrub("bad URL postgresql://ann:hunter2@x", "hunter2")
    'bad URL postgresql://ann:***@x'
    """
    return text.replace(password, _HIDDEN) if password else text


def _line(reason: str) -> str:
    # Driver messages span lines (libpq adds hints); an error value is one line.
    return " ".join(reason.split())


@dataclass(frozen=True, slots=True)
class PostgresExtraMissing(ThriftFpError):
    """``psycopg``/``psycopg_pool`` are not installed (the ``postgres`` extra)."""

    reason: str

    @property
    def message(self) -> str:
        return f"PostgreSQL support needs the postgres extra ({self.reason}): pip install 'thrift_fp[postgres]'"


@dataclass(frozen=True, slots=True)
class InvalidDatabaseUrl(ThriftFpError):
    """The connection string cannot be parsed."""

    url: str
    reason: str

    @property
    def message(self) -> str:
        return f"{self.url} is not a valid PostgreSQL connection string: {_line(self.reason)}"


@dataclass(frozen=True, slots=True)
class DatabaseUnreachable(ThriftFpError):
    """No server answered at the address (not running, wrong host, port or socket, timeout)."""

    url: str
    reason: str

    @property
    def message(self) -> str:
        return f"cannot reach PostgreSQL at {self.url}: {_line(self.reason)}"


@dataclass(frozen=True, slots=True)
class AuthenticationFailed(ThriftFpError):
    """The server refused the user name or password."""

    url: str
    reason: str

    @property
    def message(self) -> str:
        return f"PostgreSQL at {self.url} refused the credentials: {_line(self.reason)}; check the user and password"


@dataclass(frozen=True, slots=True)
class DatabaseNotFound(ThriftFpError):
    """The server is there but the database named in the URL is not."""

    url: str
    reason: str

    @property
    def message(self) -> str:
        return f"{_line(self.reason)} at {self.url}; create it first (createdb), or fix the URL"


@dataclass(frozen=True, slots=True)
class SchemaMissing(ThriftFpError):
    """The database holds no thrift_fp tables (nothing was ever indexed into it)."""

    url: str

    @property
    def message(self) -> str:
        return (
            f"{self.url} has no thrift_fp schema; build an index first with "
            f"`thrift-fp index PATH... --db {self.url}`"
        )


@dataclass(frozen=True, slots=True)
class SchemaVersionMismatch(ThriftFpError):
    """The database was set up by a thrift_fp with another schema version; nothing is migrated."""

    url: str
    stored: str
    expected: str

    @property
    def message(self) -> str:
        return (
            f"{self.url} holds thrift_fp schema version {self.stored}, this thrift_fp uses {self.expected}; "
            "nothing was changed: use the thrift_fp version that wrote it, or index into another database"
        )


@dataclass(frozen=True, slots=True)
class CollectionMissing(ThriftFpError):
    """A search named a collection that was never indexed in this database."""

    url: str
    collection: str

    @property
    def message(self) -> str:
        return f"{self.url} has no collection {self.collection!r}; index into it first"


@dataclass(frozen=True, slots=True)
class UnknownTextSearchConfig(ThriftFpError):
    """The text search configuration (``english``, ``simple``, ...) does not exist on the server."""

    url: str
    config: str

    @property
    def message(self) -> str:
        return (
            f"PostgreSQL at {self.url} has no text search configuration {self.config!r} "
            "(`SELECT cfgname FROM pg_ts_config` lists them)"
        )


@dataclass(frozen=True, slots=True)
class ConnectionLost(ThriftFpError):
    """The connection dropped mid-run; the batch in flight was rolled back, earlier ones are kept."""

    url: str
    committed_batches: int
    total_batches: int
    reason: str

    @property
    def message(self) -> str:
        return (
            f"lost the connection to {self.url} after {self.committed_batches} of {self.total_batches} "
            f"batches ({_line(self.reason)}); the batch in flight was rolled back: run the same index again"
        )


@dataclass(frozen=True, slots=True)
class IndexInterrupted(ThriftFpError):
    """The caller's progress callback raised; the batch in flight was rolled back, earlier ones kept."""

    url: str
    committed_batches: int
    total_batches: int
    reason: str
    cause: BaseException | None = None

    @property
    def message(self) -> str:
        return (
            f"indexing into {self.url} stopped after {self.committed_batches} of {self.total_batches} batches: "
            f"{_line(self.reason)}; the batch in flight was rolled back"
        )


@dataclass(frozen=True, slots=True)
class PostgresQueryFailed(ThriftFpError):
    """The server refused a statement (permissions, resources, a damaged schema)."""

    url: str
    operation: str
    reason: str
    cause: BaseException | None = None

    @property
    def message(self) -> str:
        return f"PostgreSQL at {self.url} failed to {self.operation}: {_line(self.reason)} (nothing was half-written)"


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
