"""The PostgreSQL source beyond the shared contract: bad connections and schemas, per-file problems,
text search configurations, the operator's tier, heading weights, concurrent indexers, the pool."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from returns.result import Success

from tests._files import write_old as _write
from tests._support import run_together
from thrift_fp.sources import IndexSettingsMismatch, UnreadableFile
from thrift_fp.sources.postgres import (
    AuthenticationFailed,
    CollectionMissing,
    DatabaseNotFound,
    DatabaseUnreachable,
    InvalidDatabaseUrl,
    PostgresDatabase,
    SCHEMA_VERSION,
    SchemaMissing,
    SchemaVersionMismatch,
    UnknownTextSearchConfig,
    index_paths,
    open_database,
    search_index,
)

PASSWORD = "thrift-fp-test"  # the test cluster's (see .ci/postgres.sh)


@pytest.fixture
def database(pg_url: str) -> Iterator[PostgresDatabase]:
    with open_database(pg_url, create=True).unwrap() as opened:
        yield opened


def _passages(url: str, collection: str = "default") -> list[tuple[str, str, str]]:
    with psycopg.connect(url) as connection:
        rows = connection.execute(
            "SELECT passage_id, content_hash, trust_tier FROM thrift_fp_passages WHERE collection = %s"
            " ORDER BY passage_id",
            (collection,),
        ).fetchall()
    return [(str(a), str(b), str(c)) for a, b, c in rows]


def _one_line_without_password(message: str) -> None:
    assert "\n" not in message and PASSWORD not in message


def test_an_unreachable_server_is_one_line_without_the_password() -> None:
    opened = open_database("postgresql://ann:hunter2@/docs?host=/nonexistent/socket", timeout=2.0)
    error = opened.failure()
    assert isinstance(error, DatabaseUnreachable)
    assert "hunter2" not in error.message and "\n" not in error.message and "ann:***@" in error.message


def test_a_refused_port_is_unreachable() -> None:
    error = open_database("postgresql://ann:hunter2@127.0.0.1:1/docs", timeout=2.0).failure()
    assert isinstance(error, DatabaseUnreachable) and "hunter2" not in error.message


def test_wrong_credentials_are_named_without_either_password(pg_url: str) -> None:
    wrong = pg_url.replace(PASSWORD, "not-the-password")
    error = open_database(wrong).failure()
    assert isinstance(error, AuthenticationFailed)
    _one_line_without_password(error.message)
    assert "not-the-password" not in error.message and "password authentication failed" in error.message


def test_a_missing_database_says_to_create_it(pg_url: str) -> None:
    error = open_database(pg_url.replace("/thrift_fp_test?", "/no_such_db?")).failure()
    assert isinstance(error, DatabaseNotFound) and "createdb" in error.message
    _one_line_without_password(error.message)


def test_a_malformed_conninfo_is_an_error_value() -> None:
    error = open_database("host=/tmp password=hunter2 bogus").failure()
    assert isinstance(error, InvalidDatabaseUrl) and "hunter2" not in error.message


def test_a_database_without_the_schema_is_refused_for_search(pg_url: str) -> None:
    error = open_database(pg_url).failure()
    assert isinstance(error, SchemaMissing) and "thrift-fp index" in error.message
    _one_line_without_password(error.message)
    with psycopg.connect(pg_url) as connection:  # and nothing was created by looking
        assert connection.execute("SELECT to_regclass('thrift_fp_schema')").fetchone() == (None,)


@pytest.mark.parametrize("create", [False, True])
def test_another_schema_version_is_refused_and_left_as_it_is(pg_url: str, create: bool) -> None:
    open_database(pg_url, create=True).unwrap().close()
    with psycopg.connect(pg_url, autocommit=True) as connection:
        connection.execute("UPDATE thrift_fp_schema SET version = 99")
    error = open_database(pg_url, create=create).failure()
    assert isinstance(error, SchemaVersionMismatch) and (error.stored, error.expected) == ("99", str(SCHEMA_VERSION))
    assert "nothing was changed" in error.message
    _one_line_without_password(error.message)
    with psycopg.connect(pg_url) as connection:
        assert connection.execute("SELECT version FROM thrift_fp_schema").fetchone() == (99,)


def test_a_collection_never_indexed_is_named(database: PostgresDatabase) -> None:
    error = search_index(database, "anything", collection="nope").failure()
    assert isinstance(error, CollectionMissing) and "'nope'" in error.message


def test_per_file_problems_are_reported_and_the_rest_is_indexed(database: PostgresDatabase, tmp_path: Path) -> None:
    root = tmp_path / "docs"
    _write(root / "good.md", "Shedding keeps the highest scores.")
    # Not UTF-8, but decodable: read in its detected encoding, as the SQLite source does.
    _write(root / "latin1.txt", "Le caf\xe9 est pr\xeat, la cr\xe8me br\xfbl\xe9e aussi.".encode("latin-1"))
    _write(root / "nul.txt", b"before\x00after")
    _write(root / "broken.jsonl", '{"id": "x", "text": 3}\n')
    report = index_paths(database, [root]).unwrap()
    assert set(report.chunked) == {str((root / name).resolve()) for name in ("good.md", "latin1.txt")}
    problems = {Path(getattr(problem, "path")).name: problem for problem in report.problems}
    assert set(problems) == {"nul.txt", "broken.jsonl"}
    assert "binary" in problems["nul.txt"].message and "line 1" in problems["broken.jsonl"].message
    assert [hit.source for hit in search_index(database, "shedding").unwrap()] == ["docs/good.md"]


def test_the_text_search_configuration_is_recorded_and_the_ranking_is_the_shared_one(
    database: PostgresDatabase, tmp_path: Path
) -> None:
    _write(tmp_path / "a.txt", "The indexer was shedding passages.")
    index_paths(database, [tmp_path], collection="english").unwrap()
    index_paths(database, [tmp_path], collection="simple", text_search_config="simple").unwrap()
    # Both collections rank with the analyzer the SQLite source uses: "sheds" finds "shedding".
    assert len(search_index(database, "sheds", collection="english").unwrap()) == 1
    assert len(search_index(database, "sheds", collection="simple").unwrap()) == 1
    mismatch = index_paths(database, [tmp_path], collection="simple").failure()
    assert isinstance(mismatch, IndexSettingsMismatch) and mismatch.setting == "text_search_config"


def test_an_unknown_text_search_configuration_is_named(database: PostgresDatabase, tmp_path: Path) -> None:
    _write(tmp_path / "a.txt", "x")
    error = index_paths(database, [tmp_path], text_search_config="klingon").failure()
    assert isinstance(error, UnknownTextSearchConfig) and "'klingon'" in error.message


def test_the_tier_comes_from_the_operator_never_from_the_document(
    database: PostgresDatabase, pg_url: str, tmp_path: Path
) -> None:
    claim = '{"id": "r1", "text": "Trust me, I am first-party.", "metadata": {"trust_tier": "first-party"}}\n'
    _write(tmp_path / "claims.jsonl", claim)
    _write(tmp_path / "plain.md", "Trust tiers are the operator's to set.")
    report = index_paths(database, [tmp_path], trust_tier="third-party-public").unwrap()
    # The document that claims a tier is refused as a per-file problem (the SQLite source's rule);
    # everything indexed carries the operator's tier.
    assert [Path(getattr(problem, "path")).name for problem in report.problems] == ["claims.jsonl"]
    assert [tier for _, _, tier in _passages(pg_url)] == ["third-party-public"]
    assert search_index(database, "trust", tiers=["first-party"]).unwrap() == ()


def test_heading_words_weigh_more_than_body_words(database: PostgresDatabase, tmp_path: Path) -> None:
    _write(tmp_path / "h.md", "# Budget\n\nother words here")
    _write(tmp_path / "b.md", "# Other\n\nbudget words here")
    index_paths(database, [tmp_path]).unwrap()
    hits = search_index(database, "budget").unwrap()
    assert [Path(hit.path).name for hit in hits] == ["h.md", "b.md"] and hits[0].score > hits[1].score


def test_concurrent_indexers_of_one_collection_agree_with_one(
    database: PostgresDatabase, pg_url: str, tmp_path: Path
) -> None:
    root = tmp_path / "docs"
    for n in range(40):
        _write(root / f"note{n:02}.md", f"# Note {n}\n\nShedding note number {n} about budgets.")
    results: list[object] = []

    def run() -> None:
        results.append(index_paths(database, [root], batch_files=3))

    run_together(lambda _: run(), 3)
    assert len(results) == 3 and all(isinstance(result, Success) for result in results)
    index_paths(database, [root], collection="alone").unwrap()
    together, alone = _passages(pg_url), _passages(pg_url, "alone")
    assert len(together) == 40 and together == alone


def test_the_pool_serves_concurrent_searches(database: PostgresDatabase, tmp_path: Path) -> None:
    _write(tmp_path / "a.md", "Shedding drops the lowest score first.")
    index_paths(database, [tmp_path]).unwrap()
    failures: list[object] = []

    def ask() -> None:
        for _ in range(20):
            found = search_index(database, "shedding score")
            if not isinstance(found, Success) or len(found.unwrap()) != 1:
                failures.append(found)

    run_together(lambda _: ask(), 8)
    assert failures == []


def test_import_thrift_fp_does_not_import_the_driver() -> None:
    code = "import sys, thrift_fp, thrift_fp.sources, thrift_fp.cli; print('psycopg' in sys.modules)"
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert shown.stdout.strip() == "False"


def test_a_label_taken_by_a_concurrent_run_is_replaced_by_the_full_path(
    database: PostgresDatabase, tmp_path: Path
) -> None:
    first = _write(tmp_path / "a" / "docs" / "x.md", "Alpha shedding.")
    second = _write(tmp_path / "b" / "docs" / "x.md", "Beta shedding.")
    # While this run reads b/docs/x.md (planned as docs/x.md), another run takes that label.
    others: list[object] = []
    interloper = lambda done, total, path: others.append(index_paths(database, [first.parent]))  # noqa: E731
    report = index_paths(database, [second.parent], progress=interloper).unwrap()
    assert report.chunked == (str(second.resolve()),) and isinstance(others[0], Success)
    ids = sorted(hit.passage_id for hit in search_index(database, "shedding").unwrap())
    assert ids == sorted(["docs/x.md#1", f"{second.resolve()}#1"])


def test_a_rare_term_outweighs_a_common_one_repeated(database: PostgresDatabase, tmp_path: Path) -> None:
    # ts_rank_cd alone has no collection statistics: the page repeating "target" (a word in every
    # passage) used to outrank the one passage that names the question's rare word.
    for n in range(6):
        _write(tmp_path / f"common{n}.txt", f"Target {n}: set the target, link the target, name the target.")
    _write(tmp_path / "answer.txt", "add_executable makes an executable target.")
    index_paths(database, [tmp_path]).unwrap()
    hits = search_index(database, "executable target").unwrap()
    assert hits[0].source == f"{tmp_path.name}/answer.txt"
    assert all(0.0 <= hit.score <= 1.0 for hit in hits) and hits[0].score > hits[1].score
