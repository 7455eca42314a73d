"""A pytest plugin handing the PostgreSQL tests the server named by ``THRIFT_FP_TEST_PG_URL``.

The suite never starts, installs or configures a server: with the variable set, the PostgreSQL
tests (those using ``pg_url`` or ``pg_base_url``, and the doctests that read the variable) run
against that server, each test in its own schema; without it they are skipped, and the run ends
with one line saying how to run them. ``THRIFT_FP_REQUIRE_PG=1`` (set by ``.ci/run``) turns every
skipped PostgreSQL test, whatever skipped it, into a failure, so CI cannot pass without them.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Generator, Iterator
from typing import Final
from urllib.parse import quote

import pytest

URL_ENV: Final = "THRIFT_FP_TEST_PG_URL"
REQUIRE_ENV: Final = "THRIFT_FP_REQUIRE_PG"
HOW_TO_RUN: Final = (
    f"PostgreSQL tests skipped: {URL_ENV} is not set; run them with "
    f'{URL_ENV}="$(bash .ci/postgres.sh start DIR)" python -m pytest (stop: bash .ci/postgres.sh stop DIR), or .ci/run'
)
_MARKER: Final = "postgres"
_FIXTURES: Final = frozenset({"pg_url", "pg_base_url"})
_skipped: list[str] = []


def _required() -> bool:
    return os.environ.get(REQUIRE_ENV, "") not in ("", "0")


def _needs_postgres(item: pytest.Item) -> bool:
    if _FIXTURES & set(getattr(item, "fixturenames", ())):
        return True
    # A parametrized fixture that asks for `pg_url` only for its "postgres" parameter.
    callspec = getattr(item, "callspec", None)
    if callspec is not None and _MARKER in callspec.params.values():
        return True
    # A doctest that connects reads the variable itself.
    dtest = getattr(item, "dtest", None)
    return dtest is not None and any(URL_ENV in example.source for example in dtest.examples)


def pytest_configure(config: pytest.Config) -> None:
    """Register the ``postgres`` marker; refuse to start when PostgreSQL is required but not given."""
    config.addinivalue_line("markers", f"{_MARKER}: needs the PostgreSQL server named by {URL_ENV}")
    if _required() and not os.environ.get(URL_ENV):
        raise pytest.UsageError(f"{REQUIRE_ENV} is set but {URL_ENV} is not: start a server and export its URL")


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the PostgreSQL tests; without a server, skip them (one shared reason)."""
    available = bool(os.environ.get(URL_ENV))
    for item in items:
        if _needs_postgres(item):
            item.add_marker(_MARKER)
            if not available:
                item.add_marker(pytest.mark.skip(reason=HOW_TO_RUN))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """When PostgreSQL tests are required, a skipped one is a failure."""
    report = yield
    if report.skipped and item.get_closest_marker(_MARKER) is not None and _required():
        report.outcome = "failed"
        report.longrepr = f"{REQUIRE_ENV} is set and this PostgreSQL test was skipped: {report.longrepr}"
    return report


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Count skipped PostgreSQL tests where the summary is written (the controller under xdist)."""
    if report.skipped and _MARKER in report.keywords:
        _skipped.append(report.nodeid)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, exitstatus: int, config: pytest.Config) -> None:
    """One line for all the skipped PostgreSQL tests, saying how to run them."""
    if _skipped and not _required():
        terminalreporter.write_line(f"{len(_skipped)} {HOW_TO_RUN}")


def schema_url(base: str, schema: str) -> str:
    """``base`` with its ``search_path`` set to ``schema`` (libpq ``options``), so tests do not meet.

    >>> schema_url("postgresql://u:p@/db?host=/tmp/x", "t_1")
    'postgresql://u:p@/db?host=/tmp/x&options=-csearch_path%3Dt_1'
    """
    separator = "&" if "?" in base else "?"
    return f"{base}{separator}options={quote(f'-csearch_path={schema}', safe='')}"


@pytest.fixture(scope="session")
def pg_base_url() -> str:
    """The URL of the test server's database, as the environment gives it."""
    url = os.environ.get(URL_ENV)
    if not url:
        pytest.skip(HOW_TO_RUN)
    return url


@pytest.fixture
def pg_url(pg_base_url: str) -> Iterator[str]:
    """The URL of a fresh, empty schema in the test server (dropped afterwards)."""
    import psycopg

    schema = f"t_{secrets.token_hex(6)}"
    with psycopg.connect(pg_base_url, autocommit=True) as admin:
        admin.execute(f"CREATE SCHEMA {schema}")
    try:
        yield schema_url(pg_base_url, schema)
    finally:
        with psycopg.connect(pg_base_url, autocommit=True) as admin:
            admin.execute(f"DROP SCHEMA {schema} CASCADE")
