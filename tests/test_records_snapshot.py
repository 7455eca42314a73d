"""Snapshots (each content kind, every error branch) and the auto-spool step."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from returns.result import Failure, Result

from thrift_fp.records import (
    ByteStore,
    DuplicateRetrievableId,
    FolderStore,
    InvalidRetrievable,
    InvalidSnapshot,
    InvalidStoreId,
    MemoryStore,
    ReaderDescriptor,
    Retrievable,
    SnapshotUnsupported,
    SpooledArtifact,
    SpoolReader,
    SqliteStore,
    StoreError,
    StoreFailed,
    UnresolvableReader,
    ValueNotFound,
    from_snapshot,
    open_reader,
    parse_retrievable,
    spool_retrievable,
    spool_retrievables,
    to_snapshot,
)
from thrift_fp.records._store import Writable
from thrift_fp.tokens import Tokenizable
from tests.test_records_artifact import BrokenReader


def record(content: Any, id: str = "doc", **extra: Any) -> Retrievable:
    return parse_retrievable(
        {"id": id, "content": content, "trust_tier": "first-party", "created_at": "2024-01-01T00:00:00.123456Z",
         "updated_at": 1704067200123, **extra}
    ).unwrap()


def round_trip(r: Retrievable, **kwargs: Any) -> Retrievable:
    text = json.dumps(to_snapshot(r).unwrap())
    return from_snapshot(json.loads(text), **kwargs).unwrap()


def test_text_and_static_tokenizable_round_trip_with_every_field() -> None:
    full: dict[str, Any] = {"source": "kb://7", "kind": "policy", "score": 0.25, "inline": True,
                            "artifact_constructor": SpooledArtifact}
    for content in ("text", Tokenizable("static")):
        r = record(content, **full)
        back = round_trip(r, artifact_constructor=SpooledArtifact)
        assert back == r and type(back.content) is type(r.content)


def test_folder_and_sqlite_spooled_bodies_reopen_through_their_store(tmp_path: Path) -> None:
    # A snapshot used to reopen the path it names; now the store must be given.
    for store in (FolderStore(str(tmp_path / "f")), SqliteStore(str(tmp_path / "s.db"))):
        r = record(SpooledArtifact(store.write("doc", "body\n").unwrap(), 5, 1))
        assert isinstance(from_snapshot(to_snapshot(r).unwrap()).failure(), UnresolvableReader)
        back = round_trip(r, stores=[MemoryStore(), store])
        assert back == r
        assert isinstance(back.content, SpooledArtifact)
        assert back.content.as_string().unwrap() == "body\n"


def test_memory_bodies_need_their_store() -> None:
    store = MemoryStore()
    r = record(SpooledArtifact(store.write("doc", "x").unwrap()))
    assert round_trip(r, stores=[MemoryStore(), store]) == r
    error = from_snapshot(to_snapshot(r).unwrap()).failure()
    assert isinstance(error, UnresolvableReader)


def test_dynamic_content_and_undescribable_readers_cannot_be_snapshotted() -> None:
    assert to_snapshot(record(Tokenizable(lambda ctx: "x"))).failure() == SnapshotUnsupported(
        "doc", "its content is a dynamic Tokenizable (a function, not data)"
    )
    error = to_snapshot(record(SpooledArtifact(BrokenReader()))).failure()
    assert error.message == "retrievable 'doc' cannot be snapshotted: its reader BrokenReader cannot describe where its bytes live"


def _valid_snapshot() -> dict[str, object]:
    return to_snapshot(record("text")).unwrap()


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"format": None}, "format"),
        ({"content": "text"}, "content"),
        ({"content": {"type": "text", "text": 3}}, "content.text"),
        ({"content": {"type": "video"}}, "content.type"),
        ({"content": {"type": "spooled", "reader": {"store": "folder"}}}, "content.reader"),
        ({"content": {"type": "spooled", "reader": {"store": "folder", "location": "/x", "id": "d"},
                      "byte_length_hint": "7"}}, "content.byte_length_hint"),
        ({"content": {"type": "spooled", "reader": {"store": "folder", "location": "/x", "id": "d"},
                      "line_count_hint": 2**1024}}, "content.line_count_hint"),
        ({"content": {"type": "spooled", "reader": {"store": "folder", "location": "/x", "id": "d"},
                      "byte_length_hint": True}}, "content.byte_length_hint"),
    ],
)
def test_malformed_snapshots_are_error_values(change: dict[str, object], field: str) -> None:
    error = from_snapshot({**_valid_snapshot(), **change}).failure()
    assert isinstance(error, InvalidSnapshot) and error.field == field


def test_a_non_object_snapshot_is_an_error_value() -> None:
    assert from_snapshot([1]).failure() == InvalidSnapshot("(snapshot)", "expected an object, got list")


def test_snapshots_are_validated_again() -> None:
    error = from_snapshot({**_valid_snapshot(), "score": 7, "extra": 1}).failure()
    assert isinstance(error, InvalidRetrievable) and error.fields == {"score", "extra"}


def test_unknown_store_kinds_and_missing_values(tmp_path: Path) -> None:
    unknown = open_reader(ReaderDescriptor("s3", "bucket", "doc")).failure()
    assert isinstance(unknown, UnresolvableReader)
    assert unknown.reason.startswith("no store with this kind and location was passed in stores=")
    folder, database = FolderStore(str(tmp_path)), SqliteStore(str(tmp_path / "none.db"))
    missing = open_reader(ReaderDescriptor("folder", folder.location, "gone"), [folder]).failure()
    assert isinstance(missing, ValueNotFound)
    assert isinstance(open_reader(ReaderDescriptor("sqlite", database.location, "doc"), [database]).failure(), ValueNotFound)
    assert not (tmp_path / "none.db").exists()


def _snapshot_naming(store: str, location: str, id: str) -> dict[str, object]:
    return {**_valid_snapshot(), "content": {"type": "spooled", "reader": {"store": store, "location": location, "id": id},
                                             "byte_length_hint": None, "line_count_hint": None}}


@pytest.mark.parametrize("kind", ["folder", "sqlite"])
def test_a_snapshot_naming_a_file_outside_every_given_store_reads_nothing(tmp_path: Path, kind: str) -> None:
    # Regression: from_snapshot opened whatever folder or database the snapshot named.
    outside = tmp_path / "outside"
    secret_folder = FolderStore(str(outside))
    secret_db = SqliteStore(str(outside / "secret.db"))
    secret_folder.write("secret", "api-key=hunter2")
    secret_db.write("secret", "api-key=hunter2")
    spool = FolderStore(str(tmp_path / "spool"))
    given: list[ByteStore] = [spool, SqliteStore(str(tmp_path / "spool.db")), MemoryStore()]
    location = secret_folder.location if kind == "folder" else secret_db.location
    hostile = [
        _snapshot_naming(kind, location, "secret"),
        _snapshot_naming(kind, str(outside / "." / ""), "secret"),  # another spelling of the same place
        _snapshot_naming("folder", spool.location, "../outside/secret"),  # escape from a given store
    ]
    for snapshot in hostile:
        for stores in ([], given):
            error = from_snapshot(snapshot, stores=stores).failure()
            assert isinstance(error, UnresolvableReader | InvalidStoreId), error
            assert "hunter2" not in error.message


def _protocol_check_reads() -> int:
    """How often this Python's ``isinstance`` against a protocol reads a property (3.11: once;
    from 3.12 never: it looks the attribute up statically)."""
    reads: list[int] = []

    class Counting(MemoryStore):
        @property
        def kind(self) -> str:
            reads.append(1)
            return "memory"

    isinstance(Counting(), ByteStore)
    return len(reads)


@pytest.mark.parametrize("honest", ["never", "to the protocol check"])
def test_a_store_whose_identity_raises_is_an_error_value(honest: str) -> None:
    # The store raises on every read of its kind, or on every read after the protocol check's:
    # the match's own read raises either way, and that is an error value.
    honest_reads = 0 if honest == "never" else _protocol_check_reads()
    reads: list[int] = []

    class Hostile(MemoryStore):
        @property
        def kind(self) -> str:
            reads.append(1)
            if len(reads) > honest_reads:
                raise RuntimeError("no kind")
            return "memory"

    error = open_reader(ReaderDescriptor("memory", "m", "doc"), [Hostile()]).failure()
    assert isinstance(error, StoreFailed) and "RuntimeError: no kind" in error.message


# --- auto-spool -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "hints"),
    [("one\ntwo", (7, 2)), ("a\n", (2, 1)), ("é", (2, 1)), ("a\r\nb\r\n", (6, 2)), ("\n\n", (2, 2))],
)
def test_static_text_is_spooled_with_size_hints(text: str, hints: tuple[int, int]) -> None:
    store = MemoryStore()
    for content in (text, Tokenizable(text)):
        spooled = spool_retrievable(record(content), store).unwrap()
        assert isinstance(spooled.content, SpooledArtifact)
        assert (spooled.content.byte_length_hint, spooled.content.line_count_hint) == hints
        assert spooled.content_text().unwrap() == text
        assert (spooled.handle_mode, spooled.size_unknown) == (True, False)


def test_an_empty_static_tokenizable_spools_with_zero_lines() -> None:
    spooled = spool_retrievable(record(Tokenizable("")), MemoryStore()).unwrap()
    assert isinstance(spooled.content, SpooledArtifact)
    assert (spooled.content.byte_length_hint, spooled.content.line_count_hint) == (0, 0)


def test_inline_dynamic_and_spooled_records_are_left_alone() -> None:
    store = MemoryStore()
    already = record(SpooledArtifact(store.write("doc", "x").unwrap()))
    for r in (record("text", inline=True), record(Tokenizable(lambda ctx: "x")), already):
        assert spool_retrievable(r, store).unwrap() is r


def test_the_store_id_rule_applies_to_record_ids() -> None:
    error = spool_retrievable(record("text", id="https://example.org/a"), MemoryStore()).failure()
    assert isinstance(error, InvalidStoreId)


def test_batches_name_the_duplicate_before_writing_anything() -> None:
    store = MemoryStore()
    batch = [record("a", id="one"), record("b", id="two"), record("c", id="one")]
    assert spool_retrievables(batch, store).failure() == DuplicateRetrievableId("one")
    assert isinstance(store.read("one").failure(), ValueNotFound)


def test_batches_spool_in_order_and_stop_at_the_first_failure() -> None:
    store = MemoryStore()
    spooled = spool_retrievables(iter([record("a", id="one"), record("b", id="two")]), store).unwrap()
    assert [r.id for r in spooled] == ["one", "two"]
    assert all(isinstance(r.content, SpooledArtifact) for r in spooled)
    failed = spool_retrievables([record("a", id="ok"), record("b", id="no/pe")], store)
    assert isinstance(failed, Failure) and isinstance(failed.failure(), InvalidStoreId)


def test_the_input_record_is_unchanged_by_spooling() -> None:
    r = record("text")
    before = (r.content, r.inline)
    spool_retrievable(r, MemoryStore())
    assert (r.content, r.inline) == before




class RaisingStore:
    """A caller-written byte store whose backend is down: every call raises."""

    @property
    def kind(self) -> str:
        return "remote"

    @property
    def location(self) -> str:
        return "s3://bucket"

    def write(self, id: str, data: Writable) -> Result[SpoolReader, StoreError]:
        raise ConnectionError("backend down")

    def read(self, id: str) -> Result[SpoolReader, StoreError]:
        raise ConnectionError("backend down")

    def delete(self, id: str) -> Result[bool, StoreError]:
        raise ConnectionError("backend down")


def test_a_caller_store_that_raises_is_a_store_failure_with_its_cause() -> None:
    store = RaisingStore()
    assert isinstance(store, ByteStore)
    spooled = spool_retrievable(record("body"), store)
    error = spooled.failure()
    assert isinstance(error, StoreFailed) and isinstance(error.cause, ConnectionError)
    assert error.message == "write of id 'doc' failed: the store raised ConnectionError: backend down"
    opened = open_reader(ReaderDescriptor("remote", "s3://bucket", "doc"), [store]).failure()
    assert isinstance(opened, StoreFailed) and isinstance(opened.cause, ConnectionError)
    assert opened.message == "read of id 'doc' failed: the store raised ConnectionError: backend down"


_READER = {"store": "folder", "location": "/x", "id": "d"}


@pytest.mark.parametrize(
    ("change", "error"),
    [
        ({"format": "thrift_fp.retrievable/2"},
         InvalidSnapshot("format", "expected 'thrift_fp.retrievable/1', got 'thrift_fp.retrievable/2'")),
        ({"content": "text"}, InvalidSnapshot("content", "expected an object, got str")),
        ({"content": {"type": "text", "text": 3}}, InvalidSnapshot("content.text", "expected a string, got 3")),
        ({"content": {"type": "tokenizable"}}, InvalidSnapshot("content.text", "expected a string, got None")),
        ({"content": {"type": "video"}},
         InvalidSnapshot("content.type", "expected 'text', 'tokenizable' or 'spooled', got 'video'")),
        ({"content": {"type": "spooled", "reader": {"store": "folder"}}},
         InvalidSnapshot("content.reader", "expected {'store', 'location', 'id'} strings, got {'store': 'folder'}")),
        ({"content": {"type": "spooled", "reader": _READER, "byte_length_hint": "7"}},
         InvalidSnapshot("content.byte_length_hint", "byte_length_hint must be an int in [0, 2**63 - 1] or None, got '7'")),
        ({"content": {"type": "spooled", "reader": _READER, "line_count_hint": -1}},
         InvalidSnapshot("content.line_count_hint", "line_count_hint must be an int in [0, 2**63 - 1] or None, got -1")),
        ({"artifact_constructor": 7}, InvalidSnapshot("artifact_constructor", "expected a name or null, got 7")),
        ({"artifact_constructor": "pdfs.Pdf"}, InvalidSnapshot(
            "artifact_constructor", "the record was built by artifact constructor 'pdfs.Pdf'; pass it as artifact_constructor="
        )),
    ],
)
def test_each_malformed_snapshot_names_its_field_and_the_value_it_got(change: dict[str, object], error: InvalidSnapshot) -> None:
    assert from_snapshot({**_valid_snapshot(), **change}).failure() == error


def test_a_snapshot_of_an_undescribable_reader_names_the_record_and_the_readers_type() -> None:
    assert to_snapshot(record(SpooledArtifact(BrokenReader()))).failure() == SnapshotUnsupported(
        "doc", "its reader BrokenReader cannot describe where its bytes live"
    )


def test_a_reader_no_given_store_serves_names_the_descriptor_and_why() -> None:
    memory, elsewhere = ReaderDescriptor("memory", "m", "doc"), ReaderDescriptor("s3", "bucket", "doc")
    assert open_reader(memory, [MemoryStore(name="other")]).failure() == UnresolvableReader(
        "memory", "m", "doc", "a memory store lives only in its process; pass it in stores="
    )
    assert open_reader(elsewhere).failure() == UnresolvableReader(
        "s3", "bucket", "doc",
        "no store with this kind and location was passed in stores=; a snapshot never opens a path by itself",
    )
    not_a_store: list[Any] = [MemoryStore(name="other"), 7]
    assert open_reader(memory, not_a_store).failure() == UnresolvableReader(
        "memory", "m", "doc", "stores[1] is a int, not a ByteStore"
    )


def test_a_store_whose_identity_raises_is_a_read_failure_naming_the_id_and_keeping_the_cause() -> None:
    problem = RuntimeError("no kind")

    class Hostile(MemoryStore):
        @property
        def location(self) -> str:
            raise problem

    error = open_reader(ReaderDescriptor("memory", "m", "doc"), [Hostile()]).failure()
    assert error == StoreFailed("read", "doc", "the store raised RuntimeError: no kind", problem)
