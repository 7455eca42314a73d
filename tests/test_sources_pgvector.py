"""Vectors in the database where it holds pgvector: an index run keeps each passage's vector in the
``embedding`` column under one HNSW index per tier, a search finds the dense candidates in SQL and
loads no vectors, the answers are the in-process path's, an existing collection moves its vectors
on its next run without embedding anything, and the ranking says which path ran and why.

Needs ``THRIFT_FP_TEST_PGVECTOR_URL`` (``.ci/pgvector.sh``); small collections, as CI runs them."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from tests._dense_model import CountingEmbedder, write_dense_docs, write_tiny_model
from tests._files import write_old as _write
from thrift_fp.sources import index_paths as sqlite_index
from thrift_fp.sources import search_index as sqlite_search
from thrift_fp.sources.dense import MATCH_RULE, load_onnx_embedder, missing_runtime
from thrift_fp.sources.dense import _vectors
from thrift_fp.sources.dense._probes import FLOOR_CAP
from thrift_fp.sources.postgres import PostgresDatabase, index_paths, open_database, search_index, search_ranking
from thrift_fp.sources.postgres._pgvector import index_name, nearest_in_sql, nearest_statement, stored_column, vector_text

pytestmark = pytest.mark.skipif(missing_runtime() is not None, reason="the [dense] extra's runtime is not installed")

QUESTIONS = ("make directory", "shed the lowest score", "count tokens", "budget window reserve", "create a folder")


def _docs(root: Path) -> Path:
    docs = write_dense_docs(root)
    _write(docs / "folders.txt", "Create a folder for each project.\n")  # a twin of folders.md's passage
    return docs


@pytest.fixture
def database(pgvector_url: str) -> Iterator[PostgresDatabase]:
    with open_database(pgvector_url, create=True).unwrap() as opened:
        yield opened


def _embedded(url: str) -> tuple[int, int]:
    """How many passages of the default collection have a vector in the column, and how many there are."""
    with psycopg.connect(url) as connection:
        row = connection.execute(
            "SELECT count(embedding), count(*) FROM thrift_fp_passages WHERE collection = 'default'"
        ).fetchone()
    assert row is not None
    return int(str(row[0])), int(str(row[1]))


def _searched_in_process() -> bool:
    return any("postgres" in version for version in _vectors._loaded)


def test_an_index_run_keeps_the_vectors_in_the_database_and_a_search_loads_none(
    database: PostgresDatabase, pgvector_url: str, tmp_path: Path
) -> None:
    embedder = CountingEmbedder()
    report = index_paths(database, [_docs(tmp_path)], dense=embedder).unwrap()
    assert report.embedded > 0
    filled, passages = _embedded(pgvector_url)
    assert filled == passages > 0
    with psycopg.connect(pgvector_url) as connection:
        names = {str(name) for (name,) in connection.execute("SELECT indexname FROM pg_indexes WHERE tablename = 'thrift_fp_passages' AND schemaname = current_schema()")}
    assert {index_name("default", tier, embedder.dimensions) for tier in ("first-party", "third-party-public", "third-party-private")} <= names
    _vectors._loaded.clear()
    assert search_ranking(database, dense=embedder).unwrap().as_json() == {
        "ranking": "hybrid", "dense_model": "letters", "dense_search": "pgvector",
        "match_floor": FLOOR_CAP, "match_floor_from": "this index's probes",  # letter counts: every probe is near
        "match_rule": MATCH_RULE,
    }
    hits = search_index(database, "budget reserve", dense=embedder).unwrap()
    assert hits and not _searched_in_process()


def test_hybrid_answers_on_pgvector_are_the_in_process_answers(database: PostgresDatabase, tmp_path: Path) -> None:
    docs = _docs(tmp_path)
    _write(tmp_path / "public" / "shed.md", "# Shedding\n\nDrop the lowest score first to make room.\n")
    tiny = load_onnx_embedder(*write_tiny_model(tmp_path), model_id="tiny").unwrap()
    index_paths(database, [docs], dense=tiny).unwrap()
    index_paths(database, [tmp_path / "public"], dense=tiny, trust_tier="third-party-public").unwrap()
    sqlite_index(tmp_path / "i.db", [docs], dense=tiny).unwrap()
    sqlite_index(tmp_path / "i.db", [tmp_path / "public"], dense=tiny, trust_tier="third-party-public").unwrap()
    for tiers in (("first-party", "third-party-public"), ("third-party-public",), ("first-party",)):
        for question in QUESTIONS:
            on_pgvector = search_index(database, question, dense=tiny, tiers=tiers).unwrap()
            in_process = sqlite_search(tmp_path / "i.db", question, dense=tiny, tiers=tiers).unwrap()
            assert [hit.passage_id for hit in on_pgvector] == [hit.passage_id for hit in in_process], (question, tiers)
            assert all(abs(a.score - b.score) < 1e-6 for a, b in zip(on_pgvector, in_process, strict=True))
            assert {hit.trust_tier for hit in on_pgvector} <= set(tiers)
    assert search_index(database, "make directory", dense=tiny).unwrap()[0].path.endswith(("folders.md", "folders.txt"))


def test_an_existing_collection_moves_its_vectors_on_its_next_run_without_embedding(
    database: PostgresDatabase, pgvector_url: str, tmp_path: Path
) -> None:
    docs, embedder = _docs(tmp_path), CountingEmbedder()
    index_paths(database, [docs], dense=embedder).unwrap()
    before = [(h.passage_id, round(h.score, 6)) for h in search_index(database, "shed the score", dense=embedder).unwrap()]
    with psycopg.connect(pgvector_url) as connection:
        # The shape a collection indexed before this release has: vectors as bytea only.
        connection.execute("DROP TABLE thrift_fp_pgvector")
        connection.execute("ALTER TABLE thrift_fp_passages DROP COLUMN embedding")
    ranking = search_ranking(database, dense=embedder).unwrap().as_json()
    assert ranking["dense_search"] == "in-process"
    assert "the next index run copies them" in str(ranking["dense_search_reason"])
    embedder.seen.clear()
    again = index_paths(database, [docs], dense=embedder).unwrap()
    assert again.embedded == 0 and embedder.seen == []  # moved, not embedded; the floor kept
    filled, passages = _embedded(pgvector_url)
    assert filled == passages > 0
    assert search_ranking(database, dense=embedder).unwrap().as_json()["dense_search"] == "pgvector"
    after = [(h.passage_id, round(h.score, 6)) for h in search_index(database, "shed the score", dense=embedder).unwrap()]
    assert after == before


def test_passages_a_lexical_run_changed_get_their_vectors_on_the_next_dense_run(
    database: PostgresDatabase, pgvector_url: str, tmp_path: Path
) -> None:
    docs, embedder = _docs(tmp_path), CountingEmbedder()
    index_paths(database, [docs], dense=embedder).unwrap()
    _write(docs / "tokens.md", "# Tokens\n\nCount tokens exactly, never estimate them.\n")
    index_paths(database, [docs]).unwrap()
    assert search_ranking(database, dense=embedder).unwrap().kind == "lexical"
    assert _embedded(pgvector_url)[0] < _embedded(pgvector_url)[1]
    embedder.seen.clear()
    assert index_paths(database, [docs], dense=embedder).unwrap().embedded == 1
    filled, passages = _embedded(pgvector_url)
    assert filled == passages
    hits = search_index(database, "estimate", dense=embedder).unwrap()
    assert hits[0].source == "docs/tokens.md"


def test_another_model_replaces_the_column_and_its_indexes(
    database: PostgresDatabase, pgvector_url: str, tmp_path: Path
) -> None:
    docs = _docs(tmp_path)
    index_paths(database, [docs], dense=CountingEmbedder()).unwrap()
    tiny = load_onnx_embedder(*write_tiny_model(tmp_path), model_id="tiny").unwrap()
    wider = CountingEmbedder(model_id="letters-16", dimensions=16)
    wider.embed = lambda texts: [vector * 2 for vector in CountingEmbedder().embed(texts)]  # type: ignore[method-assign]  # a 16-float vector: two 8-float halves (norm √2, fine for ordering)
    for embedder in (tiny, wider):
        index_paths(database, [docs], dense=embedder).unwrap()
        with psycopg.connect(pgvector_url) as connection:
            column = stored_column(connection, "default")
            names = {str(n) for (n,) in connection.execute("SELECT indexname FROM pg_indexes WHERE indexname LIKE 'thrift_fp_hnsw_%' AND schemaname = current_schema()")}
        assert column is not None and (column.model, column.dimensions) == (embedder.model_id, embedder.dimensions)
        assert names == {index_name("default", tier, embedder.dimensions) for tier in ("first-party", "third-party-public", "third-party-private")}
        assert _embedded(pgvector_url)[0] == _embedded(pgvector_url)[1]
        assert search_ranking(database, dense=embedder).unwrap().as_json()["dense_search"] == "pgvector"
        assert search_index(database, "create folder", dense=embedder).unwrap()


def test_the_dense_candidates_come_from_the_hnsw_index(database: PostgresDatabase, pgvector_url: str, tmp_path: Path) -> None:
    embedder = CountingEmbedder()
    index_paths(database, [_docs(tmp_path)], dense=embedder).unwrap()
    with psycopg.connect(pgvector_url, autocommit=True) as connection:
        column = stored_column(connection, "default")
        assert column is not None
        connection.execute("SET enable_seqscan = off")  # a tiny table: ask whether the index *can* answer
        statement = nearest_statement("default", column, "first-party", 10)
        plan = [str(row[0]) for row in connection.execute(psycopg.sql.SQL("EXPLAIN ") + statement, {"q": vector_text(embedder.embed(["budget"])[0])})]
        near, _ = nearest_in_sql(connection, "default", column, embedder.embed(["budget"])[0], {"first-party"}, 5)
    assert near
    assert any(f"Index Scan using {index_name('default', 'first-party', 8)}" in line for line in plan), plan


def test_an_index_run_creates_the_extension_where_the_server_has_it(pgvector_base_url: str, tmp_path: Path) -> None:
    name = f"thrift_fp_fresh_{secrets.token_hex(4)}"
    with psycopg.connect(pgvector_base_url, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    fresh = pgvector_base_url.replace("/thrift_fp_test?", f"/{name}?")
    try:
        with open_database(fresh, create=True).unwrap() as opened:
            embedder = CountingEmbedder()
            index_paths(opened, [_docs(tmp_path)], dense=embedder).unwrap()
            assert search_ranking(opened, dense=embedder).unwrap().as_json()["dense_search"] == "pgvector"
        with psycopg.connect(fresh) as connection:
            assert connection.execute("SELECT extname FROM pg_extension WHERE extname = 'vector'").fetchone() == ("vector",)
    finally:
        with psycopg.connect(pgvector_base_url, autocommit=True) as admin:
            admin.execute(f"DROP DATABASE {name} WITH (FORCE)")



def test_a_hostile_collection_name_is_quoted_in_the_index_predicates_and_searches(
    database: PostgresDatabase, pgvector_url: str, tmp_path: Path
) -> None:
    hostile = "o'brien \"x\"; DROP TABLE thrift_fp_files; -- \\ ü"
    embedder = CountingEmbedder()
    index_paths(database, [_docs(tmp_path)], collection=hostile, dense=embedder).unwrap()
    assert search_ranking(database, collection=hostile, dense=embedder).unwrap().as_json()["dense_search"] == "pgvector"
    assert search_index(database, "create a folder", collection=hostile, dense=embedder).unwrap()
    with psycopg.connect(pgvector_url) as connection:
        assert connection.execute("SELECT count(*) FROM thrift_fp_files").fetchone() == (4,)
        column = stored_column(connection, hostile)
    assert column is not None and column.model == "letters"
