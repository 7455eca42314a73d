"""The ranking statistics PostgreSQL keeps: concurrent writers lose no update, a database made
before them gains them on its next index run with the same answers, and searches read them."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from tests._postgres_passages import COLUMNS, ensure_files, kept, passage_row, recounted
from tests._support import run_together
from thrift_fp.sources.postgres import PostgresDatabase, index_paths, open_database, search_index

_Connection = psycopg.Connection[tuple[object, ...]]


@pytest.fixture
def database(pg_url: str) -> Iterator[PostgresDatabase]:
    with open_database(pg_url, create=True).unwrap() as opened:
        yield opened


def _insert(connection: _Connection, number: int, lexicon: list[str]) -> None:
    connection.execute(
        f"INSERT INTO thrift_fp_passages ({COLUMNS}) VALUES ({', '.join(['%s'] * 21)})",
        passage_row("a", "x.md", (lexicon, 3, 1, 0), number),
    )


def test_two_writers_of_one_term_both_count(database: PostgresDatabase, pg_url: str) -> None:
    # The first writer holds the term's row until it commits; the second waits, then adds to
    # the committed count: 2 passages, not the 1 a read-then-write would leave.
    with psycopg.connect(pg_url, autocommit=True) as setup:
        ensure_files(setup, "a")
    inserted = threading.Event()

    def first() -> None:
        with psycopg.connect(pg_url) as connection:
            _insert(connection, 1, ["shed", "budget"])
            inserted.set()
            time.sleep(0.3)
            connection.commit()

    writer = threading.Thread(target=first)
    writer.start()
    assert inserted.wait(10)
    with psycopg.connect(pg_url, autocommit=True) as connection:
        _insert(connection, 2, ["shed", "tier"])
        writer.join()
        assert kept(connection) == recounted(connection)
        assert kept(connection)[1][("a", "shed")] == 2


def test_many_concurrent_writers_keep_exact_counts(database: PostgresDatabase, pg_url: str) -> None:
    with psycopg.connect(pg_url, autocommit=True) as setup:
        ensure_files(setup, "a")
    failures: list[BaseException] = []

    def write(worker: int) -> None:
        try:
            with psycopg.connect(pg_url, autocommit=True) as connection:
                for step in range(12):
                    number = worker * 100 + step
                    with connection.transaction():
                        _insert(connection, number, ["shed", "budget", f"w{worker}"][: 1 + step % 3])
                        if step % 4 == 3:
                            connection.execute(
                                "DELETE FROM thrift_fp_passages WHERE collection = 'a' AND ordinal = %s", (number - 2,)
                            )
        except BaseException as exc:  # noqa: BLE001 - reported by the test below
            failures.append(exc)

    run_together(write, 4)
    assert failures == []
    with psycopg.connect(pg_url, autocommit=True) as connection:
        assert kept(connection) == recounted(connection)
        assert kept(connection)[0]["a"][0] == 4 * 9


_DROP_STATISTICS = """
DROP TABLE thrift_fp_collection_sizes, thrift_fp_term_passages;
DROP FUNCTION thrift_fp_count_passages() CASCADE
"""


def test_an_older_database_gains_its_statistics_on_the_next_index_run(
    database: PostgresDatabase, tmp_path: Path
) -> None:
    (tmp_path / "a.md").write_text("# Budget\n\nShed the lowest score first.\n\nTrust tiers come from the operator.")
    (tmp_path / "b.txt").write_text("A budget of tokens; shedding keeps the budget. Scores rank passages.")
    index_paths(database, [tmp_path], collection="docs", max_tokens=16).unwrap()
    questions = ("budget shedding", "trust tiers", "score", "nothing here")
    with database.pool.connection() as connection:
        connection.execute(_DROP_STATISTICS)  # as a database made before them
    scanned = [search_index(database, question, collection="docs") for question in questions]
    (tmp_path / "c.md").write_text("Tiers: first-party and third-party. Budget again.")
    index_paths(database, [tmp_path], collection="docs", max_tokens=16).unwrap()
    with database.pool.connection() as connection:
        assert kept(connection) == recounted(connection)
        assert set(kept(connection)[0]) == {"docs"}
    (tmp_path / "c.md").unlink()
    index_paths(database, [tmp_path], collection="docs", max_tokens=16).unwrap()
    with database.pool.connection() as connection:
        assert kept(connection) == recounted(connection)
    assert [search_index(database, question, collection="docs") for question in questions] == scanned
    assert scanned[0].unwrap()


def test_a_search_reads_the_kept_statistics(database: PostgresDatabase, tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("Shed the lowest score first.\n\nBudgets are tokens.")
    index_paths(database, [tmp_path], collection="docs", max_tokens=8).unwrap()
    before = search_index(database, "shed", collection="docs").unwrap()
    with database.pool.connection() as connection:
        # A term held by every passage of a far larger collection is worth almost nothing.
        connection.execute("UPDATE thrift_fp_collection_sizes SET passages = 1000000")
        connection.execute("UPDATE thrift_fp_term_passages SET passages = 1000000 WHERE term = 'shed'")
    after = search_index(database, "shed", collection="docs").unwrap()
    assert [hit.passage_id for hit in after] == [hit.passage_id for hit in before]
    assert after[0].rank < before[0].rank / 100
