"""The PostgreSQL full-text source: the SQLite source's contract, for many workers on many machines.

Needs the ``postgres`` extra (``pip install 'thrift_fp[postgres]'``: psycopg 3 and psycopg_pool);
``import thrift_fp`` never imports it. Open a database once per process with `open_database`
(a thread-safe connection pool), then `index_paths`, `search_index`, `postgres_definition`
(the retrieval lifecycle) and `assemble` work as their SQLite namesakes, plus a
``collection`` (several corpora in one database) and a caller-chosen text search
configuration. Every failure is an error value whose message never shows a password.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Final

from returns.result import Failure, Result

from thrift_fp.render import NonceMode, RandomNonce
from thrift_fp.retrieval import OperationContext, RetrievalState
from thrift_fp._args import CheckedStringsArg, as_strings
from thrift_fp.sources._answer import Assembled, SpoolPolicy, answer
from thrift_fp.sources._contract import (
    ALL_TIERS,
    FtsDefinition,
    Hit,
    StoreSearchFailed,
    require_searchable,
    store_definition,
)
from thrift_fp.sources._postgres_errors import (
    AuthenticationFailed,
    CollectionMissing,
    ConnectionLost,
    DatabaseNotFound,
    DatabaseUnreachable,
    IndexInterrupted,
    InvalidDatabaseUrl,
    PostgresAssembleError,
    PostgresError,
    PostgresExtraMissing,
    PostgresQueryFailed,
    PostgresSourceError,
    SchemaMissing,
    SchemaVersionMismatch,
    UnknownTextSearchConfig,
    is_database_url,
    redact,
)
from thrift_fp.sources.postgres._index import (
    DEFAULT_BATCH_FILES,
    DEFAULT_COLLECTION,
    DEFAULT_TEXT_SEARCH_CONFIG,
    PostgresIndexReport,
    index_paths,
)
from thrift_fp.sources.dense._hybrid import DenseChoice
from thrift_fp.sources.postgres._search import rank_to_score, search_index, search_ranking, search_terms
from thrift_fp.sources.postgres._store import SCHEMA_VERSION, PostgresDatabase, open_database
from thrift_fp.thrift import ThriftOptions, WorkingSet

__all__ = [
    "DEFAULT_BATCH_FILES",
    "DEFAULT_COLLECTION",
    "DEFAULT_TEXT_SEARCH_CONFIG",
    "SCHEMA_VERSION",
    "AuthenticationFailed",
    "CollectionMissing",
    "ConnectionLost",
    "DatabaseNotFound",
    "DatabaseUnreachable",
    "IndexInterrupted",
    "InvalidDatabaseUrl",
    "PostgresAssembleError",
    "PostgresDatabase",
    "PostgresError",
    "PostgresExtraMissing",
    "PostgresIndexReport",
    "PostgresQueryFailed",
    "PostgresSearchFailed",
    "PostgresSourceError",
    "SchemaMissing",
    "SchemaVersionMismatch",
    "UnknownTextSearchConfig",
    "assemble",
    "index_paths",
    "is_database_url",
    "open_database",
    "postgres_definition",
    "rank_to_score",
    "redact",
    "require_terms",
    "search_index",
    "search_ranking",
    "search_terms",
]

DEFAULT_DEFINITION_ID: Final = "postgres-search"


class PostgresSearchFailed(StoreSearchFailed[PostgresSourceError]):
    """Raised inside ``execute`` (the lifecycle's way to fail a read); carries the error value.

    >>> PostgresSearchFailed(SchemaMissing("postgresql:///docs")).error.url
    'postgresql:///docs'
    """


def require_terms(query: str, context: OperationContext[object]) -> None:
    """Reject a query with nothing to search for (the lifecycle turns this into ``InvalidQuery``):
    the same words as the SQLite source's `thrift_fp.sources.require_searchable` (`search_terms`).

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


def assemble(
    # Iterable[object], not Sequence[str], as in the SQLite assemble: beartype would check one
    # sampled item and raise, so a bad item would sometimes be an exception; `answer` checks
    # every item and returns NoQuery instead (a value, every time).
    query: str | Iterable[object],
    *,
    database: PostgresDatabase,
    collection: str = DEFAULT_COLLECTION,
    context_window: int = 4096,
    # Refill by default, as the SQLite assemble does: a shed passage that still fits comes back.
    options: ThriftOptions = ThriftOptions(refill=True),
    max_results: int = 8,
    max_queries: int = 4,
    tiers: CheckedStringsArg = ALL_TIERS,
    state: RetrievalState[Hit] = RetrievalState(),
    context: OperationContext[object] = OperationContext(None),
    nonce: NonceMode = RandomNonce(),
    spool: SpoolPolicy | None = None,
    working_set: WorkingSet = WorkingSet(),
    authorize: Callable[[str, OperationContext[object]], None] | None = None,
    dense: DenseChoice = True,
) -> Result[Assembled, PostgresAssembleError]:
    """Answer ``query`` (or several) from ``collection``, as the SQLite ``assemble`` does from its
    index: retrieve under the lifecycle, merge, fit into ``context_window``, render.

    >>> import os, tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (root / "a.md").write_text("Shedding drops the lowest score first.")
    >>> with open_database(os.environ["THRIFT_FP_TEST_PG_URL"], create=True).unwrap() as db:
    ...     _ = index_paths(db, [root / "a.md"], collection=str(root)).unwrap()
    ...     done = assemble("how does shedding work", database=db, collection=str(root)).unwrap()
    >>> "Shedding drops the lowest score first." in done.text, done.tokens <= done.budget
    (True, True)
    """
    ranking = search_ranking(database, collection=collection, dense=dense)
    if isinstance(ranking, Failure):
        return Failure(ranking.failure())
    return answer(
        query,
        lambda allowed: postgres_definition(
            database, collection=collection, max_results=max_results, max_queries=max_queries, tiers=allowed,
            authorize=authorize, dense=dense,
        ),
        lambda cause: cause.error if isinstance(cause, PostgresSearchFailed) else None,
        tiers=tiers,  # checked element by element (one str is one tier) by answer
        context_window=context_window, options=options, state=state, context=context, nonce=nonce,
        spool=spool, working_set=working_set, ranking=ranking.unwrap(),
    )
