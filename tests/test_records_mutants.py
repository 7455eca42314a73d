"""Records behaviour that sampled mutants showed no test observed: the operation named by
store failures, the value an unsupported timestamp shows, RE2 refusals kept off standard error, and the chunking of streamed token counts at
its size boundary, and SQLite stores that cannot be opened or refuse a write."""

from __future__ import annotations

import os
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from returns.result import Result

from thrift_fp.records import (
    ByteStore,
    FieldProblem,
    FolderStore,
    InvalidPattern,
    InvalidRetrievable,
    MemoryStore,
    ReaderDescriptor,
    SpooledArtifact,
    SpoolReader,
    SqliteStore,
    StoreError,
    StoreFailed,
    open_reader,
    parse_retrievable,
    parse_timestamp,
)
from thrift_fp.records._store import Writable
from thrift_fp.tokens import count_tokens


def test_a_delete_the_file_system_refuses_is_a_store_failure_naming_the_delete(tmp_path: Path) -> None:
    store = FolderStore(str(tmp_path))
    # A directory where the value's file would be: unlink(2) refuses it with EISDIR.
    os.mkdir(tmp_path / "doc")
    error = store.delete("doc").failure()
    assert isinstance(error, StoreFailed)
    assert (error.operation, error.id) == ("delete", "doc")
    assert isinstance(error.cause, IsADirectoryError)
    assert error.reason == str(error.cause)
    assert error.message == f"delete of id 'doc' failed: {error.cause}"


class _LocationDown:
    """A caller-written byte store whose ``location`` raises: matching a descriptor runs it."""

    @property
    def kind(self) -> str:
        return "remote"

    @property
    def location(self) -> str:
        raise ConnectionError("no route to backend")

    def write(self, id: str, data: Writable) -> Result[SpoolReader, StoreError]:
        raise AssertionError("not called")

    def read(self, id: str) -> Result[SpoolReader, StoreError]:
        raise AssertionError("not called")

    def delete(self, id: str) -> Result[bool, StoreError]:
        raise AssertionError("not called")


def test_a_store_that_raises_while_being_matched_is_a_read_failure_with_its_cause() -> None:
    store: ByteStore = _LocationDown()
    error = open_reader(ReaderDescriptor("remote", "s3://bucket", "doc"), [store]).failure()
    assert isinstance(error, StoreFailed)
    assert (error.operation, error.id) == ("read", "doc")
    assert isinstance(error.cause, ConnectionError)
    assert error.message == "read of id 'doc' failed: the store raised ConnectionError: no route to backend"


def test_a_pattern_re2_refuses_is_an_error_value_and_nothing_on_standard_error(
    capfd: pytest.CaptureFixture[str],
) -> None:
    artifact = SpooledArtifact(MemoryStore().write("doc", "x\n").unwrap())
    capfd.readouterr()
    error = artifact.grep("(?=x)").failure()
    assert error == InvalidPattern("(?=x)", "invalid perl operator: (?=")
    assert capfd.readouterr().err == ""


# 64 KiB lines, each ending in a non-space character and a break, each starting with a letter: every
# line boundary is an exact cut point, and two lines are exactly the 128 KiB chunk target.
_LINE = "abc " * 16_383 + "abc\n"


def test_a_chunk_is_cut_once_it_reaches_the_target_size_exactly() -> None:
    assert len(_LINE) * 2 == 128 * 1024
    text = _LINE * 6
    artifact = SpooledArtifact(MemoryStore().write("doc", text).unwrap())
    streamed = artifact.count_tokens_streamed("cl100k_base").unwrap()
    assert streamed.chunks == 3
    assert streamed.count == count_tokens(text, "cl100k_base").unwrap()
    assert streamed.estimated_because is None


def test_a_sqlite_store_that_cannot_be_opened_for_reading_is_a_read_failure(tmp_path: Path) -> None:
    # The path exists but is a folder: SQLite cannot open it.
    store = SqliteStore(tmp_path)
    (error,) = [chunk.failure() for chunk in store.chunks("doc")]
    assert isinstance(error, StoreFailed)
    assert (error.operation, error.id, error.reason) == ("read", "doc", "unable to open database file")
    assert isinstance(error.cause, sqlite3.OperationalError)
    assert error.message == "read of id 'doc' failed: unable to open database file"


def test_a_write_the_database_refuses_is_rolled_back_and_a_write_failure(tmp_path: Path) -> None:
    path = tmp_path / "spool.db"
    with closing(sqlite3.connect(path)) as connection, connection:
        # A table of the store's name with one more required column: every insert fails.
        connection.execute(
            "CREATE TABLE spool_chunks (id TEXT NOT NULL, seq INTEGER NOT NULL, chunk BLOB NOT NULL,"
            " extra TEXT NOT NULL, PRIMARY KEY (id, seq))"
        )
        connection.execute("INSERT INTO spool_chunks VALUES ('doc', 0, X'6F6C64', 'x')")
    store = SqliteStore(path)
    error = store.write("doc", "new").failure()
    assert isinstance(error, StoreFailed)
    assert (error.operation, error.id) == ("write", "doc")
    assert error.reason == "NOT NULL constraint failed: spool_chunks.extra"
    assert isinstance(error.cause, sqlite3.IntegrityError)
    assert error.message == "write of id 'doc' failed: NOT NULL constraint failed: spool_chunks.extra"
    # Rolled back: the old value (and its row) is still there, and the database is not locked.
    assert store.read("doc").unwrap().read_all().unwrap() == "old"


def test_a_timestamp_of_an_unsupported_type_shows_the_value_it_got() -> None:
    raw = {"id": "a", "content": "x", "trust_tier": "first-party", "created_at": [2024, 5], "updated_at": 0}
    error = parse_retrievable(raw).failure()
    reason = "expected an ISO-8601 string, Unix epoch seconds/milliseconds or an aware datetime, got list [2024, 5]"
    assert error == InvalidRetrievable((FieldProblem("created_at", reason),))
    assert error.fields == frozenset({"created_at"})
    assert parse_timestamp([2024, 5]).failure() == reason


def test_a_folder_value_is_read_in_pieces_of_at_most_one_mebibyte(tmp_path: Path) -> None:
    store = FolderStore(str(tmp_path))
    store.write("doc", "x" * (5 << 19)).unwrap()  # 2.5 MiB
    assert [len(chunk.unwrap()) for chunk in store.chunks("doc")] == [1 << 20, 1 << 20, 1 << 19]


def test_a_folder_value_whose_read_fails_midway_is_a_read_failure(tmp_path: Path) -> None:
    store = FolderStore(str(tmp_path))
    # Opening /proc/self/mem succeeds; reading at offset 0 fails with EIO.
    os.symlink("/proc/self/mem", tmp_path / "doc")
    (error,) = [chunk.failure() for chunk in store.chunks("doc")]
    assert isinstance(error, StoreFailed)
    assert (error.operation, error.id, error.reason) == ("read", "doc", "[Errno 5] Input/output error")
    assert isinstance(error.cause, OSError)
    assert error.message == "read of id 'doc' failed: [Errno 5] Input/output error"


def test_a_folder_that_cannot_be_listed_is_a_clean_up_failure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = FolderStore(str(tmp_path))
    cause = PermissionError(13, "Permission denied")

    def refuse(path: object) -> object:
        raise cause

    monkeypatch.setattr(os, "scandir", refuse)
    error = store.remove_leftovers().failure()
    assert error == StoreFailed("clean up", ".partial-*", "[Errno 13] Permission denied", cause)
    assert error.message == "clean up of id '.partial-*' failed: [Errno 13] Permission denied"


def test_a_write_whose_rename_fails_is_a_write_failure_and_leaves_no_partial_file(tmp_path: Path) -> None:
    store = FolderStore(str(tmp_path))
    # A non-empty folder where the value's file goes: rename(2) cannot replace it.
    os.mkdir(tmp_path / "doc")
    (tmp_path / "doc" / "inside").write_text("x")
    error = store.write("doc", "new").failure()
    assert isinstance(error, StoreFailed)
    assert (error.operation, error.id) == ("write", "doc")
    assert isinstance(error.cause, OSError)
    assert error.reason == str(error.cause) and "Errno" in error.reason
    assert error.message == f"write of id 'doc' failed: {error.cause}"
    assert sorted(os.listdir(tmp_path)) == ["doc"]
