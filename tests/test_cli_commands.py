"""The `thrift-fp` commands run in-process: outputs, exit codes, and one clear line per error."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from tests._files import write_old_tree
from thrift_fp.cli import run


@pytest.fixture(autouse=True)
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    cache = tmp_path / "cache"
    monkeypatch.setenv("THRIFT_FP_CACHE_DIR", str(cache))
    return cache


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    # Not "racy": modified well before they are indexed.
    return write_old_tree(tmp_path / "docs", {
        "budget.md": "# Budget\n\nThe budget is the window minus the reserve for the answer.\n",
        "shed.txt": "Shedding drops the lowest score first while over budget.\n",
        "faq.jsonl": '{"id": "q1", "text": "Quotas cap the queries of one request."}\n',
    })


def _stdin(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))


def _one_error_line(capsys: pytest.CaptureFixture[str], *words: str) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("thrift-fp: error: "), err
    assert "Traceback" not in err
    for word in words:
        assert word in err, err
    return err


def test_count_a_file_standard_input_and_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    note = tmp_path / "note.txt"
    note.write_text("hello world")
    assert run(["count", str(note)]) == 0 and capsys.readouterr().out == "2\n"
    _stdin(monkeypatch, "hello world".encode())
    assert run(["count", "-", "--encoding", "o200k_base", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"tokens": 2, "encoding": "o200k_base", "precision": "exact"}


def test_count_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["count", str(tmp_path / "missing.txt")]) == 1
    _one_error_line(capsys, "no such file or folder", "missing.txt")
    note = tmp_path / "note.txt"
    note.write_text("x")
    assert run(["count", str(note), "--encoding", "klingon"]) == 1
    _one_error_line(capsys, "unknown encoding 'klingon'", "cl100k_base")
    (tmp_path / "binary.txt").write_bytes(b"\xff\xfe\x00")
    assert run(["count", str(tmp_path / "binary.txt")]) == 1
    _one_error_line(capsys, "cannot read", "utf-8")


def test_index_is_incremental_and_ask_prints_context_and_table(
    docs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "index.db"
    assert run(["index", str(docs), "--db", str(db)]) == 0
    assert "3 chunked, 0 touched, 0 unchanged, 0 removed; 3 passages" in capsys.readouterr().out
    assert run(["index", str(docs), "--db", str(db)]) == 0
    assert "0 chunked, 0 touched, 3 unchanged" in capsys.readouterr().out
    (docs / "shed.txt").write_text("Shedding drops the lowest score first, always.\n")
    assert run(["index", str(docs), "--db", str(db)]) == 0
    assert "1 chunked, 0 touched, 2 unchanged" in capsys.readouterr().out
    assert run(["ask", "what is shedding", "--db", str(db), "--budget", "2000"]) == 0
    out, err = capsys.readouterr()
    assert "Shedding drops the lowest score first, always." in out
    assert '<corpus' in out and "kept" in err and "docs/shed.txt#1" in err


def test_ask_json_reports_decisions_receipts_and_trace(docs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "index.db"
    run(["index", str(docs), "--db", str(db), "--tier", "third-party-public"])
    capsys.readouterr()
    # The words form one question; --query asks another.
    assert run(["ask", "budget", "--query", "quotas", "--db", str(db), "--window", "3000", "--json",
                "--encoding", "o200k_base"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["tokens"] <= answer["budget"] and answer["encoding"] == "o200k_base"
    assert [r["sequence"] for r in answer["receipts"]] == [1, 2]
    assert {d["trust_tier"] for d in answer["decisions"]} == {"third-party-public"}
    assert 'tier=third-party-public' in answer["context"]
    assert answer["trace"]["context_window"] == 3000


def test_ask_errors_are_one_line(docs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "index.db"
    run(["index", str(docs), "--db", str(db)])
    capsys.readouterr()
    for option, value in (("--budget", "-5"), ("--window", "-1")):  # usage errors: status 2
        assert run(["ask", "budget", "--db", str(db), option, value]) == 2
        assert f"Error: Invalid value for '{option}'" in capsys.readouterr().err
    assert run(["ask", "budget", "--db", str(db), "--budget", "5", "--window", "9"]) == 2
    assert "Error: give either --budget or --window, not both" in capsys.readouterr().err
    assert run(["ask", "budget", "-q", "reserve", "--db", str(db), "--max-queries", "1"]) == 1
    _one_error_line(capsys, "query budget exhausted (1 of 1 used)")
    assert run(["ask", "budget", "--db", str(db), "--encoding", "nope"]) == 1
    _one_error_line(capsys, "unknown encoding 'nope'")
    assert run(["ask", "budget", "--db", str(tmp_path / "none.db")]) == 1
    _one_error_line(capsys, "no such file or folder", "none.db")
    corrupt = tmp_path / "corrupt.db"
    corrupt.write_bytes(b"garbage" * 1000)
    assert run(["ask", "budget", "--db", str(corrupt)]) == 1
    _one_error_line(capsys, "is not a usable thrift_fp index", "file is not a database")
    assert run(["ask", "?!", "--db", str(db)]) == 1
    _one_error_line(capsys, "has no word to search for")
    # --tier has choices: a wrong one is a command-line syntax error, listing them.
    assert run(["ask", "budget", "--db", str(db), "--tier", "internal"]) == 2
    err = " ".join(capsys.readouterr().err.replace("│", " ").split())
    assert "'internal' is not one of 'first-party', 'third-party-public', 'third-party-private'" in err


def test_ask_without_db_indexes_the_embedded_corpus_once(private_cache: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["ask", "how does shedding work"]) == 0
    out = capsys.readouterr().out
    assert "corpus/shedding.md" in out and "<corpus" in out
    (database,) = private_cache.glob("embedded-corpus-*.db")
    built = database.stat().st_mtime_ns
    assert run(["ask", "trust tiers"]) == 0
    assert "corpus/trust-tiers.md" in capsys.readouterr().out
    assert database.stat().st_mtime_ns == built, "an unchanged corpus is not indexed again"
    database.write_bytes(b"a stale cache from another version")
    assert run(["ask", "trust tiers"]) == 0, "a damaged cache is rebuilt"
    assert "corpus/trust-tiers.md" in capsys.readouterr().out


def test_a_failed_index_leaves_no_database(docs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (docs / "broken.jsonl").write_text("{not json}\n")
    db = tmp_path / "index.db"
    # Only --strict fails a run on one bad file (a plain run skips it and says why).
    assert run(["index", str(docs), "--db", str(db), "--strict"]) == 1
    skipped, error = capsys.readouterr().err.splitlines()
    assert skipped.startswith("thrift-fp: skipped: ") and "broken.jsonl, line 1" in skipped and "invalid JSON" in skipped
    assert error.startswith("thrift-fp: error: strict run: 1 files could not be indexed")
    assert not db.exists() and [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
    assert run(["index", str(tmp_path / "nowhere"), "--db", str(db)]) == 1
    _one_error_line(capsys, "no such file or folder")


def test_a_long_index_run_shows_progress_and_still_reports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    many = tmp_path / "many"
    many.mkdir()
    for n in range(25):
        (many / f"note{n:02}.txt").write_text(f"note {n} about the budget")
    assert run(["index", str(many), "--db", str(tmp_path / "many.db")]) == 0
    out, err = capsys.readouterr()
    assert "25 chunked" in out and "Traceback" not in err
