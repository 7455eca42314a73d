"""Seed 003's artifactConstructor: a resolver builds the artifact when a record is
auto-spooled, and again when its snapshot is read back, so the artifact keeps its type."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from thrift_fp.records import (
    ArtifactConstructorFailed,
    FolderStore,
    InvalidSnapshot,
    MemoryStore,
    Retrievable,
    SpooledArtifact,
    SpoolReader,
    from_snapshot,
    parse_retrievable,
    spool_retrievable,
    spool_retrievables,
    to_snapshot,
)


class PdfArtifact(SpooledArtifact):
    """An artifact subclass with a view of its own."""

    def first_page(self) -> str:
        return self.head(1).unwrap()[0]


def record(**extra: Any) -> Retrievable:
    return parse_retrievable(
        {"id": "doc", "content": "page one\npage two", "trust_tier": "third-party-private",
         "created_at": 0, "updated_at": 0, **extra}
    ).unwrap()


def test_auto_spooling_builds_the_artifact_through_the_resolver() -> None:
    seen: list[tuple[SpoolReader, int | None, int | None]] = []

    def resolver(reader: SpoolReader, byte_length: int | None, line_count: int | None) -> SpooledArtifact:
        seen.append((reader, byte_length, line_count))
        return PdfArtifact(reader, byte_length, line_count)

    spooled = spool_retrievable(record(artifact_constructor=resolver), MemoryStore()).unwrap()
    assert isinstance(spooled.content, PdfArtifact) and spooled.content.first_page() == "page one"
    assert [(b, n) for _, b, n in seen] == [(17, 2)]
    assert spooled.artifact_constructor is resolver
    assert type(spool_retrievable(record(), MemoryStore()).unwrap().content) is SpooledArtifact


def test_a_subclass_is_a_resolver_and_the_snapshot_round_trip_keeps_its_type(tmp_path: Path) -> None:
    store = FolderStore(str(tmp_path))
    spooled = spool_retrievable(record(artifact_constructor=PdfArtifact), store).unwrap()
    snapshot = json.loads(json.dumps(to_snapshot(spooled).unwrap()))
    assert snapshot["artifact_constructor"] == f"{__name__}.PdfArtifact"
    back = from_snapshot(snapshot, stores=[store], artifact_constructor=PdfArtifact).unwrap()
    assert back == spooled and type(back.content) is PdfArtifact
    # The name in the snapshot is data: it is never imported, so the resolver must come back.
    missing = from_snapshot(snapshot, stores=[store]).failure()
    assert isinstance(missing, InvalidSnapshot) and missing.field == "artifact_constructor"
    assert "pass it as artifact_constructor=" in missing.message


def test_an_unspooled_record_keeps_its_resolver_across_a_snapshot() -> None:
    r = record(artifact_constructor=PdfArtifact)
    back = from_snapshot(to_snapshot(r).unwrap(), artifact_constructor=PdfArtifact).unwrap()
    assert back == r and back.artifact_constructor is PdfArtifact
    plain = record()
    assert from_snapshot(to_snapshot(plain).unwrap(), artifact_constructor=PdfArtifact).unwrap() == plain


def _raises(reader: SpoolReader, byte_length: int | None, line_count: int | None) -> SpooledArtifact:
    raise ValueError("not a PDF")


@pytest.mark.parametrize(
    ("resolver", "reason"),
    [
        (_raises, "raised ValueError: not a PDF"),
        (lambda reader, b, n: "a string", "returned str, not a SpooledArtifact"),
        (lambda reader, b, n: None, "returned NoneType, not a SpooledArtifact"),
        (lambda reader, b, n: SpooledArtifact(reader, -1, n), "returned an artifact whose byte_length_hint must be"),
        (lambda reader, b, n: SpooledArtifact(reader, b, 2**1024), "returned an artifact whose line_count_hint must be"),
    ],
)
def test_a_resolver_that_raises_or_builds_a_non_artifact_is_an_error_value(resolver: Any, reason: str) -> None:
    error = spool_retrievable(record(artifact_constructor=resolver), MemoryStore()).failure()
    assert isinstance(error, ArtifactConstructorFailed) and error.id == "doc"
    assert error.reason.startswith(reason), error.reason
    assert error.message.startswith("artifact constructor for retrievable 'doc' failed: ")
    assert isinstance(spool_retrievables([record(artifact_constructor=resolver)], MemoryStore()).failure(),
                      ArtifactConstructorFailed)


def test_the_snapshot_path_reports_a_failing_resolver_too() -> None:
    store = MemoryStore()
    spooled = spool_retrievable(record(artifact_constructor=PdfArtifact), store).unwrap()
    error = from_snapshot(to_snapshot(spooled).unwrap(), stores=[store], artifact_constructor=_raises).failure()
    assert isinstance(error, ArtifactConstructorFailed) and "not a PDF" in error.message


@pytest.mark.parametrize("named", [7, ["x"], {"a": 1}])
def test_a_snapshot_naming_a_constructor_with_a_non_string_is_invalid(named: object) -> None:
    snapshot = {**to_snapshot(record()).unwrap(), "artifact_constructor": named}
    error = from_snapshot(snapshot, artifact_constructor=PdfArtifact).failure()
    assert isinstance(error, InvalidSnapshot) and error.field == "artifact_constructor"


def test_a_resolver_without_a_module_is_named_by_its_type_in_the_snapshot() -> None:
    # A method-wrapper is callable but has no __module__ attribute at all.
    resolver: Any = (1).__add__
    assert not hasattr(resolver, "__module__")
    snapshot = to_snapshot(record(artifact_constructor=resolver)).unwrap()
    assert snapshot["artifact_constructor"] == "method-wrapper"


def test_a_resolver_failing_on_the_snapshot_path_names_the_snapshots_record_id() -> None:
    store = MemoryStore()
    spooled = spool_retrievable(record(artifact_constructor=PdfArtifact), store).unwrap()
    problem = ValueError("not a PDF")

    def raising(reader: SpoolReader, byte_length: int | None, line_count: int | None) -> SpooledArtifact:
        raise problem

    error = from_snapshot(to_snapshot(spooled).unwrap(), stores=[store], artifact_constructor=raising).failure()
    assert error == ArtifactConstructorFailed("doc", "raised ValueError: not a PDF", problem)
    assert error.message == "artifact constructor for retrievable 'doc' failed: raised ValueError: not a PDF"
