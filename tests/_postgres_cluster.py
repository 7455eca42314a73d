"""A pytest plugin handing the PostgreSQL tests the server named by ``THRIFT_FP_TEST_PG_URL``.

The suite never starts, installs or configures a server: with the variable set, the PostgreSQL
tests (those using ``pg_url`` or ``pg_base_url``, and the doctests that read the variable) run
against that server, each test in its own schema; without it they are skipped, and the run ends
with one line saying how to run them. ``THRIFT_FP_REQUIRE_PG=1`` (set by ``.ci/run``) turns every
skipped PostgreSQL test, whatever skipped it, into a failure, so CI cannot pass without them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

import pytest

from tests._server_tests import ServerTests, fresh_schema

URL_ENV: Final = "THRIFT_FP_TEST_PG_URL"
REQUIRE_ENV: Final = "THRIFT_FP_REQUIRE_PG"
HOW_TO_RUN: Final = (
    f"PostgreSQL tests skipped: {URL_ENV} is not set; run them with "
    f'{URL_ENV}="$(bash .ci/postgres.sh start DIR)" python -m pytest (stop: bash .ci/postgres.sh stop DIR), or .ci/run'
)
# The tests using `pg_url` or `pg_base_url`, those of a fixture parametrized "postgres", and the
# doctests that read URL_ENV.
SERVER: Final = ServerTests(kind="PostgreSQL", server="the PostgreSQL server", marker="postgres", url_env=URL_ENV,
                            require_env=REQUIRE_ENV, how_to_run=HOW_TO_RUN, fixtures=frozenset({"pg_url", "pg_base_url"}))


def pytest_configure(config: pytest.Config) -> None:
    """Hand pytest the hooks of SERVER (its own pytest_configure runs at once)."""
    SERVER.register(config)


@pytest.fixture(scope="session")
def pg_base_url() -> str:
    """The URL of the test server's database, as the environment gives it."""
    return SERVER.base_url()


@pytest.fixture
def pg_url(pg_base_url: str) -> Iterator[str]:
    """The URL of a fresh, empty schema in the test server (dropped afterwards)."""
    with fresh_schema(pg_base_url, "t_") as url:
        yield url
