"""Hostile text through the store-independent document step and the search: values, never raises."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from returns.result import Failure, Result

from thrift_fp.sources import document_passages, index_paths, search_index
from thrift_fp.sources.documents import content_hash, file_passages

# Every code point, lone surrogates included (Hypothesis leaves them out of st.text by default).
_any_text = st.lists(
    st.one_of(st.characters(exclude_categories=()), st.sampled_from(["\ud800", "\udfff", "\x00", "# ", "\n", "=="])),
    max_size=60,
).map("".join)
_kinds = st.sampled_from(["markdown", "rst", "html", "text", "jsonl"])
_bounds = st.one_of(st.integers(min_value=-(2**70), max_value=2**70), st.sampled_from([8, 9, 2**63, 2**64]))


def _renders(result: Result[object, object]) -> None:
    if isinstance(result, Failure):
        assert isinstance(getattr(result.failure(), "message", None), str)


@settings(max_examples=60, deadline=None)
@given(label=_any_text, kind=_kinds, text=_any_text, max_tokens=_bounds)
def test_document_passages_returns_a_value_for_any_text(label: str, kind: str, text: str, max_tokens: int) -> None:
    assert len(content_hash(text)) == 64
    _renders(document_passages(label, kind, text, max_tokens=max_tokens, encoding="cl100k_base",  # type: ignore[arg-type]  # any kind name
                               trust_tier="first-party"))


@settings(max_examples=40, deadline=None)
@given(data=st.binary(max_size=200), kind=_kinds)
def test_file_passages_returns_a_value_for_any_bytes(data: bytes, kind: str) -> None:
    _renders(file_passages("f", kind, data, max_tokens=64, encoding="cl100k_base",  # type: ignore[arg-type]  # any kind name
                           trust_tier="first-party"))


_database = Path(tempfile.mkdtemp()) / "hostile.db"


@settings(max_examples=60, deadline=None)
@given(query=_any_text, limit=st.integers(min_value=-(2**80), max_value=2**80))
def test_search_returns_a_value_for_any_query_and_limit(query: str, limit: int) -> None:
    if not _database.exists():
        note = _database.parent / "note.md"
        note.write_text("# Budget\n\nC++ and node:fs budgets.")
        index_paths(_database, [note]).unwrap()
    _renders(search_index(_database, query, limit=limit))
