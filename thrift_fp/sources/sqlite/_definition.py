"""A ready `RetrievalDefinition` over an FTS5 index."""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from thrift_fp._args import CheckedStringsArg, PathArg, as_strings
from thrift_fp.retrieval import OperationContext
from thrift_fp.sources.contract import ALL_TIERS, FtsDefinition, SourceError, StoreSearchFailed, store_definition
from thrift_fp.sources.dense import DenseChoice
from thrift_fp.sources.sqlite._search import search_index

DEFAULT_DEFINITION_ID: Final = "fts5-search"


class SearchFailed(StoreSearchFailed[SourceError]):
    """Raised inside ``execute`` (the lifecycle's way to fail a read); carries the error value.

    >>> from thrift_fp.sources import PathNotFound
    >>> SearchFailed(PathNotFound("/x.db")).error.message
    'no such file or folder: /x.db'
    """


def fts5_definition(
    database: PathArg,
    *,
    max_results: int = 8,
    max_queries: int = 4,
    tiers: CheckedStringsArg = ALL_TIERS,
    id: str = DEFAULT_DEFINITION_ID,
    authorize: Callable[[str, OperationContext[object]], None] | None = None,
    dense: DenseChoice = True,
) -> FtsDefinition:
    """A retrieval over the index at ``database``: ``max_results`` passages per query (one per
    distinct content, best bm25 first), at most ``max_queries`` accepted queries per request;
    ``dense`` as for `search_index` (by default hybrid where the index holds the vectors of an
    installed model, lexical otherwise; ``False`` for lexical).

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

    return store_definition(
        lambda query: search_index(database, query, limit=max_results, tiers=allowed, dense=dense),
        SearchFailed,
        id=id,
        description=f"full-text (bm25) search over the passages indexed in {database}",
        tags=("fts5", "bm25"),
        max_queries=max_queries,
        authorize=authorize,
    )
