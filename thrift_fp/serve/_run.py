"""``thrift-fp serve``: settings and a source in, a server running on stdio or HTTP."""

from __future__ import annotations

import anyio
from returns.result import Failure, Result, Success

from thrift_fp.serve._address import http_address
from thrift_fp.serve._backend import Backend
from thrift_fp.serve._errors import InvalidSetting
from thrift_fp.serve._handshake import Handshake
from thrift_fp.serve._server import announce, build_server, serve_http, serve_stdio
from thrift_fp.serve._settings import ServeSettings
from thrift_fp.serve._shared_http import SharedSessions


def run_server(
    backend: Backend,
    settings: ServeSettings,
    *,
    http: str | None = None,
    allow_remote: bool = False,
    shared: SharedSessions | None = None,
    first: bytes = b"",
    handshake: Handshake | None = None,
) -> Result[None, InvalidSetting]:
    """Serve ``backend`` until the client (stdio) or an interrupt (HTTP) ends it; a bad
    ``http`` address is refused before anything starts. Over HTTP, ``shared`` sessions (kept
    in the database) let several servers serve each session; stdio has one client per process.
On stdio, ``first`` is a frame the command already read, and ``handshake`` its answer to it
when it was ``initialize`` (`serve_stdio`).

    >>> import pathlib
    >>> from thrift_fp.serve import SqliteBackend, serve_settings
    >>> run_server(SqliteBackend(pathlib.Path("x.db")), serve_settings().unwrap(), http="10.1.2.3:80").failure().name
    'http'
    """
    if http is None:
        server = build_server(backend, settings)
        anyio.run(serve_stdio, server, first, handshake)
        return Success(None)
    address = http_address(http, allow_remote=allow_remote)
    if isinstance(address, Failure):
        return Failure(address.failure())
    host, port = address.unwrap()
    server = build_server(backend, settings, sessions=shared)
    anyio.run(serve_http, server, host, port, announce, shared)
    return Success(None)
