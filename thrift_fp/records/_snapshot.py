"""Snapshots: a retrievable as plain JSON data, and back (re-validated).

Layout (``format`` names the version)::

    {"format": "thrift_fp.retrievable/1", "id": ..., "trust_tier": ...,
     "created_at": "<ISO-8601, UTC>", "updated_at": "...", "source": ..., "kind": ...,
     "score": ..., "inline": ..., "artifact_constructor": <its qualified name> | null,
     "content": {"type": "text", "text": ...}
              | {"type": "tokenizable", "text": ...}
              | {"type": "spooled", "reader": {"store": ..., "location": ..., "id": ...},
                 "byte_length_hint": ..., "line_count_hint": ...}}

A spooled body is written as its reader's descriptor, never as its bytes; ``from_snapshot``
reopens it through a store the caller passes in, never by opening the path it names
(see ``open_reader``). A dynamic ``Tokenizable`` is code, not data, and a reader that
cannot describe itself names no place to reopen: both are ``SnapshotUnsupported`` values rather
than a snapshot that would come back different. For the same reason a record's
``artifact_constructor`` (code) is written only as its name, to say that the caller must pass
the resolver back to ``from_snapshot``; the name is never imported.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from returns.result import Failure, Result, Success

from thrift_fp._args import Each

from thrift_fp._shown import shown, shown_exception
from thrift_fp.records._artifact import SpooledArtifact
from thrift_fp.records._constructor import ArtifactConstructor, build_artifact, constructor_name, hint_problem
from thrift_fp.records._errors import InvalidSnapshot, RecordError, SnapshotUnsupported, StoreFailed, UnresolvableReader
from thrift_fp.records._guard import guarded_describe, guarded_store
from thrift_fp.records._parse import parse_retrievable
from thrift_fp.records._reader import ReaderDescriptor, SpoolReader
from thrift_fp.records._retrievable import Retrievable
from thrift_fp.records._store import ByteStore
from thrift_fp.tokens import Tokenizable

SNAPSHOT_FORMAT = "thrift_fp.retrievable/1"


def to_snapshot(record: Retrievable) -> Result[dict[str, object], SnapshotUnsupported]:
    """``record`` as JSON-serialisable data.

    >>> import json
    >>> from thrift_fp.records import parse_retrievable
    >>> r = parse_retrievable({"id": "p1", "content": "Policy text.", "trust_tier": "first-party",
    ...     "kind": "policy", "created_at": "2024-01-01T00:00:00Z", "updated_at": 1704067200}).unwrap()
    >>> snapshot = to_snapshot(r).unwrap()
    >>> snapshot["content"], snapshot["created_at"]
    ({'type': 'text', 'text': 'Policy text.'}, '2024-01-01T00:00:00+00:00')
    >>> from_snapshot(json.loads(json.dumps(snapshot))).unwrap() == r
    True
    """
    content = record.content
    encoded: dict[str, object]
    if isinstance(content, str):
        encoded = {"type": "text", "text": content}
    elif isinstance(content, Tokenizable):
        if not isinstance(content.value, str):
            return Failure(SnapshotUnsupported(record.id, "its content is a dynamic Tokenizable (a function, not data)"))
        encoded = {"type": "tokenizable", "text": content.value}
    else:
        described = guarded_describe(content.reader)
        if isinstance(described, Failure):
            return Failure(SnapshotUnsupported(record.id, described.failure().message))
        descriptor = described.unwrap()
        if descriptor is None:
            return Failure(SnapshotUnsupported(record.id, f"its reader {type(content.reader).__name__} cannot describe where its bytes live"))
        encoded = {
            "type": "spooled",
            "reader": descriptor.to_json(),
            "byte_length_hint": content.byte_length_hint,
            "line_count_hint": content.line_count_hint,
        }
    return Success(
        {
            "format": SNAPSHOT_FORMAT,
            "id": record.id,
            "content": encoded,
            "trust_tier": record.trust_tier,
            "created_at": record.created_at.isoformat(),
            "updated_at": record.updated_at.isoformat(),
            "source": record.source,
            "kind": record.kind,
            "score": record.score,
            "inline": record.inline,
            "artifact_constructor": (
                None if record.artifact_constructor is None else constructor_name(record.artifact_constructor)
            ),
        }
    )


def from_snapshot(
    snapshot: object,
    *,
    stores: Each[ByteStore] = (),
    artifact_constructor: ArtifactConstructor | None = None,
) -> Result[Retrievable, RecordError]:
    """Rebuild a retrievable from ``to_snapshot`` output, validating it again.

    Spooled content is reopened only through ``stores`` (see ``open_reader``): a snapshot is
    data, and the path it names is never opened unless the caller handed over that store.
    A record that had an ``artifact_constructor`` needs it passed back as ``artifact_constructor``
    (a snapshot holds no code); its spooled artifact is rebuilt through it, keeping its type. A
    record without one ignores it.

    >>> from thrift_fp.records import MemoryStore, SpooledArtifact, parse_retrievable
    >>> store = MemoryStore()
    >>> body = SpooledArtifact(store.write("u1", "uploaded\\nfile").unwrap(), 13, 2)
    >>> r = parse_retrievable({"id": "u1", "content": body, "trust_tier": "third-party-private",
    ...     "created_at": 0, "updated_at": 0}).unwrap()
    >>> from_snapshot(to_snapshot(r).unwrap(), stores=[store]).unwrap() == r
    True
    >>> from_snapshot(to_snapshot(r).unwrap()).failure().message
    "cannot reopen memory store at '...' for id 'u1': a memory store lives only in its process; pass it in stores="
    >>> from_snapshot({"format": "other"}).failure().message
    "invalid snapshot at format: expected 'thrift_fp.retrievable/1', got 'other'"
    """
    if not isinstance(snapshot, Mapping):
        return Failure(InvalidSnapshot("(snapshot)", f"expected an object, got {type(snapshot).__name__}"))
    if snapshot.get("format") != SNAPSHOT_FORMAT:
        return Failure(InvalidSnapshot("format", f"expected {SNAPSHOT_FORMAT!r}, got {shown(snapshot.get('format'))}"))
    named = snapshot.get("artifact_constructor")
    if named is not None and not isinstance(named, str):
        return Failure(InvalidSnapshot("artifact_constructor", f"expected a name or null, got {shown(named)}"))
    if named is not None and artifact_constructor is None:
        reason = f"the record was built by artifact constructor {shown(named)}; pass it as artifact_constructor="
        return Failure(InvalidSnapshot("artifact_constructor", reason))
    resolver = artifact_constructor if named is not None else None
    id_ = snapshot.get("id")
    content = _decode_content(snapshot.get("content"), tuple(stores), id_ if isinstance(id_, str) else "", resolver)
    if isinstance(content, Failure):
        return content
    raw = {key: value for key, value in snapshot.items() if key != "format"}
    raw["content"] = content.unwrap()
    raw["artifact_constructor"] = resolver
    parsed: Result[Retrievable, RecordError] = parse_retrievable(raw)
    return parsed


def open_reader(descriptor: ReaderDescriptor, stores: Each[ByteStore] = ()) -> Result[SpoolReader, RecordError]:
    """The reader a descriptor names, read through the given store with the same kind and location.

    A descriptor is data, often from an untrusted snapshot, so it is never used to open a path
    (that would let a snapshot read any file this process can read): only a store the caller
    passes in may serve it, matched by its ``kind`` and ``location``. Inside that store the id
    obeys ``check_id``, so it cannot leave the store either.

    >>> import os, tempfile
    >>> from thrift_fp.records import FolderStore
    >>> store = FolderStore(tempfile.mkdtemp())
    >>> _ = store.write("doc", "kept")
    >>> open_reader(ReaderDescriptor("folder", store.location, "doc"), [store]).unwrap().read_all().unwrap()
    'kept'
    >>> print(open_reader(ReaderDescriptor("folder", "/etc", "passwd"), [store]).failure().message)
    cannot reopen folder store at '/etc' for id 'passwd': no store with this kind and location was passed in stores=; a snapshot never opens a path by itself
    """
    offered: tuple[object, ...] = tuple(stores)
    for index, store in enumerate(offered):
        try:
            # beartype samples one element of an iterable; every element is checked here.
            if not isinstance(store, ByteStore):
                reason = f"stores[{index}] is a {type(store).__qualname__}, not a ByteStore"
                return Failure(UnresolvableReader(descriptor.store, descriptor.location, descriptor.id, reason))
            matches = store.kind == descriptor.store and store.location == descriptor.location
        except Exception as exc:  # noqa: BLE001 - a caller-supplied store is a user callback; keep the cause
            return Failure(StoreFailed("read", descriptor.id, f"the store raised {shown_exception(exc)}", exc))
        if matches:
            given: Result[SpoolReader, RecordError] = guarded_store("read", descriptor.id, lambda: store.read(descriptor.id))
            return given
    reason = (
        "a memory store lives only in its process; pass it in stores="
        if descriptor.store == "memory"
        else "no store with this kind and location was passed in stores=; a snapshot never opens a path by itself"
    )
    return Failure(UnresolvableReader(descriptor.store, descriptor.location, descriptor.id, reason))


def _decode_content(
    value: object, stores: tuple[ByteStore, ...], record_id: str, resolver: ArtifactConstructor | None
) -> Result[object, RecordError]:
    if not isinstance(value, Mapping):
        return Failure(InvalidSnapshot("content", f"expected an object, got {type(value).__name__}"))
    kind = value.get("type")
    if kind in ("text", "tokenizable"):
        text = value.get("text")
        if not isinstance(text, str):
            return Failure(InvalidSnapshot("content.text", f"expected a string, got {shown(text)}"))
        return Success(text if kind == "text" else Tokenizable(text))
    if kind != "spooled":
        return Failure(InvalidSnapshot("content.type", f"expected 'text', 'tokenizable' or 'spooled', got {shown(kind)}"))
    reader = value.get("reader")
    if not isinstance(reader, Mapping) or not all(isinstance(reader.get(key), str) for key in ("store", "location", "id")):
        return Failure(InvalidSnapshot("content.reader", f"expected {{'store', 'location', 'id'}} strings, got {shown(reader)}"))
    byte_hint, line_hint = value.get("byte_length_hint"), value.get("line_count_hint")
    for name, hint in (("byte_length_hint", byte_hint), ("line_count_hint", line_hint)):
        problem = hint_problem(name, hint)
        if problem is not None:
            return Failure(InvalidSnapshot(f"content.{name}", problem))
    byte_length = byte_hint if isinstance(byte_hint, int) else None
    line_count = line_hint if isinstance(line_hint, int) else None
    descriptor = ReaderDescriptor(str(reader["store"]), str(reader["location"]), str(reader["id"]))
    opened = open_reader(descriptor, stores)
    if isinstance(opened, Failure):
        return Failure(opened.failure())
    if resolver is None:
        return Success(SpooledArtifact(opened.unwrap(), byte_length, line_count))
    built: Result[object, RecordError] = build_artifact(record_id, resolver, opened.unwrap(), byte_length, line_count)
    return built
