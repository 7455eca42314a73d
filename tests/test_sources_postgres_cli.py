"""``thrift-fp index`` and ``ask`` with a ``postgresql://`` database, by ``--db`` or by environment."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from thrift_fp.cli import run

OLD = 1_000_000_000.0


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    root.mkdir()
    # bad.txt is binary (a NUL byte): a per-file problem, skipped with its reason.
    for name, data in {"shedding.md": b"Shedding drops the lowest score first.", "bad.txt": b"\x00\x01\x02"}.items():
        (root / name).write_bytes(data)
        os.utime(root / name, (OLD, OLD))
    return root


def test_index_then_ask_by_url(pg_url: str, docs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["index", str(docs), "--db", pg_url]) == 0
    out, err = capsys.readouterr()
    assert "1 chunked" in out and "1 skipped" in out and "thrift-fp-test" not in out
    assert "binary data" in err and "bad.txt" in err
    assert run(["ask", "how does shedding work", "--db", pg_url, "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert [d["id"] for d in answer["decisions"]] == ["docs/shedding.md#1"]
    assert answer["receipts"][0]["definition_id"] == "postgres-search"


def test_strict_and_the_selection_options_apply_to_a_url(
    pg_url: str, docs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # --strict, --include and --exclude mean what they mean for an index file (they were ignored).
    assert run(["index", str(docs), "--db", pg_url, "--strict"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("thrift-fp: skipped ") and "bad.txt" in err[0] and err[0].count("skipped") == 1
    assert err[-1].startswith("thrift-fp: error: strict run: 1 files could not be indexed, nothing written to ")
    assert run(["ask", "shedding", "--db", pg_url]) == 1  # nothing was indexed, not even the collection
    assert "has no collection 'default'" in capsys.readouterr().err
    assert run(["index", str(docs), "--db", pg_url, "--strict", "--exclude", "bad.txt"]) == 0
    assert "1 chunked" in capsys.readouterr().out
    assert run(["index", str(docs), "--db", pg_url, "--include", "*.txt"]) == 0
    out = capsys.readouterr().out
    assert "1 removed" in out and "1 skipped" in out and "0 passages" in out


def test_the_database_url_can_come_from_the_environment(
    pg_url: str, docs: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("THRIFT_FP_DATABASE_URL", pg_url)
    assert run(["index", str(docs)]) == 0
    assert run(["ask", "shedding"]) == 0
    assert "Shedding drops the lowest score first." in capsys.readouterr().out


def test_errors_are_one_line_exit_1_and_never_show_the_password(
    pg_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["ask", "x", "--db", "postgresql://ann:hunter2@/docs?host=/nonexistent"]) == 1
    assert run(["ask", "x", "--db", pg_url]) == 1  # no schema yet
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 2 and "hunter2" not in err and "thrift-fp-test" not in err
    assert lines[0].startswith("thrift-fp: error: cannot reach PostgreSQL at postgresql://ann:***@")
    assert "has no thrift_fp schema" in lines[1]


def test_without_the_postgres_extra_the_url_is_an_error_value(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # As if psycopg were not installed: its import, and so the source's, raises ImportError.
    monkeypatch.setitem(sys.modules, "psycopg", None)
    for name in [name for name in sys.modules if name.startswith(("thrift_fp.sources._postgres_", "thrift_fp.sources.postgres."))]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.delitem(sys.modules, "thrift_fp.sources.postgres", raising=False)
    monkeypatch.delattr("thrift_fp.sources.postgres", raising=False)
    assert run(["ask", "x", "--db", "postgresql://localhost/docs"]) == 1
    err = capsys.readouterr().err
    assert "needs the postgres extra" in err and "pip install 'thrift_fp[postgres]'" in err
