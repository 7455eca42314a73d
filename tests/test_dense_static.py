"""The static embedding model (issue 35's fast route): it loads offline from the installed wheel,
ranks a paraphrase above an unrelated text, and an index records it, so that later runs and
searches use the model the index holds."""

from __future__ import annotations

import os
import struct
from pathlib import Path

import pytest
from returns.result import Success

from thrift_fp.sources import index_paths, search_index, search_ranking
from thrift_fp.sources.sqlite._held import held_model
from thrift_fp.sources.dense._static import STATIC_MODEL_ID, static_embedder

pytestmark = pytest.mark.skipif(
    not isinstance(static_embedder(), Success), reason="the static model's package (wordllama) is not installed"
)


def _unpack(vector: bytes) -> tuple[float, ...]:
    return struct.unpack(f"<{len(vector) // 4}f", vector)


def test_the_static_model_ranks_a_paraphrase_above_an_unrelated_text() -> None:
    embedder = static_embedder().unwrap()
    assert (embedder.model_id, embedder.dimensions) == (STATIC_MODEL_ID, 256)
    question, answer, unrelated, empty = (_unpack(v) for v in embedder.embed([
        "how do I read a whole file into memory",
        "fs.readFile(path) asynchronously reads the entire contents of a file.",
        "The cluster module allows easy creation of child processes that share server ports.",
        "",
    ]))
    assert sum(q * a for q, a in zip(question, answer)) > sum(q * u for q, u in zip(question, unrelated))
    assert abs(sum(q * q for q in question) - 1.0) < 1e-5 and set(empty) == {0.0}


def test_an_index_of_static_vectors_is_searched_and_updated_with_that_model(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "folders.md").write_text("# Folders\n\nCreate a directory for each project.\n")
    (docs / "budget.md").write_text("# Budget\n\nShed the lowest score first.\n")
    for path in docs.iterdir():
        os.utime(path, (1e9, 1e9))
    assert index_paths(tmp_path / "i.db", [docs], dense=static_embedder().unwrap()).unwrap().embedded == 2
    assert held_model(tmp_path / "i.db") == STATIC_MODEL_ID
    ranking = search_ranking(tmp_path / "i.db", dense=True).unwrap()
    assert (ranking.kind, ranking.model) == ("hybrid", STATIC_MODEL_ID)
    assert search_index(tmp_path / "i.db", "make a new folder", dense=True).unwrap()[0].path.endswith("folders.md")
    (docs / "tokens.md").write_text("# Tokens\n\nCount tokens exactly.\n")
    # The default (dense=True) keeps the index's model: one new passage, embedded statically.
    assert index_paths(tmp_path / "i.db", [docs], dense=True).unwrap().embedded == 1
    assert held_model(tmp_path / "i.db") == STATIC_MODEL_ID
