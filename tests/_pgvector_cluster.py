"""A pytest plugin handing the pgvector tests the server named by ``THRIFT_FP_TEST_PGVECTOR_URL``.

As `tests._postgres_cluster` does for ``THRIFT_FP_TEST_PG_URL``: the suite never starts a
server; with the variable set, the tests using ``pgvector_url`` run against that server (a
PostgreSQL with the ``vector`` extension available, such as the one ``.ci/pgvector.sh``
starts), each in its own schema; without it they are skipped with one line saying how to run
them. ``THRIFT_FP_REQUIRE_PGVECTOR=1`` (set by ``.ci/run``) turns every skipped pgvector test
into a failure.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final

import pytest

from tests._server_tests import ServerTests, fresh_schema

URL_ENV: Final = "THRIFT_FP_TEST_PGVECTOR_URL"
REQUIRE_ENV: Final = "THRIFT_FP_REQUIRE_PGVECTOR"
HOW_TO_RUN: Final = (
    f"pgvector tests skipped: {URL_ENV} is not set; run them with "
    f'{URL_ENV}="$(bash .ci/pgvector.sh start DIR)" python -m pytest (stop: bash .ci/pgvector.sh stop DIR), or .ci/run'
)
SERVER: Final = ServerTests(
    kind="pgvector", server="the PostgreSQL server with pgvector", url_env=URL_ENV, require_env=REQUIRE_ENV,
    marker="pgvector_server",  # not a folder name: keywords hold those too
    how_to_run=HOW_TO_RUN, fixtures=frozenset({"pgvector_url", "pgvector_base_url"}),
)


def pytest_configure(config: pytest.Config) -> None:
    """Hand pytest the hooks of SERVER (its own pytest_configure runs at once)."""
    SERVER.register(config)


@pytest.fixture(scope="session")
def pgvector_base_url() -> str:
    """The URL of the pgvector server's test database, as the environment gives it."""
    return SERVER.base_url()


def _create_vector(admin: Any) -> None:
    with admin.transaction():
        # Two test processes at once: one creates, the other waits and finds it.
        admin.execute("SELECT pg_advisory_xact_lock(hashtextextended('thrift_fp tests vector', 0))")
        admin.execute("CREATE EXTENSION IF NOT EXISTS vector SCHEMA public")


@pytest.fixture
def pgvector_url(pgvector_base_url: str) -> Iterator[str]:
    """The URL of a fresh, empty schema in the pgvector server (dropped afterwards); the database's
    ``vector`` extension is created in ``public``, as an operator would, so the schema finds it by
    its schema, not on its search path."""
    with fresh_schema(pgvector_base_url, "v_", _create_vector) as url:
        yield url
