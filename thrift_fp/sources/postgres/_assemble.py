"""``assemble`` over PostgreSQL: retrieve → records → fit → render in one call (the SQLite store's namesake).

The lifecycle itself is the shared floor's (`thrift_fp.sources.contract.answer`); this is the
PostgreSQL store's use of it, over `postgres_definition`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from returns.result import Failure, Result

from thrift_fp._args import CheckedStringsArg
from thrift_fp.render import NonceMode, RandomNonce
from thrift_fp.retrieval import OperationContext, RetrievalState
from thrift_fp.sources.contract import ALL_TIERS, Assembled, Hit, SpoolPolicy, answer
from thrift_fp.sources.dense import DenseChoice
from thrift_fp.sources.postgres._definition import PostgresSearchFailed, postgres_definition
from thrift_fp.sources.postgres._errors import PostgresAssembleError
from thrift_fp.sources.postgres._store import DEFAULT_COLLECTION
from thrift_fp.sources.postgres._search import search_ranking
from thrift_fp.sources.postgres._store import PostgresDatabase
from thrift_fp.thrift import ThriftOptions, WorkingSet


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
    >>> from thrift_fp.sources.postgres import index_paths, open_database
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (root / "a.md").write_text("Shedding drops the lowest score first.")
    >>> with open_database(os.environ["THRIFT_FP_TEST_PG_URL"], create=True).unwrap() as db:
    ...     _ = index_paths(db, [root / "a.md"], collection=str(root)).unwrap()
    ...     done = assemble("how does shedding work", database=db, collection=str(root)).unwrap()
    >>> "Shedding drops the lowest score first." in done.text, done.tokens <= done.budget
    (True, True)
    """
    return answer(
        query,
        lambda allowed: postgres_definition(
            database, collection=collection, max_results=max_results, max_queries=max_queries, tiers=allowed,
            authorize=authorize, dense=dense,
        ),
        lambda cause: cause.error if isinstance(cause, PostgresSearchFailed) else None,
        tiers=tiers,  # checked element by element (one str is one tier) by answer
        context_window=context_window, options=options, state=state, context=context, nonce=nonce,
        spool=spool, working_set=working_set, ranking=lambda: search_ranking(database, collection=collection, dense=dense),
    )
