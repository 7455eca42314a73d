"""A database password never shows, however libpq reads the string: a URL it quotes whole (an
unclosed ``[``), a bad percent escape it quotes, a ``?`` in the password, a non-numeric port."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict

from thrift_fp.cli import run
from thrift_fp.sources.postgres import DatabaseUnreachable, InvalidDatabaseUrl, open_database, redact


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("postgresql://u:s3cret@[::1/db", "postgresql://u:***@[::1/db is not a valid PostgreSQL connection string"),
        ("postgresql://u:s3%cret@h/db", "postgresql://u:***@h/db is not a valid PostgreSQL connection string"),
        ("postgresql://u:pa?ss@/db?host=/nonexistent/run/pg", "cannot reach PostgreSQL at postgresql://u:***@/db?host="),
    ],
)
def test_the_password_of_each_reported_url_never_shows(url: str, shown: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["ask", "--db", url, "x"]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(f"thrift-fp: error: {shown}"), err
    secret = url.split(":")[2].split("@")[0]
    assert secret not in err and "cret" not in err and "pa?ss" not in err


def test_a_non_numeric_port_is_an_invalid_url_not_an_unreachable_server() -> None:
    error = open_database("postgresql://u:hunter2@localhost:abc/db").failure()
    assert isinstance(error, InvalidDatabaseUrl), error
    assert error.message == 'postgresql://u:***@localhost:abc/db is not a valid PostgreSQL connection string: invalid port number: "abc"'
    error = open_database("host=localhost port=5432x user=u password=hunter2").failure()
    assert isinstance(error, InvalidDatabaseUrl) and "hunter2" not in repr(error), error


def test_a_percent_escape_that_is_not_utf_8_is_an_invalid_url() -> None:
    error = open_database("postgresql://u:pw%E9@localhost/db").failure()
    assert isinstance(error, InvalidDatabaseUrl) and "%E9" not in error.message and "pw" not in error.message, error


def test_a_keyword_connection_string_is_a_database_for_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    # Not a missing index file named after the string (which printed the password).
    assert run(["ask", "--db", "host=/nonexistent/run/pg password=hunter2 dbname=docs", "x"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("thrift-fp: error: cannot reach PostgreSQL at host=/nonexistent/run/pg password=*** dbname=docs")
    assert "hunter2" not in err


def test_an_unreachable_server_with_a_question_mark_password_is_unreachable() -> None:
    error = open_database("postgresql://u:pa?ss@/db?host=/nonexistent/run/pg", timeout=1.0).failure()
    assert isinstance(error, DatabaseUnreachable) and "pa?ss" not in repr(error) and "ss@" not in error.message


@pytest.fixture
def role(pg_base_url: str) -> Iterator[tuple[str, str, str]]:
    """A login role whose password holds a '?', with a schema of its own; its socket and database."""
    name = f"thrift_fp_pw_{secrets.token_hex(4)}"
    with psycopg.connect(pg_base_url, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE ROLE {0} LOGIN PASSWORD 'pa?ss'").format(sql.Identifier(name)))
        admin.execute(sql.SQL("CREATE SCHEMA AUTHORIZATION {}").format(sql.Identifier(name)))
        admin.execute(sql.SQL("ALTER ROLE {0} SET search_path = {0}").format(sql.Identifier(name)))
    params = conninfo_to_dict(pg_base_url)
    try:
        yield name, str(params["host"]), str(params["dbname"])
    finally:
        with psycopg.connect(pg_base_url, autocommit=True) as admin:
            admin.execute(sql.SQL("DROP SCHEMA {} CASCADE").format(sql.Identifier(name)))
            admin.execute(sql.SQL("DROP ROLE {}").format(sql.Identifier(name)))


def test_a_question_mark_password_connects_and_is_neither_stored_nor_shown(
    pg_base_url: str, role: tuple[str, str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name, host, dbname = role
    url = f"postgresql://{name}:pa?ss@/{dbname}?host={host}"
    assert redact(url) == f"postgresql://{name}:***@/{dbname}?host={host}"
    with open_database(url, create=True).unwrap() as database:
        assert database.url == redact(url) and "pa?ss" not in repr(database)
    (tmp_path / "a.md").write_text("Shedding drops the lowest score first.")
    assert run(["index", str(tmp_path), "--db", url]) == 0
    assert run(["ask", "--db", url, "shedding"]) == 0
    with psycopg.connect(pg_base_url, autocommit=True) as admin:  # a later error names the URL again
        admin.execute(sql.SQL("DROP TABLE {}.thrift_fp_schema").format(sql.Identifier(name)))
    assert run(["ask", "--db", url, "shedding"]) == 1
    out, err = capsys.readouterr()
    assert f"into {redact(url)}" in out and "Shedding drops" in out
    assert f"thrift-fp: error: {redact(url)} has no thrift_fp schema" in err, err
    assert "pa?ss" not in out + err and "ss@" not in out + err


@pytest.mark.parametrize(
    ("conninfo", "shown"),
    [
        ("postgresql:///d?host=/x&pa%73sword=Zq9&sslpassword=Zq9k", "postgresql:///d?host=/x&pa%73sword=***&sslpassword=***"),
        ("postgresql://u:a@b@h/d", "postgresql://u:***@h/d"),  # an unencoded '@' hides all of it
        ("postgresql://h?password=Zq9@x", "postgresql://***@x"),  # a query that lost its way
        (r"host=/x password=Zq9\ b dbname=d", "host=/x password=*** dbname=d"),
        ("host=/x password='Zq9 unterminated", "host=/x password=***"),
        ("POSTGRESQL://u:Zq9@h/d", "POSTGRESQL://u:***@h/d"),
    ],
)
def test_redaction_cuts_every_spelling_of_a_password(conninfo: str, shown: str) -> None:
    assert redact(conninfo) == shown
    assert "Zq9" not in redact(conninfo)
