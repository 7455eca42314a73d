"""Reading documents into passages: walking and selecting files, decoding, parsing Markdown,
reStructuredText, HTML, text and JSONL into heading structure, and splitting sections into
passages. It stands on the shared floor (`thrift_fp.sources.contract`: its errors, the heading
separator) and imports no store: the SQLite and PostgreSQL stores both build on this face.

>>> from thrift_fp.sources.documents import markdown_structure
>>> [h.title for h in markdown_structure("# Refunds\\n\\nFive days.\\n").unwrap().headings]
['Refunds']
"""

from thrift_fp.sources.documents._chunk import (
    DEFAULT_MAX_TOKENS,
    MAX_PASSAGE_TOKENS,
    MIN_PASSAGE_TOKENS,
    Passage,
    chunk_text,
)
from thrift_fp.sources.documents._corpus import embedded_corpus
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
from thrift_fp.sources.documents._files import StoredFile, free_label, gone, read_selected, storable_ns
from thrift_fp.sources.documents._html import html_structure
from thrift_fp.sources.documents._markdown import markdown_structure
from thrift_fp.sources.documents._rst import rst_structure
from thrift_fp.sources.documents._sections import SectionPassage, section_passages
from thrift_fp.sources.documents._structure import Heading, StructuredText, plain_structure
from thrift_fp.sources.documents._walk import (
    DEFAULT_INCLUDE,
    FoundFile,
    Selection,
    checked_selection,
    select_checked,
    select_files,
)

__all__ = [
    "DEFAULT_INCLUDE",
    "DEFAULT_MAX_TOKENS",
    "MAX_PASSAGE_TOKENS",
    "MIN_PASSAGE_TOKENS",
    "DecodedText",
    "DocumentPassage",
    "FilePassages",
    "FoundFile",
    "Heading",
    "Kind",
    "Passage",
    "SectionPassage",
    "Selection",
    "StoredFile",
    "StructuredText",
    "checked_selection",
    "chunk_text",
    "content_hash",
    "decode_text",
    "document_passages",
    "document_structure",
    "embedded_corpus",
    "file_passages",
    "free_label",
    "gone",
    "html_structure",
    "kind_of",
    "markdown_structure",
    "plain_structure",
    "read_selected",
    "rst_structure",
    "section_passages",
    "select_checked",
    "select_files",
    "storable_ns",
]
