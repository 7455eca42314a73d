"""The rules the two database plugins share (tests/_postgres_cluster.py, tests/_pgvector_cluster.py).

A `ServerTests` holds the hooks for one kind of server named by an environment variable: its
tests are marked, skipped without the variable (one line at the end says how to run them), and,
with the require variable set, a skipped one fails. Each plugin module registers its instance
as a plugin from its own ``pytest_configure``.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable, Generator, Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import quote

import pytest


def schema_url(base: str, schema: str) -> str:
    """``base`` with its ``search_path`` set to ``schema`` (libpq ``options``), so tests do not meet.

    >>> schema_url("postgresql://u:p@/db?host=/tmp/x", "t_1")
    'postgresql://u:p@/db?host=/tmp/x&options=-csearch_path%3Dt_1'
    """
    separator = "&" if "?" in base else "?"
    return f"{base}{separator}options={quote(f'-csearch_path={schema}', safe='')}"


@contextmanager
def fresh_schema(base_url: str, prefix: str, prepare: Callable[[Any], None] = lambda admin: None) -> Iterator[str]:
    """The URL of a new, empty schema named ``prefix`` and random hex on the server at ``base_url``,
    dropped on exit; ``prepare`` runs on the admin connection before the schema is created."""
    import psycopg

    schema = f"{prefix}{secrets.token_hex(6)}"
    with psycopg.connect(base_url, autocommit=True) as admin:
        prepare(admin)
        admin.execute(f"CREATE SCHEMA {schema}")
    try:
        yield schema_url(base_url, schema)
    finally:
        with psycopg.connect(base_url, autocommit=True) as admin:
            admin.execute(f"DROP SCHEMA {schema} CASCADE")


class ServerTests:
    """The marking, skipping and counting for the tests of one server (``kind`` names them in
    messages, ``server`` in the marker's description)."""

    def __init__(self, *, kind: str, server: str, marker: str, url_env: str, require_env: str, how_to_run: str,
                 fixtures: frozenset[str]) -> None:
        self.kind, self.server, self.marker = kind, server, marker
        self.url_env, self.require_env, self.how_to_run, self.fixtures = url_env, require_env, how_to_run, fixtures
        self.skipped: list[str] = []

    def register(self, config: pytest.Config) -> None:
        """Register these hooks with pytest; pytest_configure, a historic hook, is called at once."""
        config.pluginmanager.register(self, f"thrift_fp {self.marker} server")

    def required(self) -> bool:
        return os.environ.get(self.require_env, "") not in ("", "0")

    def needs_server(self, item: pytest.Item) -> bool:
        if self.fixtures & set(getattr(item, "fixturenames", ())):
            return True
        # A parametrized fixture that asks for the server only for its parameter named as the marker.
        callspec = getattr(item, "callspec", None)
        if callspec is not None and self.marker in callspec.params.values():
            return True
        # A doctest that connects reads the variable itself.
        dtest = getattr(item, "dtest", None)
        return dtest is not None and any(self.url_env in example.source for example in dtest.examples)

    def base_url(self) -> str:
        """The URL the environment gives, or the test is skipped saying how to run it."""
        url = os.environ.get(self.url_env)
        if not url:
            pytest.skip(self.how_to_run)
        return url

    def pytest_configure(self, config: pytest.Config) -> None:
        """Register the marker; refuse to start when the server is required but not given."""
        config.addinivalue_line("markers", f"{self.marker}: needs {self.server} named by {self.url_env}")
        if self.required() and not os.environ.get(self.url_env):
            raise pytest.UsageError(f"{self.require_env} is set but {self.url_env} is not: start a server and export its URL")

    def pytest_collection_modifyitems(self, session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
        """Mark the server's tests; without a server, skip them (one shared reason)."""
        available = bool(os.environ.get(self.url_env))
        for item in items:
            if self.needs_server(item):
                item.add_marker(self.marker)
                if not available:
                    item.add_marker(pytest.mark.skip(reason=self.how_to_run))

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        """When the server's tests are required, a skipped one is a failure."""
        report = yield
        if report.skipped and item.get_closest_marker(self.marker) is not None and self.required():
            report.outcome = "failed"
            report.longrepr = f"{self.require_env} is set and this {self.kind} test was skipped: {report.longrepr}"
        return report

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Count the skipped tests where the summary is written (the controller under xdist)."""
        if report.skipped and self.marker in report.keywords:
            self.skipped.append(report.nodeid)

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter, exitstatus: int, config: pytest.Config) -> None:
        """One line for all the skipped tests, saying how to run them."""
        if self.skipped and not self.required():
            terminalreporter.write_line(f"{len(self.skipped)} {self.how_to_run}")
