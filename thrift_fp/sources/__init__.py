"""Ready retrieval sources over real stores: SQLite FTS5 first.

``sources/`` is a stack of packages, each with a face (``__all__``) that the others import
through, and each importing only downward:

- `thrift_fp.sources.ranking`: questions to terms, the one scoring formula, fusion (the bottom);
- `thrift_fp.sources.dense`: embedding models and vectors (the ``[dense]`` extra);
- `thrift_fp.sources.contract`: the floor both stores share: hits, the retrieval definition,
  the answer, trust tiers and the errors;
- `thrift_fp.sources.documents`: reading files into passages;
- `thrift_fp.sources.sqlite` and `thrift_fp.sources.postgres`: the two stores, side by side
  with the same verbs; neither imports the other.

This face names what users call (the SQLite store, the document readers, the errors) and
imports each on first use, so importing `thrift_fp.sources.postgres` loads no SQLite code.

>>> from thrift_fp.sources import PathNotFound
>>> PathNotFound("notes/").message
'no such file or folder: notes/'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from thrift_fp._lazy import homes, lazy_face

if TYPE_CHECKING:  # for mypy and Griffe; at run time lazy_face imports each name on first use
    from thrift_fp.sources.contract import (
        AssembleError,
        Assembled,
        BinaryFile,
        Copy,
        CorruptDatabase,
        DatabaseMissing,
        Decision,
        Fts5Unavailable,
        FtsDefinition,
        Hit,
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
        SpoolPolicy,
        UndecodableText,
        UnreadableFile,
        UnsplittableText,
        hit_to_retrievable,
        prepare_query,
        require_searchable,
    )
    from thrift_fp.sources.documents import (
        DEFAULT_INCLUDE,
        DEFAULT_MAX_TOKENS,
        MIN_PASSAGE_TOKENS,
        DecodedText,
        DocumentPassage,
        FilePassages,
        FoundFile,
        Heading,
        Kind,
        Passage,
        SectionPassage,
        Selection,
        StructuredText,
        chunk_text,
        content_hash,
        decode_text,
        document_passages,
        document_structure,
        embedded_corpus,
        file_passages,
        html_structure,
        kind_of,
        markdown_structure,
        plain_structure,
        rst_structure,
        section_passages,
        select_files,
    )
    from thrift_fp.sources.ranking import (
        HEADING_WEIGHT,
        bm25_to_score,
        match_expression,
        query_terms,
    )
    from thrift_fp.sources.dense import (
        Ranking,
    )
    from thrift_fp.sources.sqlite import (
        IndexReport,
        SearchFailed,
        assemble,
        check_fts5,
        fts5_definition,
        index_paths,
        search_index,
        search_ranking,
    )

# Where each name lives (the subpackage faces above); tests/test_sources_stack.py checks this
# table against the imports above. ``__all__`` names what users call; the rest of the table
# (_RETIRED below: names public from their own faces) still imports from here, with a warning.
_HOMES = homes({
    "thrift_fp.sources.contract": (
        "AssembleError", "Assembled", "BinaryFile", "Copy", "CorruptDatabase", "DatabaseMissing", "Decision",
        "Fts5Unavailable", "FtsDefinition", "Hit", "IndexProblems", "IndexSettingsMismatch",
        "IndexWriteFailed", "InvalidArgument", "InvalidChunkBound", "InvalidJsonlRecord", "InvalidText",
        "InvalidTrustTier", "LinkNotFollowed", "MissingParser", "NoQuery", "PathNotFound", "SkippedFile", "SourceError",
        "SpoolPolicy", "UndecodableText", "UnreadableFile", "UnsplittableText", "hit_to_retrievable",
        "prepare_query", "require_searchable",
    ),
    "thrift_fp.sources.documents": (
        "DEFAULT_INCLUDE", "DEFAULT_MAX_TOKENS", "MIN_PASSAGE_TOKENS", "DecodedText", "DocumentPassage",
        "FilePassages", "FoundFile", "Heading", "Kind", "Passage", "SectionPassage", "Selection",
        "StructuredText", "chunk_text", "content_hash", "decode_text", "document_passages",
        "document_structure", "embedded_corpus", "file_passages", "html_structure", "kind_of",
        "markdown_structure", "plain_structure", "rst_structure", "section_passages", "select_files",
    ),
    "thrift_fp.sources.ranking": (
        "HEADING_WEIGHT", "bm25_to_score", "match_expression", "query_terms",
    ),
    "thrift_fp.sources.dense": (
        "Ranking",
    ),
    "thrift_fp.sources.sqlite": (
        "IndexReport", "SearchFailed", "assemble", "check_fts5", "fts5_definition", "index_paths",
        "search_index", "search_ranking",
    ),
})

__all__ = [
    "DEFAULT_INCLUDE",
    "DEFAULT_MAX_TOKENS",
    "Ranking",
    "AssembleError",
    "Assembled",
    "BinaryFile",
    "Copy",
    "CorruptDatabase",
    "DatabaseMissing",
    "Decision",
    "DocumentPassage",
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
    "LinkNotFollowed",
    "MissingParser",
    "NoQuery",
    "Passage",
    "PathNotFound",
    "SearchFailed",
    "Selection",
    "SkippedFile",
    "SourceError",
    "SpoolPolicy",
    "UndecodableText",
    "UnreadableFile",
    "UnsplittableText",
    "assemble",
    "chunk_text",
    "document_passages",
    "embedded_corpus",
    "fts5_definition",
    "index_paths",
    "search_index",
    "search_ranking",
    "select_files",
]

# Names that left this face for their own (issue 37); each still imports from here, with a
# DeprecationWarning saying where it lives, until a later release.
_RANKING = "import it from thrift_fp.sources.ranking"
_CONTRACT = "import it from thrift_fp.sources.contract"
_DOCUMENTS = "import it from thrift_fp.sources.documents"
_RETIRED = {
    **dict.fromkeys(("HEADING_WEIGHT", "bm25_to_score", "match_expression", "query_terms"), _RANKING),
    **dict.fromkeys(("hit_to_retrievable", "prepare_query", "require_searchable"), _CONTRACT),
    **dict.fromkeys((
        "MIN_PASSAGE_TOKENS", "DecodedText", "FilePassages", "FoundFile", "Kind", "SectionPassage", "StructuredText",
        "content_hash", "decode_text", "document_structure", "file_passages", "html_structure", "kind_of",
        "markdown_structure", "plain_structure", "rst_structure", "section_passages",
    ), _DOCUMENTS),
    "check_fts5": "import it from thrift_fp.sources.sqlite",
}

# Every public function is type-checked at this boundary (see thrift_fp/_beartype.py).
if not TYPE_CHECKING:  # mypy checks each import against the static imports above
    __getattr__, __dir__ = lazy_face(globals(), _HOMES, check=True, retired=_RETIRED)
