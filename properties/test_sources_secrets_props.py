"""A database password never shows: not in the command's output, an error value's ``str`` or
``repr``, the database's stored settings, nor a log record, whatever the password holds
(``?``, ``#``, ``%``, ``@``, ``/``, ``:``, spaces, non-ASCII) and however the connection string
spells it (URL user part, URL query, ``key=value``), for a wrong password, an unreachable server,
a bad port and a malformed string.

Unreachable servers are a closed localhost port or a Unix socket folder that does not exist; the
cases that need a server use the one named by ``THRIFT_FP_TEST_PG_URL``."""

from __future__ import annotations

import contextlib
import io
import logging
import secrets
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import psycopg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict

from thrift_fp.cli import run
from thrift_fp.sources.postgres._errors import redact
from thrift_fp.sources.postgres import AuthenticationFailed, DatabaseUnreachable, InvalidDatabaseUrl, open_database

# A marker no user, host, database or message holds, then the hostile characters.
_MARK = "Zq9"
_PASSWORD = st.text(
    st.one_of(st.sampled_from("?#%@/: '\\=&é€😀"), st.characters(codec="utf-8", exclude_categories=["Cs", "Cc"])),
    min_size=1,
    max_size=12,
).map(lambda s: _MARK + s)
_CLOSED = "127.0.0.1:1"  # nothing listens on port 1 of this machine's loopback
_NO_SOCKET = "/nonexistent/thrift-fp-secrets"


def _keyword(password: str) -> str:
    return "'" + password.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _spellings(user: str, password: str, where: str, dbname: str = "docs", port: str = "") -> list[str]:
    """One connection string per way of giving the password; ``where`` is a host or socket folder."""
    encoded = quote(password, safe="")
    socket = where.startswith("/")
    netloc = "" if socket else where + (f":{port}" if port else "")
    tail = f"?host={quote(where, safe='/')}" + (f"&port={port}" if port else "") if socket else ""
    joiner = "&" if tail else "?"
    host, _, tcp_port = where.partition(":")
    keyword_port = port or tcp_port
    return [
        f"postgresql://{user}:{encoded}@{netloc}/{dbname}{tail}",
        f"postgresql://{user}@{netloc}/{dbname}{tail}{joiner}password={encoded}",
        f"host={host} user={user} password={_keyword(password)} dbname={dbname}"
        + (f" port={keyword_port}" if keyword_port else ""),
    ]


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.texts: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.texts.append(self.format(record))


@contextlib.contextmanager
def _everything_logged() -> Iterator[_Records]:
    records = _Records()
    root = logging.getLogger()
    level = root.level
    root.addHandler(records)
    root.setLevel(logging.DEBUG)
    try:
        yield records
    finally:
        root.removeHandler(records)
        root.setLevel(level)


def _cli(*argv: str) -> str:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        run(list(argv))
    return out.getvalue() + err.getvalue()


def _assert_hidden(password: str, *texts: str) -> None:
    for text in texts:
        assert _MARK not in text, (password, text)
        assert password not in text and quote(password, safe="") not in text, (password, text)


def _assert_never_shown(conninfo: str, password: str, expected: type[object]) -> None:
    with _everything_logged() as logged:
        error = open_database(conninfo, timeout=1.0).failure()
        shown = _cli("ask", "anything", "--db", conninfo)
    assert isinstance(error, expected), (conninfo, error)
    _assert_hidden(password, str(error), repr(error), error.message, redact(conninfo), shown, *logged.texts)
    assert shown.strip(), "the command said nothing"


@settings(max_examples=25)
@given(password=_PASSWORD, user=st.sampled_from(["ann", "bob"]))
def test_an_unreachable_server_never_shows_the_password(password: str, user: str) -> None:
    for where in (_CLOSED, _NO_SOCKET):
        for conninfo in _spellings(user, password, where):
            _assert_never_shown(conninfo, password, DatabaseUnreachable)


@settings(max_examples=25)
@given(password=_PASSWORD, port=st.text("abcx-+ 9", min_size=1, max_size=4).filter(lambda p: not p.strip().isdigit()))
def test_a_bad_port_is_an_invalid_url_that_never_shows_the_password(password: str, port: str) -> None:
    port = port.strip() or "x"
    for conninfo in _spellings("ann", password, "localhost", port=quote(port, safe="")):
        _assert_never_shown(conninfo, password, InvalidDatabaseUrl)


@settings(max_examples=25)
@given(
    password=_PASSWORD,
    breakage=st.sampled_from(["[::1", "h/db%zz", "h/db%e9", "h/db?=x", "h/db?key", "h/db?host=x&&"]),
)
def test_a_malformed_url_is_invalid_and_never_shows_the_password(password: str, breakage: str) -> None:
    encoded = quote(password, safe="")
    for conninfo in (
        f"postgresql://ann:{encoded}@{breakage}",
        f"postgresql://ann@{breakage}{'&' if '?' in breakage else '?'}password={encoded}",
    ):
        _assert_never_shown(conninfo, password, InvalidDatabaseUrl)


@settings(max_examples=25)
@given(password=_PASSWORD)
def test_a_malformed_keyword_string_is_invalid_and_never_shows_the_password(password: str) -> None:
    for conninfo in (
        f"host=/x password={_keyword(password)} dbname",
        f"host=/x password={_keyword(password)[:-1]}",
        f"host=/x password={_keyword(password)} nosuchoption=1",
    ):
        _assert_never_shown(conninfo, password, InvalidDatabaseUrl)


@pytest.fixture(scope="module")
def role(pg_base_url: str) -> Iterator[dict[str, str]]:
    """A login role of its own with its own schema, dropped afterwards; its password set per example."""
    name = f"thrift_fp_secrets_{secrets.token_hex(4)}"
    params = {k: str(v) for k, v in conninfo_to_dict(pg_base_url).items() if k in ("host", "port", "dbname")}
    with psycopg.connect(pg_base_url, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE ROLE {} LOGIN").format(sql.Identifier(name)))
        admin.execute(sql.SQL("CREATE SCHEMA AUTHORIZATION {}").format(sql.Identifier(name)))
        admin.execute(sql.SQL("ALTER ROLE {0} SET search_path = {0}").format(sql.Identifier(name)))
    try:
        yield params | {"user": name}
    finally:
        with psycopg.connect(pg_base_url, autocommit=True) as admin:
            admin.execute(sql.SQL("DROP SCHEMA {} CASCADE").format(sql.Identifier(name)))
            admin.execute(sql.SQL("DROP ROLE {}").format(sql.Identifier(name)))


def _set_password(base: str, user: str, password: str) -> None:
    with psycopg.connect(base, autocommit=True) as admin:
        admin.execute(sql.SQL("ALTER ROLE {} PASSWORD {}").format(sql.Identifier(user), sql.Literal(password)))


@settings(max_examples=10, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(password=_PASSWORD.filter(lambda p: "\x00" not in p))
def test_a_wrong_password_and_a_right_one_never_show(
    pg_base_url: str, role: dict[str, str], tmp_path: Path, password: str
) -> None:
    _set_password(pg_base_url, role["user"], password)
    where = (role["user"], role["host"], role["dbname"], role.get("port", ""))
    right = _spellings(where[0], password, *where[1:])
    wrong = _spellings(where[0], password + "x", *where[1:])
    docs = tmp_path / "docs"
    docs.mkdir(exist_ok=True)
    (docs / "a.md").write_text("Shedding drops the lowest score first.")
    for conninfo, bad in zip(right, wrong):
        with _everything_logged() as logged:
            error = open_database(bad, timeout=2.0).failure()
            refused = _cli("ask", "anything", "--db", bad)
            with open_database(conninfo, create=True, timeout=2.0).unwrap() as database:
                stored = (database.url, repr(database), str(database))
            shown = _cli("index", str(docs), "--db", conninfo) + _cli("ask", "shedding", "--db", conninfo)
        assert isinstance(error, AuthenticationFailed) and "refused the credentials" in refused, (error, refused)
        assert "Shedding drops" in shown, shown
        _assert_hidden(password, str(error), repr(error), error.message, refused, *stored, shown, *logged.texts)
