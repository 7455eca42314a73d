"""The vectors an SQLite index keeps as one block (`thrift_fp.sources.sqlite._block`, issue 35): a
finished embedding run writes it, a search loads it instead of joining the tables, and a block
that is unguarded, of another model or width, or malformed is never used (the search computes
the matrix from the tables, as before)."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from tests._dense_model import CountingEmbedder, two_docs
from tests._vector_keys import block_kept, computed, edit_by_hand, fields, loaded
from thrift_fp.sources import index_paths, search_index
from thrift_fp.sources.sqlite import _dense
from thrift_fp.sources.sqlite._block import BLOCK_TABLE, BLOCK_TRIGGERS, stored_block


@pytest.fixture
def indexed(tmp_path: Path) -> Path:
    docs = two_docs(tmp_path)
    (docs / "tiers.md").write_text("# Tiers\n\nA budget for each tier.\n\n## More\n\nShed a score.\n", encoding="utf-8")
    assert index_paths(tmp_path / "i.db", [docs], dense=CountingEmbedder(), max_tokens=16).unwrap().embedded >= 3
    return tmp_path / "i.db"


def _block(database: Path, embedder: CountingEmbedder) -> object:
    connection = sqlite3.connect(database)
    try:
        return stored_block(connection, embedder.model_id, embedder.dimensions)
    finally:
        connection.close()


def test_an_embedding_run_keeps_the_block_and_a_search_loads_it_alone(
    indexed: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    embedder = CountingEmbedder()
    assert block_kept(indexed, embedder.model_id)
    expected = fields(computed(indexed, embedder))

    def no_tables(*_: object) -> None:
        raise AssertionError("the tables were read: the block was not used")

    monkeypatch.setattr(_dense, "_load_tables", no_tables)
    assert fields(loaded(indexed, embedder)) == expected
    # And a hybrid search ranks with it.
    assert [hit.passage_id for hit in search_index(indexed, "budget", dense=embedder).unwrap()]


@pytest.mark.parametrize("corruption", [
    f"UPDATE {BLOCK_TABLE} SET dimensions = dimensions + 1",
    f"UPDATE {BLOCK_TABLE} SET model = 'another'",
    f"UPDATE {BLOCK_TABLE} SET passages = 'not json'",
    f"UPDATE {BLOCK_TABLE} SET passages = '{{\"rows\": []}}'",
    f"UPDATE {BLOCK_TABLE} SET passages = '[[1, \"a\", \"first-party\"]]'",
    f"UPDATE {BLOCK_TABLE} SET passages = json_insert(passages, '$[#]', json_array(999, 'x', 'first-party', 'h'))",
    f"UPDATE {BLOCK_TABLE} SET passages = json_set(passages, '$[0][0]', '1')",
    f"UPDATE {BLOCK_TABLE} SET passages = json_set(passages, '$[0][1]', 7)",
    f"UPDATE {BLOCK_TABLE} SET passages = json_set(passages, '$[1][0]', json_extract(passages, '$[0][0]'))",
    f"UPDATE {BLOCK_TABLE} SET vectors = substr(vectors, 1, length(vectors) - 4)",
    f"UPDATE {BLOCK_TABLE} SET vectors = 'text, not a blob'",
    f"DROP TRIGGER {BLOCK_TRIGGERS[0]}",
    f"DROP TRIGGER {BLOCK_TRIGGERS[-1]}",
])
def test_a_block_not_whole_is_never_used(indexed: Path, corruption: str) -> None:
    embedder = CountingEmbedder()
    expected = fields(computed(indexed, embedder))
    assert _block(indexed, embedder) is not None
    edit_by_hand(indexed, corruption)
    assert _block(indexed, embedder) is None
    assert fields(loaded(indexed, embedder)) == expected


def test_any_change_to_what_the_matrix_is_made_of_empties_the_block(indexed: Path) -> None:
    embedder = CountingEmbedder()
    for table in ("passages", "dense_vectors", "passage_vector_keys"):
        index_paths(indexed, [indexed.parent / "docs"], dense=embedder, max_tokens=16).unwrap()
        assert block_kept(indexed, embedder.model_id)
        edit_by_hand(indexed, f"DELETE FROM {table} WHERE rowid = (SELECT max(rowid) FROM {table})")
        connection = sqlite3.connect(indexed)
        assert connection.execute(f"SELECT count(*) FROM {BLOCK_TABLE}").fetchone() == (0,), table
        connection.close()
        assert fields(loaded(indexed, embedder)) == fields(computed(indexed, embedder))


def test_a_lexical_run_that_changes_a_file_drops_the_block_and_the_next_embedding_run_keeps_it_again(
    indexed: Path,
) -> None:
    embedder, docs = CountingEmbedder(), indexed.parent / "docs"
    (docs / "budget.md").write_text("# Budget\n\nShed the oldest message first.\n", encoding="utf-8")
    index_paths(indexed, [docs], dense=False, max_tokens=16).unwrap()
    assert not block_kept(indexed, embedder.model_id)
    index_paths(indexed, [docs], dense=embedder, max_tokens=16).unwrap()
    assert block_kept(indexed, embedder.model_id)
    assert fields(loaded(indexed, embedder)) == fields(computed(indexed, embedder))


def test_the_block_lists_rows_in_the_order_of_the_matrix(indexed: Path) -> None:
    connection = sqlite3.connect(indexed)
    (listed,) = connection.execute(f"SELECT passages FROM {BLOCK_TABLE}").fetchone()
    connection.close()
    matrix = computed(indexed, CountingEmbedder())
    assert [entry[0] for entry in json.loads(listed)] == list(matrix.rows)


def test_a_block_past_sqlites_largest_value_is_not_kept() -> None:
    from thrift_fp.sources.dense import dense_columns
    from thrift_fp.sources.sqlite._block import WATCHED, write_block

    rows = tuple(range(1, 2001))
    matrix = dense_columns(
        "m", tuple(f"a.md#{row}" for row in rows), rows, ("first-party",) * len(rows), ("h",) * len(rows),
        bytes(4 * 8 * len(rows)), 8,
    )
    with closing(sqlite3.connect(":memory:")) as connection:
        for table in WATCHED:
            connection.execute(f"CREATE TABLE {table}(x)")
        # 64,000 bytes of vectors against a largest value of 10,000: the insert would raise "too big".
        connection.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, 10_000)
        write_block(connection, "m", 8, matrix)
        assert connection.execute(f"SELECT count(*) FROM {BLOCK_TABLE}").fetchone() == (0,)
        connection.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, 1_000_000)
        write_block(connection, "m", 8, matrix)
        assert stored_block(connection, "m", 8) is not None


@pytest.mark.parametrize(("where", "error"), [
    ("thrift_fp.sources.sqlite._index.keep_block", sqlite3.OperationalError("database is locked")),
    # Inside the write transaction: it rolls back, and the run goes on.
    ("thrift_fp.sources.sqlite._dense.write_block", sqlite3.DataError("string or blob too big")),
])
def test_a_block_that_cannot_be_written_fails_no_run(
    indexed: Path, monkeypatch: pytest.MonkeyPatch, where: str, error: sqlite3.Error
) -> None:
    # The block only spares a search some work: a run that cannot write it reports no failure.
    embedder = CountingEmbedder()
    edit_by_hand(indexed, f"DELETE FROM {BLOCK_TABLE}")

    def failing(*_: object) -> None:
        raise error

    monkeypatch.setattr(where, failing)
    assert index_paths(indexed, [indexed.parent / "docs"], dense=embedder, max_tokens=16).unwrap().embedded == 0
    assert not block_kept(indexed, embedder.model_id)
    assert fields(loaded(indexed, embedder)) == fields(computed(indexed, embedder))
