"""`postgres_definition`: the retrieval lifecycle over one collection (the SQLite store's `fts5_definition`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from thrift_fp._args import CheckedStringsArg, as_strings
from thrift_fp.retrieval import OperationContext
from thrift_fp.sources.contract import ALL_TIERS, FtsDefinition, StoreSearchFailed, require_searchable, store_definition
from thrift_fp.sources.dense import DenseChoice
from thrift_fp.sources.postgres._errors import PostgresSourceError
from thrift_fp.sources.postgres._store import DEFAULT_COLLECTION
from thrift_fp.sources.postgres._search import search_index
from thrift_fp.sources.postgres._store import PostgresDatabase

DEFAULT_DEFINITION_ID: Final = "postgres-search"


class PostgresSearchFailed(StoreSearchFailed[PostgresSourceError]):
    """Raised inside ``execute`` (the lifecycle's way to fail a read); carries the error value.

    >>> from thrift_fp.sources.postgres import SchemaMissing
    >>> PostgresSearchFailed(SchemaMissing("postgresql:///docs")).error.url
    'postgresql:///docs'
    """


def require_terms(query: str, context: OperationContext[object]) -> None:
    """Reject a query with nothing to search for (the lifecycle turns this into ``InvalidQuery``):
    the same words as the SQLite store's (`thrift_fp.sources.contract.require_searchable`, `search_terms`).

    >>> try:
    ...     require_terms(' " - ', OperationContext(None))
    ... except ValueError as error:
    ...     print(error)
    the query ' " - ' has no word to search for
    """
    require_searchable(query, context)


def postgres_definition(
    database: PostgresDatabase,
    *,
    collection: str = DEFAULT_COLLECTION,
    max_results: int = 8,
    max_queries: int = 4,
    tiers: CheckedStringsArg = ALL_TIERS,
    id: str = DEFAULT_DEFINITION_ID,
    authorize: Callable[[str, OperationContext[object]], None] | None = None,
    dense: DenseChoice = True,
) -> FtsDefinition:
    """A retrieval over ``collection``: ``max_results`` passages per query (one per distinct
    content, best ``ts_rank_cd`` first), at most ``max_queries`` accepted queries per request;
    ``dense`` as for `search_index` (hybrid where the collection holds the model's vectors).

    Run it with ``run_retrieval``; ``authorize(query, context)`` may raise to refuse a query.

    >>> import os, tempfile, pathlib
    >>> from thrift_fp.retrieval import RetrievalState, run_retrieval
    >>> from thrift_fp.sources.postgres import index_paths, open_database
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (root / "a.md").write_text("Shedding drops the lowest score first.")
    >>> with open_database(os.environ["THRIFT_FP_TEST_PG_URL"], create=True).unwrap() as db:
    ...     _ = index_paths(db, [root / "a.md"], collection=str(root)).unwrap()
    ...     search = postgres_definition(db, collection=str(root), max_queries=1)
    ...     first = run_retrieval(search, " Shedding? ", OperationContext(None), RetrievalState())
    ...     second = run_retrieval(search, "score", OperationContext(None), first.state)
    >>> [hit.passage_id for hit in first.result.unwrap().sources]
    ['a.md#1']
    >>> second.result.failure().message
    'retrieval \\'postgres-search\\': query budget exhausted (1 of 1 used); refused query "score"'
    """
    # Checked by search_index on each run (a bad tier fails the run as a value); a tuple, not a
    # set, so an unhashable element cannot raise here.
    allowed = as_strings(tiers)

    return store_definition(
        lambda query: search_index(
            database, query, collection=collection, limit=max_results, tiers=allowed, dense=dense
        ),
        PostgresSearchFailed,
        id=id,
        description=f"full-text (ts_rank_cd) search over collection {collection!r} in {database.url}",
        tags=("postgres", "full-text"),
        max_queries=max_queries,
        authorize=authorize,
    )
