"""The embedded corpus's cache belongs to one installation.

Regression: every installation (venvs, pipx, Python versions) shared one
`embedded-corpus.db` in the per-user cache, and indexing only adds and updates the files
under the folder it is given. An `ask` in one installation therefore also searched the
corpus another installation had indexed there, including text that its own corpus no
longer says, and labelled its own passages with full paths.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from thrift_fp.cli import _paths, run
from thrift_fp.sources import embedded_corpus, index_paths

STALE = "Shedding in version zero discarded the highest score first."


def test_ask_searches_only_this_installations_corpus(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("THRIFT_FP_CACHE_DIR", str(tmp_path / "cache"))
    other = tmp_path / "other-install" / "corpus"
    shutil.copytree(embedded_corpus(), other)
    with (other / "shedding.md").open("a") as note:
        note.write(f"\n\n{STALE}\n")
    with monkeypatch.context() as patched:
        patched.setattr(_paths, "embedded_corpus", lambda: other)
        index_paths(_paths.embedded_database(), [other]).unwrap()
    assert run(["ask", "how does shedding work", "--json"]) == 0
    out = capsys.readouterr().out
    assert STALE not in out
    assert "src=corpus/shedding.md " in out and str(embedded_corpus()) not in out


def test_a_cache_index_that_cannot_be_replaced_is_one_error_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("THRIFT_FP_CACHE_DIR", str(tmp_path / "cache"))
    _paths.embedded_database().mkdir(parents=True)
    assert run(["ask", "how does shedding work"]) == 1
    reason = "is not a usable thrift_fp index: it is a folder, not an index file"
    assert capsys.readouterr().err == f"thrift-fp: error: {_paths.embedded_database()} {reason}\n"
