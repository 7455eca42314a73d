"""Ready retrieval sources over real stores: SQLite FTS5 first."""

from thrift_fp._beartype import check_public
from thrift_fp.sources._assemble import AssembleError, Assembled, Decision, SpoolPolicy, assemble
from thrift_fp.sources._chunk import MIN_PASSAGE_TOKENS, Passage, chunk_text
from thrift_fp.sources._corpus import embedded_corpus
from thrift_fp.sources._definition import (
    FtsDefinition,
    SearchFailed,
    fts5_definition,
    hit_to_retrievable,
    prepare_query,
    require_searchable,
)
from thrift_fp.sources._documents import DocumentPassage, content_hash, document_passages, kind_of
from thrift_fp.sources._errors import (
    CorruptDatabase,
    DatabaseMissing,
    Fts5Unavailable,
    IndexSettingsMismatch,
    IndexWriteFailed,
    InvalidChunkBound,
    InvalidJsonlRecord,
    InvalidTrustTier,
    PathNotFound,
    SourceError,
    UnreadableFile,
    UnsplittableText,
)
from thrift_fp.sources._index import DEFAULT_MAX_TOKENS, IndexReport, index_paths
from thrift_fp.sources._match import bm25_to_score, match_expression
from thrift_fp.sources._search import Hit, search_index
from thrift_fp.sources._store import check_fts5

__all__ = [
    "DEFAULT_MAX_TOKENS",
    "AssembleError",
    "Assembled",
    "CorruptDatabase",
    "DatabaseMissing",
    "Decision",
    "DocumentPassage",
    "Fts5Unavailable",
    "FtsDefinition",
    "Hit",
    "IndexReport",
    "IndexSettingsMismatch",
    "IndexWriteFailed",
    "InvalidChunkBound",
    "InvalidJsonlRecord",
    "InvalidTrustTier",
    "MIN_PASSAGE_TOKENS",
    "Passage",
    "PathNotFound",
    "SearchFailed",
    "SourceError",
    "SpoolPolicy",
    "UnreadableFile",
    "UnsplittableText",
    "assemble",
    "bm25_to_score",
    "check_fts5",
    "chunk_text",
    "content_hash",
    "document_passages",
    "embedded_corpus",
    "fts5_definition",
    "hit_to_retrievable",
    "index_paths",
    "kind_of",
    "match_expression",
    "prepare_query",
    "require_searchable",
    "search_index",
]

# Every public function is type-checked at this boundary (see thrift_fp/_beartype.py).
check_public(globals(), __all__)
