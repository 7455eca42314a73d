"""A pytest plugin handing the pgvector tests the server named by ``THRIFT_FP_TEST_PGVECTOR_URL``.

As `tests._postgres_cluster` does for ``THRIFT_FP_TEST_PG_URL``: the suite never starts a
server; with the variable set, the tests using ``pgvector_url`` run against that server (a
PostgreSQL with the ``vector`` extension available, such as the one ``.ci/pgvector.sh``
starts), each in its own schema; without it they are skipped with one line saying how to run
them. ``THRIFT_FP_REQUIRE_PGVECTOR=1`` (set by ``.ci/run``) turns every skipped pgvector test
into a failure.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Generator, Iterator
from typing import Final

import pytest

from tests._postgres_cluster import schema_url

URL_ENV: Final = "THRIFT_FP_TEST_PGVECTOR_URL"
REQUIRE_ENV: Final = "THRIFT_FP_REQUIRE_PGVECTOR"
HOW_TO_RUN: Final = (
    f"pgvector tests skipped: {URL_ENV} is not set; run them with "
    f'{URL_ENV}="$(bash .ci/pgvector.sh start DIR)" python -m pytest (stop: bash .ci/pgvector.sh stop DIR), or .ci/run'
)
_MARKER: Final = "pgvector_server"  # not a folder name: keywords hold those too
_FIXTURES: Final = frozenset({"pgvector_url", "pgvector_base_url"})
_skipped: list[str] = []


def _required() -> bool:
    return os.environ.get(REQUIRE_ENV, "") not in ("", "0")


def pytest_configure(config: pytest.Config) -> None:
    """Register the ``pgvector`` marker; refuse to start when pgvector is required but not given."""
    config.addinivalue_line("markers", f"{_MARKER}: needs the PostgreSQL server with pgvector named by {URL_ENV}")
    if _required() and not os.environ.get(URL_ENV):
        raise pytest.UsageError(f"{REQUIRE_ENV} is set but {URL_ENV} is not: start a server and export its URL")


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the pgvector tests; without a server, skip them (one shared reason)."""
    available = bool(os.environ.get(URL_ENV))
    for item in items:
        if _FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(_MARKER)
            if not available:
                item.add_marker(pytest.mark.skip(reason=HOW_TO_RUN))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """When pgvector tests are required, a skipped one is a failure."""
    report = yield
    if report.skipped and item.get_closest_marker(_MARKER) is not None and _required():
        report.outcome = "failed"
        report.longrepr = f"{REQUIRE_ENV} is set and this pgvector test was skipped: {report.longrepr}"
    return report


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Count skipped pgvector tests where the summary is written (the controller under xdist)."""
    if report.skipped and _MARKER in report.keywords:
        _skipped.append(report.nodeid)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, exitstatus: int, config: pytest.Config) -> None:
    """One line for all the skipped pgvector tests, saying how to run them."""
    if _skipped and not _required():
        terminalreporter.write_line(f"{len(_skipped)} {HOW_TO_RUN}")


@pytest.fixture(scope="session")
def pgvector_base_url() -> str:
    """The URL of the pgvector server's test database, as the environment gives it."""
    url = os.environ.get(URL_ENV)
    if not url:
        pytest.skip(HOW_TO_RUN)
    return url


@pytest.fixture
def pgvector_url(pgvector_base_url: str) -> Iterator[str]:
    """The URL of a fresh, empty schema in the pgvector server (dropped afterwards); the database's
    ``vector`` extension is created in ``public``, as an operator would, so the schema finds it by
    its schema, not on its search path."""
    import psycopg

    schema = f"v_{secrets.token_hex(6)}"
    with psycopg.connect(pgvector_base_url, autocommit=True) as admin:
        with admin.transaction():
            # Two test processes at once: one creates, the other waits and finds it.
            admin.execute("SELECT pg_advisory_xact_lock(hashtextextended('thrift_fp tests vector', 0))")
            admin.execute("CREATE EXTENSION IF NOT EXISTS vector SCHEMA public")
        admin.execute(f"CREATE SCHEMA {schema}")
    try:
        yield schema_url(pgvector_base_url, schema)
    finally:
        with psycopg.connect(pgvector_base_url, autocommit=True) as admin:
            admin.execute(f"DROP SCHEMA {schema} CASCADE")
