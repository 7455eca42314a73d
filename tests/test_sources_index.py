"""Indexing: incremental updates, deletions, all-or-nothing failures, and bm25 search."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest
from returns.result import Failure

from tests._files import write_old_tree
from thrift_fp.sources import (
    CorruptDatabase,
    DatabaseMissing,
    Fts5Unavailable,
    IndexProblems,
    IndexSettingsMismatch,
    InvalidJsonlRecord,
    InvalidTrustTier,
    PathNotFound,
    UndecodableText,
    index_paths,
    search_index,
)
from thrift_fp.sources.sqlite import _index, _store


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    # Files written just now are "racy" (an edit in the same timestamp tick would be invisible),
    # so the index re-hashes them; old files are trusted by size and mtime.
    return write_old_tree(tmp_path / "docs", {
        "shed.md": "# Shedding\n\nShedding drops the lowest score first.\n",
        "budget.txt": "The budget is the window minus the reserve.\n",
        "notes.jsonl": '{"id": "n1", "text": "Quotas cap the queries per request."}\n'
        '\n{"id": "n2", "content": "Shedding drops the lowest score first.", "metadata": {"lang": "en"}}\n',
        ".hidden.md": "never indexed",
        "image.png": b"\x89PNG",
    })


def _bump(path: Path, text: str | None = None) -> None:
    if text is not None:
        path.write_text(text)
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))


def test_an_edit_in_the_same_timestamp_tick_is_not_missed(tmp_path: Path) -> None:
    note = tmp_path / "note.txt"
    note.write_text("alpha text")
    db = tmp_path / "index.db"
    index_paths(db, [note]).unwrap()
    stat = note.stat()
    note.write_text("omega text")  # same size; force the same mtime, as a coarse clock would
    os.utime(note, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert index_paths(db, [note]).unwrap().chunked == (str(note.resolve()),)
    assert [h.text for h in search_index(db, "omega").unwrap()] == ["omega text"]


def test_index_is_incremental(corpus: Path, tmp_path: Path) -> None:
    db = tmp_path / "index.db"
    first = index_paths(db, [corpus]).unwrap()
    assert len(first.chunked) == 3 and first.passages == 4
    second = index_paths(db, [corpus]).unwrap()
    assert second.chunked == () and second.touched == () and len(second.unchanged) == 3
    _bump(corpus / "budget.txt", "The budget is what is left after the reserve.\n")
    _bump(corpus / "shed.md")  # same bytes, new mtime: hashed, not chunked again
    third = index_paths(db, [corpus]).unwrap()
    assert third.chunked == (str((corpus / "budget.txt").resolve()),)
    assert third.touched == (str((corpus / "shed.md").resolve()),)
    hits = search_index(db, "left after reserve").unwrap()
    assert hits[0].text == "The budget is what is left after the reserve."


def test_deleted_files_leave_the_index(corpus: Path, tmp_path: Path) -> None:
    db = tmp_path / "index.db"
    index_paths(db, [corpus]).unwrap()
    (corpus / "budget.txt").unlink()
    report = index_paths(db, [corpus]).unwrap()
    assert report.removed == (str((corpus / "budget.txt").resolve()),)
    assert search_index(db, "budget window").unwrap() == ()


def test_search_deduplicates_by_content_and_filters_tiers(corpus: Path, tmp_path: Path) -> None:
    db = tmp_path / "index.db"
    index_paths(db, [corpus]).unwrap()
    web = tmp_path / "web.jsonl"
    web.write_text('{"id": "w", "content": "Shedding drops the lowest score first, says the web."}\n')
    index_paths(db, [web], trust_tier="third-party-public").unwrap()
    hits = search_index(db, "shedding lowest score").unwrap()
    assert [h.text for h in hits].count("Shedding drops the lowest score first.") == 1
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert all(0.0 <= h.score <= 1.0 for h in hits)
    public = search_index(db, "shedding lowest score", tiers={"third-party-public"}).unwrap()
    assert [(h.passage_id, h.trust_tier) for h in public] == [("web.jsonl#w/1", "third-party-public")]
    assert dict(public[0].metadata) == {"record_id": "w"}
    (own,) = [h for h in search_index(db, "quotas cap").unwrap() if h.passage_id == "docs/notes.jsonl#n1/1"]
    assert own.trust_tier == "first-party"


def test_a_failed_strict_index_leaves_no_database_behind(corpus: Path, tmp_path: Path) -> None:
    # A bad file does not fail a run; only a strict run is all or nothing.
    db = tmp_path / "index.db"
    (corpus / "zbad.jsonl").write_text('{"id": "x"}\n')
    failed = index_paths(db, [corpus], strict=True).failure()
    assert isinstance(failed, IndexProblems)
    (problem,) = failed.skipped
    assert isinstance(problem.error, InvalidJsonlRecord) and "line 1" in problem.message
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docs"]
    lenient = index_paths(db, [corpus]).unwrap()
    assert [s.path for s in lenient.skipped] == [str((corpus / "zbad.jsonl").resolve())]
    assert len(lenient.chunked) == 3


def test_a_failed_strict_update_keeps_the_previous_index(corpus: Path, tmp_path: Path) -> None:
    db = tmp_path / "index.db"
    index_paths(db, [corpus]).unwrap()
    before = db.read_bytes()
    (corpus / "zbad.txt").write_bytes(bytes(range(128, 256)) * 3)  # no encoding reads this
    failed = index_paths(db, [corpus], strict=True).failure()
    assert isinstance(failed, IndexProblems) and isinstance(failed.skipped[0].error, UndecodableText)
    assert db.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docs", "index.db"]


def test_corrupt_missing_and_mismatched_databases_are_error_values(corpus: Path, tmp_path: Path) -> None:
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not a database" * 100)
    assert isinstance(search_index(junk, "x").failure(), CorruptDatabase)
    assert isinstance(index_paths(junk, [corpus]).failure(), CorruptDatabase)
    assert junk.read_bytes() == b"this is not a database" * 100
    other = tmp_path / "other.db"
    connection = sqlite3.connect(other)
    connection.execute("CREATE TABLE t(x)")
    connection.commit()
    connection.close()
    assert "no such table: meta" in search_index(other, "x").failure().message
    assert isinstance(search_index(tmp_path / "none.db", "x").failure(), DatabaseMissing)
    db = tmp_path / "index.db"
    index_paths(db, [corpus]).unwrap()
    mismatch = index_paths(db, [corpus], max_tokens=64).failure()
    assert isinstance(mismatch, IndexSettingsMismatch) and "max_tokens=256" in mismatch.message


def test_bad_arguments_are_error_values(corpus: Path, tmp_path: Path) -> None:
    db = tmp_path / "index.db"
    assert isinstance(index_paths(db, [tmp_path / "nope"]).failure(), PathNotFound)
    assert isinstance(index_paths(db, [corpus], trust_tier="internal").failure(), InvalidTrustTier)
    assert "unknown encoding" in index_paths(db, [corpus], encoding="nope").failure().message
    assert "too small" in index_paths(db, [corpus], max_tokens=1).failure().message
    assert not db.exists()


def test_a_raising_progress_callback_is_an_error_value(corpus: Path, tmp_path: Path) -> None:
    def explode(done: int, total: int, path: str) -> None:
        raise RuntimeError("boom")

    failed = index_paths(tmp_path / "index.db", [corpus], progress=explode)
    assert isinstance(failed, Failure) and isinstance(failed.failure().cause, RuntimeError)
    calls: list[tuple[int, int]] = []
    index_paths(tmp_path / "index.db", [corpus], progress=lambda d, t, p: calls.append((d, t))).unwrap()
    assert calls == [(1, 3), (2, 3), (3, 3)]


def test_same_folder_names_do_not_collide(tmp_path: Path) -> None:
    for parent in ("a", "b"):
        (tmp_path / parent / "docs").mkdir(parents=True)
        (tmp_path / parent / "docs" / "x.md").write_text(f"shared words from {parent}")
    db = tmp_path / "index.db"
    index_paths(db, [tmp_path / "a" / "docs", tmp_path / "b" / "docs"]).unwrap()
    ids = {h.passage_id for h in search_index(db, "shared words").unwrap()}
    assert len(ids) == 2 and "docs/x.md#1" in ids


def test_a_sqlite_without_fts5_is_a_clear_error_value(
    corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = Failure(Fts5Unavailable("3.0.0", "no such module: fts5"))
    monkeypatch.setattr(_store, "check_fts5", lambda: missing)
    monkeypatch.setattr(_index, "check_fts5", lambda: missing)
    for failed in (index_paths(tmp_path / "i.db", [corpus]), search_index(tmp_path / "i.db", "x")):
        assert failed.failure().message == (
            "SQLite 3.0.0 has no FTS5 full-text search (no such module: fts5); "
            "use a Python whose sqlite3 module is built with FTS5 enabled"
        )
    assert not (tmp_path / "i.db").exists()
