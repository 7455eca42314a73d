"""The floor both stores stand on: what a search returns (`Hit`), the retrieval over any store
(`FtsDefinition`, `store_definition`), the answer (`answer`, `Assembled`), trust tiers and the
closed union of errors (`SourceError`). It imports only `thrift_fp.sources.ranking` and
`thrift_fp.sources.dense` below it; `documents`, `sqlite` and `postgres` import it through
this face, and neither store imports the other.

>>> from thrift_fp.sources.contract import PathNotFound
>>> PathNotFound("notes/").message
'no such file or folder: notes/'
"""

from thrift_fp.sources.contract._answer import (
    ANSWER_FIELDS,
    AssembleError,
    Assembled,
    Decision,
    FtsReceipt,
    SpoolPolicy,
    answer,
)
from thrift_fp.sources.contract._contract import (
    ALL_TIERS,
    CANDIDATES_PER_HIT,
    Copy,
    FtsDefinition,
    HEADING_SEPARATOR,
    Hit,
    StoreSearchFailed,
    collapsed_hits,
    hit_to_retrievable,
    prepare_query,
    require_searchable,
    store_definition,
)
from thrift_fp.sources.contract._errors import (
    BinaryFile,
    CorruptDatabase,
    DatabaseMissing,
    Fts5Unavailable,
    IndexProblems,
    IndexSettingsMismatch,
    IndexWriteFailed,
    InvalidArgument,
    InvalidChunkBound,
    InvalidJsonlRecord,
    InvalidText,
    InvalidTrustTier,
    LinkNotFollowed,
    MissingParser,
    NoQuery,
    PathNotFound,
    SkippedFile,
    SourceError,
    UndecodableText,
    UnreadableFile,
    UnsplittableText,
)
from thrift_fp.sources.contract._tiers import checked_tiers

__all__ = [
    "ANSWER_FIELDS",
    "ALL_TIERS",
    "CANDIDATES_PER_HIT",
    "HEADING_SEPARATOR",
    "AssembleError",
    "Assembled",
    "BinaryFile",
    "Copy",
    "CorruptDatabase",
    "DatabaseMissing",
    "Decision",
    "Fts5Unavailable",
    "FtsDefinition",
    "FtsReceipt",
    "Hit",
    "IndexProblems",
    "IndexSettingsMismatch",
    "IndexWriteFailed",
    "InvalidArgument",
    "InvalidChunkBound",
    "InvalidJsonlRecord",
    "InvalidText",
    "InvalidTrustTier",
    "LinkNotFollowed",
    "MissingParser",
    "NoQuery",
    "PathNotFound",
    "SkippedFile",
    "SourceError",
    "SpoolPolicy",
    "StoreSearchFailed",
    "UndecodableText",
    "UnreadableFile",
    "UnsplittableText",
    "answer",
    "checked_tiers",
    "collapsed_hits",
    "hit_to_retrievable",
    "prepare_query",
    "require_searchable",
    "store_definition",
]
