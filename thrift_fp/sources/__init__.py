"""Ready retrieval sources over real stores: SQLite FTS5 first.

The package is laid out by concern: ``documents/`` reads files into passages, ``ranking/``
turns questions into terms and scores, ``_contract`` is what every store returns, and
``sqlite/`` and ``postgres/`` are the two stores (neither imports the other). The SQLite
store's names, and the document readers', are public here; the PostgreSQL store's are in
`thrift_fp.sources.postgres`.
"""

from thrift_fp._beartype import check_public
from thrift_fp.sources.sqlite._assemble import AssembleError, Assembled, Decision, SpoolPolicy, assemble
from thrift_fp.sources.documents._chunk import DEFAULT_MAX_TOKENS, MIN_PASSAGE_TOKENS, Passage, chunk_text
from thrift_fp.sources._corpus import embedded_corpus
from thrift_fp.sources._contract import (
    FtsDefinition,
    Hit,
    hit_to_retrievable,
    prepare_query,
    require_searchable,
)
from thrift_fp.sources.sqlite._definition import SearchFailed, fts5_definition
from thrift_fp.sources.documents._decode import DecodedText, decode_text
from thrift_fp.sources.documents._documents import (
    DocumentPassage,
    FilePassages,
    Kind,
    content_hash,
    document_passages,
    document_structure,
    file_passages,
    kind_of,
)
from thrift_fp.sources._errors import (
    BinaryFile,
    CorruptDatabase,
    DatabaseMissing,
    Fts5Unavailable,
    IndexProblems,
    IndexSettingsMismatch,
    IndexWriteFailed,
    InvalidChunkBound,
    InvalidJsonlRecord,
    InvalidText,
    InvalidArgument,
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
from thrift_fp.sources.sqlite._index import IndexReport, index_paths
from thrift_fp.sources.documents._markdown import markdown_structure
from thrift_fp.sources.documents._html import html_structure
from thrift_fp.sources.ranking._match import bm25_to_score, match_expression, query_terms
from thrift_fp.sources.documents._rst import rst_structure
from thrift_fp.sources.sqlite._search import HEADING_WEIGHT, search_index, search_ranking
from thrift_fp.sources.dense._hybrid import Ranking
from thrift_fp.sources.documents._sections import SectionPassage, section_passages
from thrift_fp.sources.sqlite._store import check_fts5
from thrift_fp.sources.documents._structure import Heading, StructuredText, plain_structure
from thrift_fp.sources.documents._walk import DEFAULT_INCLUDE, FoundFile, Selection, select_files

__all__ = [
    "DEFAULT_INCLUDE",
    "DEFAULT_MAX_TOKENS",
    "HEADING_WEIGHT",
    "MIN_PASSAGE_TOKENS",
    "Ranking",
    "AssembleError",
    "Assembled",
    "BinaryFile",
    "CorruptDatabase",
    "DatabaseMissing",
    "Decision",
    "DecodedText",
    "DocumentPassage",
    "FilePassages",
    "FoundFile",
    "Fts5Unavailable",
    "FtsDefinition",
    "Heading",
    "Hit",
    "IndexProblems",
    "IndexReport",
    "IndexSettingsMismatch",
    "IndexWriteFailed",
    "InvalidChunkBound",
    "InvalidJsonlRecord",
    "InvalidText",
    "InvalidArgument",
    "InvalidTrustTier",
    "Kind",
    "LinkNotFollowed",
    "MissingParser",
    "NoQuery",
    "Passage",
    "PathNotFound",
    "SearchFailed",
    "SectionPassage",
    "Selection",
    "SkippedFile",
    "SourceError",
    "SpoolPolicy",
    "StructuredText",
    "UndecodableText",
    "UnreadableFile",
    "UnsplittableText",
    "assemble",
    "bm25_to_score",
    "check_fts5",
    "chunk_text",
    "content_hash",
    "decode_text",
    "document_passages",
    "document_structure",
    "embedded_corpus",
    "file_passages",
    "fts5_definition",
    "hit_to_retrievable",
    "html_structure",
    "index_paths",
    "kind_of",
    "markdown_structure",
    "match_expression",
    "plain_structure",
    "prepare_query",
    "query_terms",
    "require_searchable",
    "rst_structure",
    "search_index",
    "search_ranking",
    "section_passages",
    "select_files",
]

# Every public function is type-checked at this boundary (see thrift_fp/_beartype.py).
check_public(globals(), __all__)
