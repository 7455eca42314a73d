"""Hybrid ranking over a PostgreSQL collection: the same rules as the SQLite index (vectors stored
beside the passages, only new or changed passages embedded, fused search, lexical with its reason
otherwise), and the same answers as SQLite for the same files."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from tests._dense_model import CountingEmbedder, passages_seen, probes_seen, write_dense_docs, write_tiny_model
from tests._files import write_old as _write
from thrift_fp.sources import index_paths as sqlite_index
from thrift_fp.sources import search_index as sqlite_search
from thrift_fp.sources.dense import MATCH_FLOOR, MATCH_RULE, EmbeddingFailed, load_onnx_embedder, missing_runtime, probe_questions
from thrift_fp.sources.dense._probes import FLOOR_CAP
from thrift_fp.sources.postgres import PostgresDatabase, index_paths, open_database, search_index, search_ranking

pytestmark = pytest.mark.skipif(missing_runtime() is not None, reason="the [dense] extra's runtime is not installed")

def _docs(root: Path) -> Path:
    return write_dense_docs(root)


@pytest.fixture
def database(pg_url: str) -> Iterator[PostgresDatabase]:
    with open_database(pg_url, create=True).unwrap() as opened:
        yield opened


def _vectors(url: str) -> dict[str, bytes]:
    with psycopg.connect(url) as connection:
        rows = connection.execute("SELECT key, vector FROM thrift_fp_dense_vectors WHERE collection = 'default'")
        return {str(key): bytes(vector) for key, vector in rows.fetchall()}


def test_vectors_round_trip_and_a_rerun_embeds_only_what_changed(
    database: PostgresDatabase, pg_url: str, tmp_path: Path
) -> None:
    docs, embedder = _docs(tmp_path), CountingEmbedder()
    first = index_paths(database, [docs], dense=embedder).unwrap()
    assert first.embedded == len(passages_seen(embedder)) == len(_vectors(pg_url)) > 0
    assert sorted(_vectors(pg_url).values()) == sorted(CountingEmbedder().embed(sorted(passages_seen(embedder))))
    assert probes_seen(embedder) == list(probe_questions())  # the collection's floor, calibrated once
    embedder.seen.clear()
    assert index_paths(database, [docs], dense=embedder).unwrap().embedded == 0
    assert embedder.seen == []  # nothing changed: nothing embedded, the floor kept
    _write(docs / "tokens.md", "# Tokens\n\nCount tokens exactly, never estimate them.\n")
    again = index_paths(database, [docs], dense=embedder).unwrap()
    assert again.embedded == len(passages_seen(embedder)) == 1 and "never estimate them" in embedder.seen[0]
    assert probes_seen(embedder) == list(probe_questions())  # the passages changed: measured again
    assert len(_vectors(pg_url)) == first.embedded  # the old tokens.md vector is gone


def test_hybrid_search_on_postgres_matches_sqlite(database: PostgresDatabase, tmp_path: Path) -> None:
    docs = _docs(tmp_path)
    tiny = load_onnx_embedder(*write_tiny_model(tmp_path), model_id="tiny").unwrap()
    index_paths(database, [docs], dense=tiny).unwrap()
    sqlite_index(tmp_path / "i.db", [docs], dense=tiny).unwrap()
    assert search_ranking(database, dense=tiny).unwrap().kind == "hybrid"
    for question in ("make directory", "shed the lowest score", "count tokens", "budget window reserve"):
        on_postgres = [(hit.passage_id, round(hit.score, 9)) for hit in search_index(database, question, dense=tiny).unwrap()]
        on_sqlite = [
            (hit.passage_id, round(hit.score, 9)) for hit in sqlite_search(tmp_path / "i.db", question, dense=tiny).unwrap()
        ]
        assert on_postgres == on_sqlite, question
    assert search_index(database, "make directory", dense=tiny).unwrap()[0].path.endswith("folders.md")


def test_a_lexical_run_that_changes_passages_makes_postgres_rank_lexically_and_say_why(
    database: PostgresDatabase, tmp_path: Path
) -> None:
    docs, embedder = _docs(tmp_path), CountingEmbedder()
    index_paths(database, [docs], dense=embedder).unwrap()
    assert search_ranking(database, dense=embedder).unwrap().kind == "hybrid"
    _write(docs / "tokens.md", "# Tokens\n\nSomething else.\n")
    index_paths(database, [docs]).unwrap()
    ranking = search_ranking(database, dense=embedder).unwrap()
    assert ranking.as_json() == {
        "ranking": "lexical",
        "ranking_reason": "the collection holds no complete set of vectors, not of letters: "
        "index it again with the [dense] extra installed",
    }


def test_an_embedder_that_fails_is_a_value_on_postgres(database: PostgresDatabase, tmp_path: Path) -> None:
    class Broken(CountingEmbedder):
        def embed(self, texts: object) -> list[bytes]:
            raise MemoryError("no room")

    failed = index_paths(database, [_docs(tmp_path)], dense=Broken()).failure()
    assert isinstance(failed, EmbeddingFailed)
    assert search_ranking(database, dense=CountingEmbedder()).unwrap().kind == "lexical"


def test_the_ranking_says_where_the_dense_candidates_are_found_and_why(database: PostgresDatabase, tmp_path: Path) -> None:
    embedder = CountingEmbedder()
    index_paths(database, [_docs(tmp_path)], dense=embedder).unwrap()
    with database.pool.connection() as connection:
        available = connection.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'").fetchone()
    shown = search_ranking(database, dense=embedder).unwrap().as_json()
    if available is None:  # Debian's PostgreSQL (CI's first cluster): the vectors are searched in process
        assert shown == {
            "ranking": "hybrid", "dense_model": "letters", "dense_search": "in-process",
            "dense_search_reason": "the server has no pgvector (no vector extension is available)",
            # Letter counts put every probe near some passage: the calibration reaches its cap.
            "match_floor": FLOOR_CAP, "match_floor_from": "this index's probes", "match_rule": MATCH_RULE,
        }
    else:  # a server with pgvector (tests/test_sources_pgvector.py covers it)
        assert shown["dense_search"] == "pgvector"


def test_a_collection_from_before_the_calibrated_floor_searches_with_the_default_until_its_next_run(
    database: PostgresDatabase, pg_url: str, tmp_path: Path
) -> None:
    docs, embedder = _docs(tmp_path), CountingEmbedder()
    index_paths(database, [docs], dense=embedder).unwrap()
    with psycopg.connect(pg_url) as connection:
        # The shape of a collection indexed before this release: no floor columns.
        connection.execute("ALTER TABLE thrift_fp_dense_models DROP COLUMN match_floor, DROP COLUMN match_floor_rule")
    ranking = search_ranking(database, dense=embedder).unwrap()
    assert (ranking.match_floor, ranking.floor_calibrated) == (MATCH_FLOOR, False)
    assert search_index(database, "budget reserve", dense=embedder).unwrap()
    embedder.seen.clear()
    assert index_paths(database, [docs], dense=embedder).unwrap().embedded == 0
    assert passages_seen(embedder) == [] and probes_seen(embedder) == list(probe_questions())
    ranking = search_ranking(database, dense=embedder).unwrap()
    assert ranking.floor_calibrated and ranking.match_floor == FLOOR_CAP  # letter counts: every probe is near
