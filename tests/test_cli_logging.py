"""Logging like a library: a NullHandler on the ``thrift_fp`` logger and no other handler in the
library; the command shows one line per failed call while the driver's pool logs a reconnection
storm, more with ``-v``, and leaves the logging configuration as it found it."""

from __future__ import annotations

import logging
import re
import subprocess
import sys
from pathlib import Path

import pytest
from returns.result import Failure, Result

import thrift_fp
import thrift_fp.cli._postgres
from thrift_fp.cli import run
from thrift_fp.sources import Assembled
from thrift_fp.sources.postgres import DatabaseUnreachable

PACKAGE = Path(thrift_fp.__file__).resolve().parent


def test_the_library_logger_has_a_null_handler_and_nothing_else_adds_one() -> None:
    handlers = logging.getLogger("thrift_fp").handlers
    assert any(isinstance(handler, logging.NullHandler) for handler in handlers)
    configuring = re.compile(r"addHandler|basicConfig|dictConfig|fileConfig|StreamHandler|setLevel\(")
    places = sorted(
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if configuring.search(path.read_text(encoding="utf-8"))
    )
    # The package's NullHandler, and the command (an application) for the length of one run.
    assert places == ["__init__.py", "cli/_logging.py"]


def _restart_storm(url: str, query: object, **options: object) -> Result[Assembled, DatabaseUnreachable]:
    pool = logging.getLogger("psycopg_pool")
    for attempt in range(20):
        pool.warning("error connecting in 'thrift_fp': connection failed: attempt %d", attempt)
    logging.getLogger("psycopg").warning("error ignored in rollback")
    logging.getLogger("psycopg_pool").info("growing pool 'thrift_fp' to 1")
    return Failure(DatabaseUnreachable("postgresql://ann:***@/docs", "server closed the connection unexpectedly"))


@pytest.fixture
def storm(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(thrift_fp.cli._postgres, "ask_postgres", _restart_storm)


def test_a_server_restart_shows_one_line_per_failed_call(storm: None, capsys: pytest.CaptureFixture[str]) -> None:
    root = logging.getLogger()
    before = (list(root.handlers), root.level)
    for _ in range(2):
        assert run(["ask", "--db", "postgresql://ann:pw@/docs", "x"]) == 1
    assert capsys.readouterr().err.splitlines() == [
        "thrift-fp: error: cannot reach PostgreSQL at postgresql://ann:***@/docs: server closed the connection unexpectedly"
    ] * 2
    assert (list(root.handlers), root.level) == before


def test_verbose_shows_the_driver_warnings_and_information(storm: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["-v", "ask", "--db", "postgresql://ann:pw@/docs", "x"]) == 1
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 23 and lines[-1].startswith("thrift-fp: error: cannot reach PostgreSQL")
    assert lines[0] == "thrift-fp: WARNING: psycopg_pool: error connecting in 'thrift_fp': connection failed: attempt 0"
    assert "thrift-fp: INFO: psycopg_pool: growing pool 'thrift_fp' to 1" in lines


def test_a_library_record_prints_nothing_when_the_application_configures_nothing() -> None:
    # Without the NullHandler, Python's last-resort handler would print the warning on stderr.
    probe = "import logging, thrift_fp; logging.getLogger('thrift_fp.sources').warning('unseen')"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stderr == "", done.stderr
