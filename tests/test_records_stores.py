"""Byte stores: ids, rewrite, delete, UTF-8, failures of the disk and of the caller's iterable."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest
from returns.result import Failure

from thrift_fp.records import (
    ByteStore,
    FolderStore,
    InvalidStoreId,
    LineOutOfRange,
    MemoryStore,
    NotUtf8,
    SpoolReader,
    SqliteStore,
    StoreFailed,
    ValueNotFound,
)
from thrift_fp.records._store import StoreReader, check_id
from thrift_fp.records._store import Writable


@pytest.fixture(params=["memory", "folder", "sqlite"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> ByteStore:
    kind: str = request.param
    if kind == "memory":
        return MemoryStore()
    if kind == "folder":
        return FolderStore(str(tmp_path / "spool"))
    return SqliteStore(str(tmp_path / "spool.db"))


def test_every_store_is_a_byte_store_and_hands_out_spool_readers(store: ByteStore) -> None:
    assert isinstance(store, ByteStore)
    reader = store.write("doc", "x").unwrap()
    assert isinstance(reader, StoreReader)
    assert isinstance(store.read("doc").unwrap(), SpoolReader)


@pytest.mark.parametrize(
    ("id", "reason"),
    [
        ("", "is empty"),
        ("../x", "contains a path separator; ids are single names"),
        ("/etc/passwd", "contains a path separator; ids are single names"),
        ("a\\b", "contains a path separator; ids are single names"),
        ("a\x00b", "contains a NUL byte"),
        ("..", "starts with '.'; such names are reserved (temporary files, '.', '..')"),
        (".partial-x", "starts with '.'; such names are reserved (temporary files, '.', '..')"),
        ("\ud800", "is not encodable as UTF-8"),
        ("é" * 128, "is 256 UTF-8 bytes; at most 255 are allowed"),
    ],
)
def test_bad_ids_are_error_values_for_every_operation(store: ByteStore, id: str, reason: str) -> None:
    for result in (store.write(id, "x"), store.read(id), store.delete(id)):
        assert isinstance(result, Failure)
        assert result.failure() == InvalidStoreId(id, reason)


def test_escaping_ids_leave_the_folder_untouched(tmp_path: Path) -> None:
    FolderStore(str(tmp_path / "spool")).write("../escaped", "x")
    assert not (tmp_path / "escaped").exists()


def test_check_id_accepts_ordinary_names() -> None:
    for id in ("doc-1", "a b", "é", "x" * 255, "a.b", "a..b"):
        assert check_id(id).unwrap() == id


def test_rewriting_replaces_and_delete_reports_removal(store: ByteStore) -> None:
    reader = store.write("doc", "old").unwrap()
    store.write("doc", b"new")
    assert reader.read_all().unwrap() == "new"  # readers are live, by id
    assert store.delete("doc").unwrap() is True
    assert store.delete("doc").unwrap() is False
    assert isinstance(reader.read_all().failure(), ValueNotFound)
    assert isinstance(store.read("doc").failure(), ValueNotFound)


def test_empty_values_exist_and_have_no_lines(store: ByteStore) -> None:
    reader = store.write("empty", "").unwrap()
    assert store.read("empty").unwrap() == reader
    assert (reader.read_all().unwrap(), reader.byte_length().unwrap(), reader.line_count().unwrap()) == ("", 0, 0)


def test_streamed_writes_larger_than_a_chunk(store: ByteStore) -> None:
    pieces = [("line %d é\r\n" % i).encode() for i in range(150_000)]
    reader = store.write("big", iter(pieces)).unwrap()
    assert reader.byte_length().unwrap() == sum(map(len, pieces)) > 1 << 20
    assert reader.line_count().unwrap() == 150_000
    assert reader.line(149_999).unwrap() == "line 149999 é"
    assert reader.read_all().unwrap().encode() == b"".join(pieces)


def test_a_character_split_across_pieces_is_fine(store: ByteStore) -> None:
    encoded = "aé\r\nb".encode()
    pieces = [encoded[i : i + 1] for i in range(len(encoded))]
    assert store.write("split", pieces).unwrap().read_all().unwrap() == "aé\r\nb"


@pytest.mark.parametrize("data", [b"\xff", [b"ok", b"\xc3"], "\ud800"])
def test_non_utf8_writes_are_refused_and_keep_the_old_value(store: ByteStore, data: bytes | list[bytes] | str) -> None:
    store.write("doc", "old")
    assert isinstance(store.write("doc", data).failure(), NotUtf8)
    assert store.read("doc").unwrap().read_all().unwrap() == "old"


def test_a_raising_iterable_is_a_store_failure_with_cause_and_no_write(store: ByteStore) -> None:
    store.write("doc", "old")
    problem = ValueError("source went away")

    def pieces() -> Iterator[bytes]:
        yield b"new"
        raise problem

    error = store.write("doc", pieces()).failure()
    assert isinstance(error, StoreFailed) and error.cause is problem
    assert error.message == "write of id 'doc' failed: the byte iterable raised ValueError: source went away"
    assert store.read("doc").unwrap().read_all().unwrap() == "old"


def test_a_non_bytes_item_is_a_store_failure(store: ByteStore) -> None:
    # An iterator, not a list: beartype samples list items and would reject the call itself.
    items: list[bytes] = [b"a", "b"]  # type: ignore[list-item]  # the mistake under test
    error = store.write("doc", iter(items)).failure()
    assert isinstance(error, StoreFailed)
    assert error.reason == "the byte iterable yielded str, not bytes"
    assert isinstance(store.read("doc").failure(), ValueNotFound)


def test_line_out_of_range(store: ByteStore) -> None:
    reader = store.write("doc", "a\nb\n").unwrap()
    assert reader.line(2).failure() == LineOutOfRange("doc", 2, 2)
    assert reader.line(-1).failure() == LineOutOfRange("doc", -1, 2)


def test_readers_describe_their_place_and_compare_by_it(store: ByteStore) -> None:
    reader = store.write("doc", "x").unwrap()
    descriptor = reader.describe()
    assert descriptor is not None
    assert (descriptor.store, descriptor.location, descriptor.id) == (store.kind, store.location, "doc")
    assert reader == store.read("doc").unwrap()
    assert hash(reader) == hash(store.read("doc").unwrap())


def test_two_memory_stores_are_different_places() -> None:
    assert MemoryStore().write("a", "x").unwrap() != MemoryStore().write("a", "x").unwrap()


def test_folder_and_sqlite_paths_are_made_absolute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert FolderStore("spool").location == str(tmp_path / "spool")
    assert SqliteStore("spool.db").location == str(tmp_path / "spool.db")


def test_folder_write_leaves_no_temporary_files(tmp_path: Path) -> None:
    store = FolderStore(str(tmp_path))
    store.write("doc", "x")
    store.write("doc", [b"\xff"])
    assert os.listdir(tmp_path) == ["doc"]


def test_folder_store_on_a_file_path_fails_as_a_value(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    store = FolderStore(str(blocker))
    error = store.write("doc", "x").failure()
    assert isinstance(error, StoreFailed) and error.operation == "write" and isinstance(error.cause, OSError)
    assert isinstance(store.read("doc").failure(), ValueNotFound)
    assert isinstance(store.delete("doc").failure(), StoreFailed)
    assert isinstance(store.size("doc").failure(), StoreFailed)


def test_a_folder_size_that_cannot_stat_keeps_the_operation_id_and_cause(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    error = FolderStore(str(blocker)).size("doc").failure()
    assert isinstance(error, StoreFailed)
    assert (error.operation, error.id) == ("read", "doc")
    assert isinstance(error.cause, NotADirectoryError)
    assert error.reason == str(error.cause)


def test_folder_read_of_a_directory_named_like_an_id(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    store = FolderStore(str(tmp_path))
    assert isinstance(store.read("sub").failure(), ValueNotFound)
    (chunk,) = store.chunks("sub")
    assert isinstance(chunk.failure(), StoreFailed)


def test_sqlite_in_a_missing_folder_fails_as_a_value(tmp_path: Path) -> None:
    store = SqliteStore(str(tmp_path / "missing" / "spool.db"))
    error = store.write("doc", "x").failure()
    assert isinstance(error, StoreFailed) and error.reason.startswith("cannot open")
    assert isinstance(store.read("doc").failure(), ValueNotFound)
    assert store.delete("doc").unwrap() is False
    assert not (tmp_path / "missing").exists()


def test_sqlite_on_a_non_database_file_fails_as_a_value(tmp_path: Path) -> None:
    path = tmp_path / "not.db"
    path.write_bytes(b"this is not a database" * 100)
    store = SqliteStore(str(path))
    for result in (store.write("doc", "x"), store.read("doc"), store.delete("doc")):
        error = result.failure()
        assert isinstance(error, StoreFailed), error
    (chunk,) = store.chunks("doc")
    assert isinstance(chunk.failure(), StoreFailed)


def test_sqlite_reads_never_create_the_database(tmp_path: Path) -> None:
    store = SqliteStore(str(tmp_path / "spool.db"))
    assert isinstance(store.read("doc").failure(), ValueNotFound)
    assert [chunk.failure() for chunk in store.chunks("doc")] == [ValueNotFound(f"sqlite store {store.path!r}", "doc")]
    assert not (tmp_path / "spool.db").exists()


def test_bad_ids_in_chunk_and_size_calls(store: ByteStore) -> None:
    assert isinstance(store, MemoryStore | FolderStore | SqliteStore)
    assert isinstance(store.size("../x").failure(), InvalidStoreId)
    (chunk,) = store.chunks("../x")
    assert isinstance(chunk.failure(), InvalidStoreId)


def test_error_messages_name_the_id() -> None:
    assert ValueNotFound("memory store 'm'", "doc").message == "no value stored under id 'doc' in memory store 'm'"
    assert NotUtf8("doc", "bad byte").message == "value for id 'doc' is not UTF-8 text: bad byte"
    assert LineOutOfRange("doc", 3, 1).message == "line 3 of 'doc' does not exist; it has 1 lines (0-based)"


def test_one_large_bytes_value_with_a_character_across_the_chunk_edge(store: ByteStore) -> None:
    text = "a" * ((1 << 20) - 1) + "é\n" + "b" * 10
    reader = store.write("big", text.encode()).unwrap()
    assert reader.read_all().unwrap() == text
    assert reader.line(1).unwrap() == "b" * 10


@pytest.mark.parametrize("bad", [b"ok\n\xff\n", b"ok\n\xc3"])
def test_bytes_damaged_on_disk_are_not_utf8_values_on_read(tmp_path: Path, bad: bytes) -> None:
    folder = FolderStore(str(tmp_path / "files"))
    folder.write("doc", "fine")
    (tmp_path / "files" / "doc").write_bytes(bad)
    database = SqliteStore(str(tmp_path / "spool.db"))
    database.write("doc", "fine")
    with sqlite3.connect(database.path) as connection:
        connection.execute("UPDATE spool_chunks SET chunk = ? WHERE id = 'doc'", (bad,))
    connection.close()
    for store in (folder, database):
        reader = store.read("doc").unwrap()
        assert isinstance(reader.read_all().failure(), NotUtf8)
        assert isinstance(reader.line_count().failure(), NotUtf8)


def test_sqlite_reads_and_deletes_leave_a_foreign_database_unchanged(tmp_path: Path) -> None:
    # A snapshot's descriptor may name any database file; looking a value up must not write to it.
    path = tmp_path / "app.db"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE app (x)")
    connection.close()
    store = SqliteStore(str(path))
    missing = ValueNotFound(f"sqlite store {store.path!r}", "doc")
    assert store.read("doc").failure() == missing
    assert store.size("doc").failure() == missing
    assert [chunk.failure() for chunk in store.chunks("doc")] == [missing]
    assert store.delete("doc").unwrap() is False
    with sqlite3.connect(path) as connection:
        tables = connection.execute("SELECT name FROM sqlite_master").fetchall()
    connection.close()
    assert tables == [("app",)]


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


def test_a_folder_where_no_file_can_be_created_is_a_write_failure_keeping_its_cause() -> None:
    # /proc/self exists as a folder (so the store need not make it), but no file can be created in it.
    store = FolderStore("/proc/self")
    error = store.write("doc", "x").failure()
    assert isinstance(error, StoreFailed)
    assert isinstance(error.cause, FileNotFoundError)
    assert error == StoreFailed("write", "doc", f"cannot create a file in {store.folder!r}: {error.cause}", error.cause)


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        ("a\udc80b", "'utf-8' codec can't encode character '\\udc80' in position 1: surrogates not allowed"),
        (b"a\xffb", "'utf-8' codec can't decode byte 0xff in position 1: invalid start byte"),
        # Checked piece by piece: the position is within the piece that ends too early.
        ([b"a", b"\xc3"], "'utf-8' codec can't decode byte 0xc3 in position 0: unexpected end of data"),
    ],
)
def test_a_value_that_is_not_utf8_names_the_id_and_the_codecs_reason(store: ByteStore, data: Writable, reason: str) -> None:
    assert store.write("doc", data).failure() == NotUtf8("doc", reason)


def _failed(result: object, operation: str, reason: str, cause_type: type[BaseException]) -> None:
    # The whole error value: operation, id, reason, and the driver's exception kept as the cause.
    assert isinstance(result, Failure)
    error = result.failure()
    assert isinstance(error, StoreFailed) and type(error.cause) is cause_type, error
    assert error == StoreFailed(operation, "doc", reason, error.cause)


def test_a_sqlite_store_in_a_missing_folder_is_a_write_failure_naming_the_path_and_keeping_the_cause(
    tmp_path: Path,
) -> None:
    store = SqliteStore(tmp_path / "missing" / "spool.db")
    reason = f"cannot open {store.path!r}: unable to open database file"
    _failed(store.write("doc", "x"), "write", reason, sqlite3.OperationalError)


def test_each_operation_on_a_file_that_is_not_a_database_fails_naming_itself_and_keeping_the_cause(
    tmp_path: Path,
) -> None:
    path = tmp_path / "not.db"
    path.write_bytes(b"this is not a database" * 100)
    store = SqliteStore(path)
    _failed(store.write("doc", "x"), "write", f"cannot open {store.path!r}: file is not a database", sqlite3.DatabaseError)
    _failed(store.read("doc"), "read", "file is not a database", sqlite3.DatabaseError)
    _failed(store.size("doc"), "read", "file is not a database", sqlite3.DatabaseError)
    _failed(store.delete("doc"), "delete", "file is not a database", sqlite3.DatabaseError)
    (chunk,) = store.chunks("doc")
    _failed(chunk, "read", "file is not a database", sqlite3.DatabaseError)
    assert path.read_bytes() == b"this is not a database" * 100


def test_a_folder_write_over_a_directory_named_like_the_id_keeps_the_cause_and_no_temporary_file(tmp_path: Path) -> None:
    (tmp_path / "doc").mkdir()
    error = FolderStore(tmp_path).write("doc", "x").failure()
    assert isinstance(error, StoreFailed) and type(error.cause) is IsADirectoryError
    assert error == StoreFailed("write", "doc", str(error.cause), error.cause)
    assert os.listdir(tmp_path) == ["doc"]


def test_a_folder_read_of_a_directory_named_like_the_id_is_a_read_failure_keeping_the_cause(tmp_path: Path) -> None:
    (tmp_path / "doc").mkdir()
    (chunk,) = FolderStore(tmp_path).chunks("doc")
    error = chunk.failure()
    assert isinstance(error, StoreFailed) and type(error.cause) is IsADirectoryError
    assert error == StoreFailed("read", "doc", f"[Errno 21] Is a directory: {str(tmp_path / 'doc')!r}", error.cause)


def test_a_non_bytes_item_is_a_write_failure_naming_the_id_and_the_items_type(store: ByteStore) -> None:
    items: list[bytes] = [b"a", 7]  # type: ignore[list-item]  # the mistake under test
    assert store.write("doc", iter(items)).failure() == StoreFailed("write", "doc", "the byte iterable yielded int, not bytes")


@pytest.mark.parametrize(
    ("bad", "reason"),
    [
        (b"ok\n\xff\n", "'utf-8' codec can't decode byte 0xff in position 3: invalid start byte"),
        # Found only at the end: the final byte starts a character that never comes.
        (b"ok\n\xc3", "'utf-8' codec can't decode byte 0xc3 in position 0: unexpected end of data"),
    ],
)
def test_bytes_damaged_on_disk_are_read_as_not_utf8_naming_the_id_and_the_codecs_reason(
    tmp_path: Path, bad: bytes, reason: str
) -> None:
    store = FolderStore(tmp_path)
    store.write("doc", "fine").unwrap()
    (tmp_path / "doc").write_bytes(bad)
    reader = store.read("doc").unwrap()
    assert reader.read_all().failure() == NotUtf8("doc", reason)
    assert reader.line_count().failure() == NotUtf8("doc", reason)
