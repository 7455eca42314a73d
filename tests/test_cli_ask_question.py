"""`thrift-fp ask`: the words form one question, and a repeatable --query asks several."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from thrift_fp.cli import run
from thrift_fp.sources import assemble, index_paths


@pytest.fixture
def database(tmp_path: Path) -> Path:
    (tmp_path / "a.md").write_text("# HTTP\n\nTo create an HTTP server, call http.createServer().")
    (tmp_path / "b.md").write_text("# Budget\n\nThe budget is the window minus the reserve.")
    index_paths(tmp_path / "i.db", [tmp_path]).unwrap()
    return tmp_path / "i.db"


def _receipts(capsys: pytest.CaptureFixture[str]) -> list[str]:
    return [receipt["query"] for receipt in json.loads(capsys.readouterr().out)["receipts"]]


def test_unquoted_words_are_one_question(database: Path, capsys: pytest.CaptureFixture[str]) -> None:
    words = "how to create an HTTP server".split()
    assert run(["ask", *words, "--db", str(database), "--json", "--max-queries", "1"]) == 0
    assert _receipts(capsys) == ["how to create an http server"]


def test_query_asks_more_questions(database: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["ask", "http", "server", "--query", "budget", "-q", "reserve", "--db", str(database), "--json"]) == 0
    assert _receipts(capsys) == ["http server", "budget", "reserve"]
    assert run(["ask", "--query", "budget", "--db", str(database), "--json"]) == 0
    assert _receipts(capsys) == ["budget"]


def test_no_question_is_a_usage_error(database: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["ask", "--db", str(database)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("Usage: thrift-fp ask") and err.endswith("Error: give a question, or one or more --query\n"), err


def test_assemble_takes_a_str_as_one_question_and_any_iterable_as_several(database: Path) -> None:
    one = assemble("create an HTTP server", database=database).unwrap()
    assert [r.query for r in one.receipts] == ["create an http server"]
    several = assemble(iter(["http", "budget"]), database=database).unwrap()
    assert [r.query for r in several.receipts] == ["http", "budget"]
    for _ in range(20):  # the same value every time, never a sampled type-check exception
        assert "every query must be a str, got a int" in assemble(["http", 3], database=database).failure().message
    assert assemble((), database=database).failure().message == "no query to answer: the collection of queries is empty"
