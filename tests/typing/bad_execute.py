"""Checked by mypy, never run: a mistyped ``execute`` must be rejected.

tests/test_retrieval_typing.py runs mypy on this file and expects exactly the
error marked below; the well-typed definition above it must pass.
"""

from __future__ import annotations

from tests._retrieval_fixtures import App, Doc, Found
from thrift_fp.retrieval import OperationContext, RetrievalDefinition


def accept(query: str, context: OperationContext[App]) -> None:
    return None


def search(query: str, context: OperationContext[App]) -> Found:
    return Found((Doc("manual", query),))


def search_text(query: str, context: OperationContext[App]) -> str:
    return query


good: RetrievalDefinition[str, Doc, Found, App] = RetrievalDefinition(
    id="docs",
    description="well typed",
    assert_input=accept,
    limit=lambda context: 2,
    execute=search,
    sources=lambda result: result.sources,
)

bad: RetrievalDefinition[str, Doc, Found, App] = RetrievalDefinition(
    id="docs",
    description="execute returns str, not Found",
    assert_input=accept,
    limit=lambda context: 2,
    execute=search_text,  # expected: [arg-type]
    sources=lambda result: result.sources,
)
