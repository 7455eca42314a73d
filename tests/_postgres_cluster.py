"""A pytest plugin giving the PostgreSQL tests a real server, and each test its own schema.

``.ci/run`` starts a throwaway cluster (``.ci/postgres.sh``) and exports its URL as
``THRIFT_FP_TEST_PG_URL``. Under ``CI=true`` a missing URL is an error, never a skip. Locally,
when the URL is absent and the run collected a PostgreSQL test, the plugin starts a cluster
with the same script and stops it at the end.
"""

from __future__ import annotations

import os
import secrets
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Final
from urllib.parse import quote

import pytest

URL_ENV: Final = "THRIFT_FP_TEST_PG_URL"
_SCRIPT: Final = Path(__file__).resolve().parent.parent / ".ci" / "postgres.sh"
_started: list[Path] = []


def _needs_postgres(item: pytest.Item) -> bool:
    return "postgres" in item.nodeid or "contract" in item.nodeid


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    """Make sure a server is there before any PostgreSQL test runs (doctests included)."""
    if os.environ.get(URL_ENV) or not any(_needs_postgres(item) for item in items):
        return
    if os.environ.get("CI") == "true":
        raise pytest.UsageError(
            f"{URL_ENV} is not set under CI=true: .ci/run must start PostgreSQL (.ci/postgres.sh) and export it"
        )
    folder = Path(tempfile.mkdtemp(prefix="thrift-fp-pg-"))
    _started.append(folder)
    started = subprocess.run(
        ["bash", str(_SCRIPT), "start", str(folder)], capture_output=True, text=True, check=False
    )
    if started.returncode != 0:
        raise pytest.UsageError(f"could not start PostgreSQL with {_SCRIPT}: {started.stderr.strip()}")
    os.environ[URL_ENV] = started.stdout.strip()


def pytest_unconfigure(config: pytest.Config) -> None:
    """Stop the cluster this plugin started (not one .ci/run started)."""
    while _started:
        subprocess.run(["bash", str(_SCRIPT), "stop", str(_started.pop())], capture_output=True, check=False)


def schema_url(base: str, schema: str) -> str:
    """``base`` with its ``search_path`` set to ``schema`` (libpq ``options``), so tests do not meet.

    >>> schema_url("postgresql://u:p@/db?host=/tmp/x", "t_1")
    'postgresql://u:p@/db?host=/tmp/x&options=-csearch_path%3Dt_1'
    """
    separator = "&" if "?" in base else "?"
    return f"{base}{separator}options={quote(f'-csearch_path={schema}', safe='')}"


@pytest.fixture
def pg_url() -> Iterator[str]:
    """The URL of a fresh, empty schema in the test server (dropped afterwards)."""
    import psycopg

    base = os.environ[URL_ENV]
    schema = f"t_{secrets.token_hex(6)}"
    with psycopg.connect(base, autocommit=True) as admin:
        admin.execute(f"CREATE SCHEMA {schema}")
    try:
        yield schema_url(base, schema)
    finally:
        with psycopg.connect(base, autocommit=True) as admin:
            admin.execute(f"DROP SCHEMA {schema} CASCADE")
