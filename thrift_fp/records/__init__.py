"""Retrievable records, trust tiers, spooled artifacts and the byte stores behind them."""

from thrift_fp._beartype import check_public
from thrift_fp.records._artifact import SpooledArtifact
from thrift_fp.records._errors import (
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
from thrift_fp.records._store import ByteStore, StoreReader, check_id
from thrift_fp.records._stream_count import StreamedCount
from thrift_fp.records._tier import TRUST_TIERS, TrustTier
from thrift_fp.records._timestamps import parse_timestamp

__all__ = [
    "TRUST_TIERS",
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
    "StoreReader",
    "StreamedCount",
    "TrustTier",
    "UnresolvableReader",
    "ValueNotFound",
    "check_id",
    "from_snapshot",
    "open_reader",
    "parse_retrievable",
    "parse_timestamp",
    "size_hints",
    "spool_retrievable",
    "spool_retrievables",
    "to_snapshot",
]

# Every public function is type-checked at this boundary (see thrift_fp/_beartype.py).
check_public(globals(), __all__)
