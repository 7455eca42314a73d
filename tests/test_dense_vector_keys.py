"""Each passage's vector key kept at index time (``passage_vector_keys``): a search loads the same
matrix as from keys computed from the texts, a key is never the key of a passage as it was, and
an index without kept keys (made before them) loads as before and gets them on its next run."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from tests._dense_model import CountingEmbedder, passages_seen, write_dense_docs
from tests._files import write_old
from tests._vector_keys import as_made_before_kept_keys, computed, fields, kept, loaded, passages, stale_keys
from thrift_fp.sources import index_paths
from thrift_fp.sources.sqlite import _dense
from thrift_fp.sources.sqlite._dense import KEYS_TRIGGERS, _keys_kept
from thrift_fp.sources.sqlite._held import KEYS_TABLE

pytest.importorskip("numpy")

def _indexed(tmp_path: Path) -> tuple[Path, Path, CountingEmbedder]:
    docs, database, embedder = write_dense_docs(tmp_path), tmp_path / "i.db", CountingEmbedder()
    # A twin page: two passages, one input, one vector, two kept keys alike.
    write_old(docs / "budget-copy.md", (docs / "budget.md").read_text(encoding="utf-8"))
    index_paths(database, [docs], dense=embedder).unwrap()
    return docs, database, embedder


def test_an_embedding_run_keeps_every_passages_key_and_the_search_loads_the_computed_matrix(tmp_path: Path) -> None:
    _, database, embedder = _indexed(tmp_path)
    assert kept(database) == passages(database) > 0
    assert stale_keys(database) == []
    assert fields(loaded(database, embedder)) == fields(computed(database, embedder))
    assert len(computed(database, embedder).rows) == passages(database)  # every passage has its vector


def test_the_search_reads_the_kept_keys(tmp_path: Path) -> None:
    # What the triggers guard: a kept key is taken as it is. Here one is forged by hand (the
    # library never writes one but from the passage it reads in the same transaction).
    _, database, embedder = _indexed(tmp_path)
    connection = sqlite3.connect(database)
    keys = connection.execute(f"SELECT row, key FROM {KEYS_TABLE} ORDER BY row").fetchall()
    other = next(at for at, (_, key) in enumerate(keys) if key != keys[0][1])  # not the first's twin
    connection.execute(f"UPDATE {KEYS_TABLE} SET key = ? WHERE row = ?", (keys[other][1], keys[0][0]))
    connection.commit()
    connection.close()
    matrix, truth = loaded(database, embedder), computed(database, embedder)
    assert matrix is not None and matrix.rows == truth.rows
    assert matrix.matrix[0].tobytes() == truth.matrix[other].tobytes() != truth.matrix[0].tobytes()


@pytest.mark.parametrize("change", [
    "UPDATE passages SET text = text || ' more' WHERE id = {row}",
    "UPDATE passages SET metadata = '{{}}' WHERE id = {row}",
    "UPDATE passages SET id = 1000 WHERE id = {row}",
    "DELETE FROM passages WHERE id = {row}",
    "DELETE FROM files WHERE path = (SELECT path FROM passages WHERE id = {row})",  # the cascade
    # REPLACE deletes the old row without firing its delete trigger: the insert trigger drops the key.
    "INSERT OR REPLACE INTO passages SELECT id, passage_id, path, source, ordinal, kind, trust_tier, created_at,"
    " updated_at, content_hash, tokens, body_length, heading_length, trail_length, heading_terms, trail_terms,"
    " body_terms, 'another text', metadata FROM passages WHERE id = {row}",
])
def test_any_change_to_a_passage_row_drops_its_kept_key(tmp_path: Path, change: str) -> None:
    _, database, embedder = _indexed(tmp_path)
    connection = sqlite3.connect(database)
    connection.execute("PRAGMA foreign_keys = ON")
    (row,) = connection.execute("SELECT max(id) FROM passages").fetchone()
    connection.execute(change.format(row=row))
    connection.commit()
    assert connection.execute(f"SELECT count(*) FROM {KEYS_TABLE} WHERE row IN (?, 1000)", (row,)).fetchone() == (0,)
    connection.close()
    assert stale_keys(database) == []
    assert fields(loaded(database, embedder)) == fields(computed(database, embedder))


def test_a_reused_row_starts_without_a_key(tmp_path: Path) -> None:
    # The index run deletes a changed file's passages and inserts the new ones: SQLite may hand
    # the largest row's number out again.
    docs, database, embedder = _indexed(tmp_path)
    connection = sqlite3.connect(database)
    (row, last) = connection.execute("SELECT id, path FROM passages ORDER BY id DESC LIMIT 1").fetchone()
    connection.close()
    write_old(Path(last), "# Changed\n\nA different text entirely.\n", mtime=2e9)
    embedder.seen.clear()
    report = index_paths(database, [docs], dense=embedder).unwrap()
    assert report.chunked == (last,) and len(passages_seen(embedder)) == 1
    connection = sqlite3.connect(database)
    assert connection.execute("SELECT path FROM passages WHERE id = ?", (row,)).fetchone() == (last,)  # reused
    connection.close()
    assert stale_keys(database) == [] and kept(database) == passages(database)
    assert fields(loaded(database, embedder)) == fields(computed(database, embedder))


def test_an_index_made_before_kept_keys_loads_the_same_matrix_and_its_next_run_keeps_them(tmp_path: Path) -> None:
    docs, database, embedder = _indexed(tmp_path)
    before = fields(computed(database, embedder))
    as_made_before_kept_keys(database)
    assert fields(loaded(database, embedder)) == before
    embedder.seen.clear()
    report = index_paths(database, [docs], dense=embedder).unwrap()
    assert report.embedded == 0 and embedder.seen == []  # nothing embedded, nor calibrated again
    assert kept(database) == passages(database) and stale_keys(database) == []
    assert fields(loaded(database, embedder)) == before


def test_partly_kept_keys_load_the_same_matrix(tmp_path: Path) -> None:
    _, database, embedder = _indexed(tmp_path)
    connection = sqlite3.connect(database)
    connection.execute(f"DELETE FROM {KEYS_TABLE} WHERE row % 2 = 0")
    connection.commit()
    connection.close()
    assert 0 < kept(database) < passages(database)
    assert fields(loaded(database, embedder)) == fields(computed(database, embedder))


def test_a_kept_key_of_another_model_is_not_used(tmp_path: Path) -> None:
    _, database, embedder = _indexed(tmp_path)
    connection = sqlite3.connect(database)
    connection.execute(f"UPDATE {KEYS_TABLE} SET model = 'another', key = 'forged'")
    connection.commit()
    connection.close()
    assert fields(loaded(database, embedder)) == fields(computed(database, embedder))


def test_kept_keys_are_not_trusted_when_a_trigger_is_missing(tmp_path: Path) -> None:
    # Without every trigger nothing guarantees the keys are current: the load computes them all.
    _, database, embedder = _indexed(tmp_path)
    connection = sqlite3.connect(database)
    connection.execute(f"DROP TRIGGER {KEYS_TRIGGERS[1]}")
    connection.execute("UPDATE passages SET text = 'edited by hand' WHERE id = (SELECT min(id) FROM passages)")
    connection.commit()
    assert not _keys_kept(connection)
    connection.close()
    assert stale_keys(database) != []  # the key the dropped trigger would have removed
    assert fields(loaded(database, embedder)) == fields(computed(database, embedder))


def test_an_index_the_run_cannot_write_keys_into_still_indexes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    docs, database, embedder = _indexed(tmp_path)
    as_made_before_kept_keys(database)
    copy = tmp_path / "copy.db"
    shutil.copy(database, copy)

    def read_only(connection: sqlite3.Connection, model_id: str) -> int:
        raise sqlite3.OperationalError("attempt to write a readonly database")

    monkeypatch.setattr("thrift_fp.sources.sqlite._index.keep_vector_keys", read_only)
    report = index_paths(database, [docs], dense=embedder).unwrap()
    assert report.embedded == 0 and database.read_bytes() == copy.read_bytes()
    assert fields(loaded(database, embedder)) == fields(computed(database, embedder))


def test_keeping_keys_writes_nothing_when_every_key_is_kept(tmp_path: Path) -> None:
    _, database, embedder = _indexed(tmp_path)
    connection = sqlite3.connect(database, isolation_level=None)
    try:
        assert _dense.keep_vector_keys(connection, embedder.model_id) == 0
        connection.execute(f"DELETE FROM {KEYS_TABLE} WHERE row = (SELECT min(row) FROM {KEYS_TABLE})")
        assert _dense.keep_vector_keys(connection, embedder.model_id) == 1
    finally:
        connection.close()
    assert kept(database) == passages(database) and stale_keys(database) == []
