"""What ``thrift-fp serve`` does once its options are read: pick the source, check the
settings, run the server."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from returns.result import Failure, Result, Success

from thrift_fp._errors import ThriftFpError
from thrift_fp.serve._backend import Backend, SqliteBackend
from thrift_fp.serve._errors import InvalidSetting
from thrift_fp.serve._handshake import EMBEDDED_NAME, Handshake
from thrift_fp.serve._run import run_server
from thrift_fp.serve._settings import MAX_REQUEST_BYTES, SESSION_IDLE_TIMEOUT, serve_settings
from thrift_fp.serve._shared_http import SharedSessions
from thrift_fp.sources import PathNotFound

_URL_SCHEMES = ("postgresql://", "postgres://")


def open_backend(db: str | None, embedded: Callable[[], Path], dense: bool = True) -> Result[Backend, ThriftFpError]:
    """The source ``--db`` names: a ``postgresql://`` URL, an index file, or (``None``) the
    embedded corpus's index, which ``embedded()`` builds or finds; ranked hybrid where it holds
    vectors of the installed model unless ``dense`` is off.

    >>> open_backend("/nonexistent/docs.db", lambda: Path("x")).failure().message
    'no such file or folder: /nonexistent/docs.db'
    >>> open_backend(None, lambda: Path("cache/embedded.db")).unwrap()
    SqliteBackend(database=PosixPath('cache/embedded.db'), dense=True, name='the thrift_fp documentation')
    """
    if db is not None and db.lower().startswith(_URL_SCHEMES):
        try:
            # psycopg loads only for a URL.
            from thrift_fp.serve._postgres import open_postgres_backend  # noqa: PLC0415
        except ImportError as exc:
            # The URL is not shown: it may hold a password.
            return Failure(InvalidSetting("db", "postgresql://…", f"needs the postgres extra ({exc}): pip install 'thrift_fp[postgres]'"))
        opened: Result[Backend, ThriftFpError] = open_postgres_backend(db, dense=dense)
        return opened
    if db is None:
        return Success(SqliteBackend(embedded(), dense, EMBEDDED_NAME))
    if not Path(db).exists():
        return Failure(PathNotFound(db))
    return Success(SqliteBackend(Path(db), dense))


def serve_command(
    db: str | None,
    embedded: Callable[[], Path],
    *,
    http: str | None,
    allow_remote: bool,
    default_budget: int,
    max_budget: int,
    max_calls: int,
    max_session_tokens: int,
    max_results: int,
    encoding: str,
    tiers: Iterable[str],
    lexical: bool = False,
    session_idle_timeout: float = SESSION_IDLE_TIMEOUT,
    max_request_bytes: int = MAX_REQUEST_BYTES,
    first: bytes = b"",
    handshake: Handshake | None = None,
) -> Result[None, ThriftFpError]:
    """Check the settings, open the source, serve until the client or an interrupt ends it
    (on stdio, ``first`` and ``handshake`` are the frame read and answered before the SDK
    loaded: `thrift_fp.serve._server.serve_stdio`).

    >>> serve_command(None, lambda: Path("x.db"), http=None, allow_remote=False, default_budget=0,
    ...               max_budget=10, max_calls=1, max_session_tokens=1, max_results=1, encoding="cl100k_base",
    ...               tiers=["first-party"]).failure().message
    'serve: default_budget = 0: must be at least 1'
    """
    settings = serve_settings(
        default_budget=default_budget, max_budget=max_budget, max_calls=max_calls,
        max_session_tokens=max_session_tokens, max_results=max_results, encoding=encoding, tiers=tiers,
        session_idle_timeout=session_idle_timeout, max_request_bytes=max_request_bytes,
    )
    if isinstance(settings, Failure):
        return Failure(settings.failure())
    backend = open_backend(db, embedded, dense=not lexical)
    if isinstance(backend, Failure):
        return Failure(backend.failure())
    shared = shared_sessions(backend.unwrap()) if http is not None else Success(None)
    if isinstance(shared, Failure):
        return Failure(shared.failure())
    served: Result[None, ThriftFpError] = run_server(
        backend.unwrap(), settings.unwrap(), http=http, allow_remote=allow_remote, shared=shared.unwrap(),
        first=first, handshake=handshake,
    )
    return served


def shared_sessions(backend: Backend) -> Result[SharedSessions | None, ThriftFpError]:
    """The sessions kept in ``backend``'s database when it is PostgreSQL (its ledger tables
    created on first use), so every HTTP server of that database serves every session; ``None``
    for an index file (one process, sessions in its memory).

    >>> shared_sessions(SqliteBackend(Path("docs.db")))
    <Success: None>
    """
    if isinstance(backend, SqliteBackend):
        return Success(None)
    # psycopg loads only for a database.
    from thrift_fp.serve._ledger_postgres import open_postgres_sessions  # noqa: PLC0415
    from thrift_fp.serve._postgres import PostgresBackend  # noqa: PLC0415

    if not isinstance(backend, PostgresBackend):
        return Success(None)
    opened: Result[SharedSessions | None, ThriftFpError] = open_postgres_sessions(backend.database)
    return opened
