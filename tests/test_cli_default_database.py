"""`index`, `ask` and `serve` agree on the index when --db is not given, and `ask` says which.

The rule: the nearest `thrift-fp.db` in the current folder or a folder above it; `index`
creates `./thrift-fp.db` when there is none, `ask` and `serve` then use the embedded corpus.
Every test runs with HOME and the XDG folders in a fresh temporary folder.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from returns.result import Success

import thrift_fp.serve._command as command
from thrift_fp.cli import run

_XDG = ("XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME")


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in _XDG:
        monkeypatch.setenv(name, str(home / name.lower()))
    for name in ("THRIFT_FP_CACHE_DIR", "THRIFT_FP_DATABASE_URL"):
        monkeypatch.delenv(name, raising=False)
    return home


@pytest.fixture
def project(home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = home / "project"
    (root / "docs" / "api").mkdir(parents=True)
    (root / "docs" / "budget.md").write_text("# Budget\n\nThe cmake budget is the window minus the reserve.\n")
    (root / "notes").mkdir()
    (root / "notes" / "quota.md").write_text("# Quota\n\nA quota caps the queries of one request.\n")
    monkeypatch.chdir(root)
    return root


def test_index_creates_the_file_here_and_ask_answers_from_it_in_a_subfolder(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["index", "docs"]) == 0
    assert capsys.readouterr().err == "thrift-fp: indexing into thrift-fp.db (a new thrift-fp.db)\n"
    assert (project / "thrift-fp.db").is_file()
    monkeypatch.chdir(project / "docs" / "api")
    assert run(["ask", "cmake budget"]) == 0
    captured = capsys.readouterr()
    assert "docs/budget.md" in captured.out
    assert captured.err.splitlines()[0] == (
        f"thrift-fp: answered from {project / 'thrift-fp.db'} (the nearest thrift-fp.db)"
    )
    assert run(["ask", "cmake budget", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["corpus"] == {
        "database": str(project / "thrift-fp.db"), "chosen": "nearest",
    }


def test_index_from_a_subfolder_updates_the_nearest_index(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["index", "docs"]) == 0
    monkeypatch.chdir(project / "docs")
    assert run(["index", str(project / "notes")]) == 0
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"thrift-fp: indexing into {project / 'thrift-fp.db'} (the nearest thrift-fp.db)"
    )
    assert not (project / "docs" / "thrift-fp.db").exists()
    assert run(["ask", "quota caps queries", "--json"]) == 0
    assert "notes/quota.md" in json.loads(capsys.readouterr().out)["context"]


def test_without_an_index_ask_answers_from_the_embedded_corpus_and_says_so(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = home / "empty"
    empty.mkdir()
    monkeypatch.chdir(empty)
    assert run(["ask", "how does shedding work", "--budget", "600"]) == 0  # the README's first command
    captured = capsys.readouterr()
    assert "corpus/shedding.md" in captured.out
    assert captured.err.splitlines()[0].startswith(
        "thrift-fp: answered from the embedded corpus (no thrift-fp.db here or in a folder above;"
    )
    assert list(empty.iterdir()) == []
    # The embedded corpus's index lives in the user cache folder (XDG_CACHE_HOME here).
    assert [path.name.startswith("embedded-corpus-") for path in (home / "xdg_cache_home" / "thrift-fp").iterdir()] == [True]


def test_a_given_db_wins_and_is_named(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["index", "docs"]) == 0
    assert run(["index", "notes", "--db", "notes.db"]) == 0
    capsys.readouterr()
    assert run(["ask", "quota caps queries", "--db", "notes.db"]) == 0
    assert capsys.readouterr().err.splitlines()[0] == "thrift-fp: answered from notes.db"


def test_serve_opens_the_index_ask_would_answer_from(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    opened: list[str | None] = []

    def served(db: str | None, embedded: object, **_: object) -> Success[None]:
        opened.append(db)
        return Success(None)

    monkeypatch.setattr(command, "serve_command", served)
    assert run(["serve"]) == 0
    assert opened == [None] and "serving the embedded corpus" in capsys.readouterr().err
    assert run(["index", "docs"]) == 0
    monkeypatch.chdir(project / "docs" / "api")
    assert run(["serve"]) == 0
    assert opened[-1] == str(project / "thrift-fp.db")
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"thrift-fp: serving {project / 'thrift-fp.db'} (the nearest thrift-fp.db)"
    )
    # Over HTTP the address must stay the first line on standard error; a given index is not named.
    assert run(["serve", "--http", "127.0.0.1:0"]) == 0
    assert run(["serve", "--db", str(project / "thrift-fp.db")]) == 0
    assert capsys.readouterr().err == ""
    assert opened[-2:] == [str(project / "thrift-fp.db")] * 2


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="giving a file away needs root")
def test_an_index_another_user_owns_is_never_the_default(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["index", "docs"]) == 0
    os.chown(project / "thrift-fp.db", 65534, -1)  # nobody's, as if left in a shared /tmp
    capsys.readouterr()
    assert run(["ask", "cmake budget", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["corpus"]["chosen"] == "embedded"
