"""A ready `RetrievalDefinition` over an FTS5 index, and hits as `Retrievable` records."""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from returns.result import Failure, Result

from thrift_fp._args import CheckedStringsArg, PathArg, as_strings
from thrift_fp.records import InvalidRetrievable, Retrievable, parse_retrievable
from thrift_fp.retrieval import OperationContext, RetrievalDefinition
from thrift_fp.sources._errors import SourceError
from thrift_fp.sources._match import match_expression
from thrift_fp.sources._search import ALL_TIERS, Hit, search_index

DEFAULT_DEFINITION_ID: Final = "fts5-search"

FtsDefinition = RetrievalDefinition[str, Hit, tuple[Hit, ...], object]


class SearchFailed(Exception):
    """Raised inside ``execute`` (the lifecycle's way to fail a read); carries the error value."""

    def __init__(self, error: SourceError) -> None:
        super().__init__(error.message)
        self.error = error


def prepare_query(query: str, context: OperationContext[object]) -> str:
    """Normalise a query so that spellings FTS5 cannot tell apart share one key.

    >>> prepare_query("  How does\\tSHEDDING work ", OperationContext(None))
    'how does shedding work'
    """
    return " ".join(query.lower().split())


def require_searchable(query: str, context: OperationContext[object]) -> None:
    """Reject a query with no searchable word (the lifecycle turns this into ``InvalidQuery``).

    >>> try:
    ...     require_searchable("?!", OperationContext(None))
    ... except ValueError as error:
    ...     print(error)
    the query '?!' has no word to search for
    """
    if not match_expression(query):
        raise ValueError(f"the query {query!r} has no word to search for")


def fts5_definition(
    database: PathArg,
    *,
    max_results: int = 8,
    max_queries: int = 4,
    tiers: CheckedStringsArg = ALL_TIERS,
    id: str = DEFAULT_DEFINITION_ID,
    authorize: Callable[[str, OperationContext[object]], None] | None = None,
) -> FtsDefinition:
    """A retrieval over the index at ``database``: ``max_results`` passages per query (one per
    distinct content, best bm25 first), at most ``max_queries`` accepted queries per request.

    Run it with ``run_retrieval`` so the quota, duplicate, authorization and receipt rules apply;
    ``authorize(query, context)`` may raise to refuse a query (its key stays free).

    >>> import tempfile, pathlib
    >>> from thrift_fp.retrieval import RetrievalState, run_retrieval
    >>> from thrift_fp.sources import index_paths
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (root / "a.md").write_text("Shedding drops the lowest score first.")
    >>> _ = index_paths(root / "i.db", [root / "a.md"]).unwrap()
    >>> search = fts5_definition(root / "i.db", max_queries=1)
    >>> first = run_retrieval(search, " Shedding? ", OperationContext(None), RetrievalState())
    >>> receipt = first.result.unwrap()
    >>> receipt.query, [hit.passage_id for hit in receipt.sources]
    ('shedding?', ['a.md#1'])
    >>> run_retrieval(search, "score", OperationContext(None), first.state).result.failure().message
    'retrieval \\'fts5-search\\': query budget exhausted (1 of 1 used); refused query "score"'
    """
    # Checked by search_index on each run (an unknown tier fails the run as a value); a tuple,
    # not a set, so an unhashable element cannot raise here.
    allowed = as_strings(tiers)

    def execute(query: str, context: OperationContext[object]) -> tuple[Hit, ...]:
        found = search_index(database, query, limit=max_results, tiers=allowed)
        if isinstance(found, Failure):
            raise SearchFailed(found.failure())
        return found.unwrap()

    return RetrievalDefinition(
        id=id,
        description=f"full-text (bm25) search over the passages indexed in {database}",
        tags=("fts5", "bm25"),
        prepare=prepare_query,
        assert_input=require_searchable,
        limit=lambda context: max_queries,
        execute=execute,
        sources=lambda hits: hits,
        authorize=authorize,
    )


def hit_to_retrievable(hit: Hit) -> Result[Retrievable, InvalidRetrievable]:
    """The validated record for a hit: its passage id, text, tier, timestamps, source, kind, score.

    >>> from datetime import datetime, timezone
    >>> from types import MappingProxyType
    >>> at = datetime(2026, 1, 1, tzinfo=timezone.utc)
    >>> hit = Hit("a.md#1", "a.md", "/a.md", "markdown", "first-party", at, at, "h", 3,
    ...           "Shed first.", -2.0, 2 / 3, MappingProxyType({}))
    >>> record = hit_to_retrievable(hit).unwrap()
    >>> record.id, record.trust_tier, record.kind, round(record.score, 3)
    ('a.md#1', 'first-party', 'markdown', 0.667)
    """
    return parse_retrievable(
        {
            "id": hit.passage_id,
            "content": hit.text,
            "trust_tier": hit.trust_tier,
            "created_at": hit.created_at,
            "updated_at": hit.updated_at,
            "source": hit.source,
            "kind": hit.kind,
            "score": hit.score,
        }
    )
