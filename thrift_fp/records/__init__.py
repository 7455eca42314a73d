"""Retrievable records, trust tiers, spooled artifacts and the byte stores behind them."""

from typing import TYPE_CHECKING

from thrift_fp._beartype import check_public
from thrift_fp._lazy import retired_face
from thrift_fp.records._artifact import SpooledArtifact
from thrift_fp.records._constructor import ArtifactConstructor
from thrift_fp.records._errors import (
    ArtifactConstructorFailed,
    DuplicateRetrievableId,
    FieldProblem,
    InvalidLineRange,
    InvalidPattern,
    InvalidRetrievable,
    InvalidSnapshot,
    InvalidStoreId,
    LineOutOfRange,
    NotUtf8,
    RecordError,
    SnapshotError,
    SnapshotUnsupported,
    StoreError,
    StoreFailed,
    UnresolvableReader,
    ValueNotFound,
)
from thrift_fp.records._folder_store import FolderStore
from thrift_fp.records._lines import size_hints
from thrift_fp.records._memory_store import MemoryStore
from thrift_fp.records._parse import RawRetrievable, parse_retrievable
from thrift_fp.records._reader import ReaderDescriptor, SpoolReader
from thrift_fp.records._retrievable import Retrievable
from thrift_fp.records._snapshot import from_snapshot, open_reader, to_snapshot
from thrift_fp.records._spool import spool_retrievable, spool_retrievables
from thrift_fp.records._sqlite_store import SqliteStore
from thrift_fp.records._store import ByteStore
from thrift_fp.records._stream_count import StreamedCount
from thrift_fp.records._tier import TRUST_TIERS, TrustTier

__all__ = [
    "TRUST_TIERS",
    "ArtifactConstructor",
    "ArtifactConstructorFailed",
    "ByteStore",
    "DuplicateRetrievableId",
    "FieldProblem",
    "FolderStore",
    "InvalidLineRange",
    "InvalidPattern",
    "InvalidRetrievable",
    "InvalidSnapshot",
    "InvalidStoreId",
    "LineOutOfRange",
    "MemoryStore",
    "NotUtf8",
    "RawRetrievable",
    "ReaderDescriptor",
    "RecordError",
    "Retrievable",
    "SnapshotError",
    "SnapshotUnsupported",
    "SpoolReader",
    "SpooledArtifact",
    "SqliteStore",
    "StoreError",
    "StoreFailed",
    "StreamedCount",
    "TrustTier",
    "UnresolvableReader",
    "ValueNotFound",
    "from_snapshot",
    "open_reader",
    "parse_retrievable",
    "size_hints",
    "spool_retrievable",
    "spool_retrievables",
    "to_snapshot",
]

# Every public function is type-checked at this boundary (see thrift_fp/_beartype.py).
check_public(globals(), __all__)

# Names that left the face (the stores' and the parser's inner steps; issue 37): each still
# imports, with a warning, until a later release.
_RETIRED = {
    "StoreReader": ("thrift_fp.records._store", "a store's write and read return it as a SpoolReader; name that"),
    "check_id": ("thrift_fp.records._store", "the stores check every id themselves (InvalidStoreId)"),
    "parse_timestamp": ("thrift_fp.records._timestamps", "parse_retrievable applies it to created_at and updated_at"),
}
if not TYPE_CHECKING:  # to mypy these names are gone; at run time they still resolve
    __getattr__ = retired_face(__name__, _RETIRED)
