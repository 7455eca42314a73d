"""The command's messages read well: one "skipped" per skipped file, "1 file" not "1 files", and a
question that matches nothing says so on standard error and exits 0."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from returns.result import Success

from thrift_fp.cli import run
from thrift_fp.sources import index_paths
from thrift_fp.sources.dense import default_embedder


@pytest.fixture
def db(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("Shedding drops the lowest score first.")
    (docs / "bad.txt").write_bytes(b"\x00\x01")
    assert run(["index", str(docs), "--db", str(tmp_path / "index.db")]) == 0
    out, err = capsys.readouterr()
    # With the [dense] extra's model, the summary also counts the passages embedded (issue 35).
    counted = "; 1 passage, 1 embedded" if isinstance(default_embedder(), Success) else "; 1 passage"
    assert out.startswith("indexed 1 file into ") and out.rstrip().endswith(counted), out
    assert err.startswith("thrift-fp: skipped ") and err.count("skipped") == 1 and "bad.txt: binary data" in err, err
    return tmp_path / "index.db"


@pytest.fixture
def lexical_db(tmp_path: Path) -> Path:
    # An index without vectors ranks lexically: there, a question can match nothing. (With the
    # [dense] extra's vectors the nearest passages always answer, as dense retrieval does.)
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("Shedding drops the lowest score first.")
    index_paths(tmp_path / "lexical.db", [docs], dense=False).unwrap()
    return tmp_path / "lexical.db"


def test_a_question_that_matches_nothing_says_so_and_exits_0(lexical_db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = lexical_db
    assert run(["ask", "--db", str(db), "zzqqxx", "wwvvyy"]) == 0
    out, err = capsys.readouterr()
    # Where it answered from, how it ranked (the index holds no vectors: lexically, and why), then the verdict.
    answered, ranked, verdict = err.splitlines()
    assert out == "" and answered == f"thrift-fp: answered from {db}" and ranked.startswith("thrift-fp: ranked lexically (")
    assert verdict == "thrift-fp: no passage matched; the context is empty (exit status 0)"
    assert run(["ask", "--db", str(db), "zzqqxx", "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["decisions"] == [] and "no passage matched" in err


def test_a_question_that_matches_prints_no_such_line(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["ask", "--db", str(db), "shedding"]) == 0
    out, err = capsys.readouterr()
    assert "Shedding drops" in out and "no passage matched" not in err


def test_the_no_match_status_is_documented_in_help(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "300")
    assert run(["ask", "--help"]) == 0
    assert "When no passage matches, the context is empty: a line on standard error says so and the exit status is 0" in (
        " ".join(capsys.readouterr().out.split())
    )
