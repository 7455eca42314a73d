"""A test-only ``serve --http`` worker on a PostgreSQL database, sessions shared through it, whose
search blocks for a question holding "slowly" until its call is cancelled (see `tests._serve_slow`).

    python -m tests._serve_slow_shared DATABASE_URL STARTED_FILE
"""

from __future__ import annotations

import sys
from pathlib import Path

import anyio

from tests._serve_slow import SlowBackend
from thrift_fp.serve import build_server, serve_http, serve_settings
from thrift_fp.serve._ledger_postgres import open_postgres_sessions
from thrift_fp.serve._postgres import open_postgres_backend
from thrift_fp.serve._server import announce


def main(url: str, started: str) -> None:
    backend = open_postgres_backend(url).unwrap()
    shared = open_postgres_sessions(backend.database).unwrap()
    server = build_server(SlowBackend(backend, Path(started)), serve_settings(max_calls=5, default_budget=300).unwrap(), sessions=shared)  # type: ignore[arg-type]  # any backend shape
    anyio.run(serve_http, server, "127.0.0.1", 0, announce, shared)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
