"""``assemble``: retrieve → records → fit → render in one call, with one error value (SQLite).

The lifecycle itself is source-agnostic (`thrift_fp.sources.contract.answer`); this is the SQLite
source's use of it, over `fts5_definition`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from returns.result import Failure, Result

from thrift_fp._args import CheckedStringsArg, PathArg
from thrift_fp.render import NonceMode, RandomNonce
from thrift_fp.retrieval import OperationContext, RetrievalState
from thrift_fp.sources.contract import (
    ALL_TIERS,
    AssembleError,
    Assembled,
    Decision,
    FtsReceipt,
    Hit,
    SpoolPolicy,
    answer,
)
from thrift_fp.sources.dense import DenseChoice
from thrift_fp.sources.sqlite._definition import SearchFailed, fts5_definition
from thrift_fp.sources.sqlite._search import search_ranking
from thrift_fp.thrift import ThriftOptions, WorkingSet

__all__ = ["AssembleError", "Assembled", "Decision", "FtsReceipt", "SpoolPolicy", "assemble"]


def assemble(
    # Iterable[object], not Iterable[str]: beartype would check one sampled item and raise, so a
    # bad item would sometimes be an exception; every item is checked below instead (a value).
    query: str | Iterable[object],
    *,
    database: PathArg,
    context_window: int = 4096,
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
) -> Result[Assembled, AssembleError]:
    """Answer ``query`` (or several) from the index: retrieve each under the lifecycle, merge the
    hits (one per distinct content), fit them into ``context_window`` with ``working_set``'s other
    items, and render the survivors in trust-tier envelopes. Unlike the library's default
    options, ``options`` here refill by default: a shed passage whose exact rendered cost still
    fits what shedding left comes back (its decision says so); pass ``ThriftOptions()`` for the
    plain fit.

    A ``str`` is one question, whatever its words; any other iterable holds one question per
    item (each a ``str``, at least one), and each is one retrieval against the quota.

    ``state`` threads the request across calls: its quota and seen keys apply here;
    ``dense`` as for `search_index`: by default hybrid where the index holds the vectors of the
    ``[dense]`` extra's installed model, lexical otherwise; ``dense=False`` asks for lexical.
    The answer's ``ranking`` says which ran, and why.
    ``authorize(query, context)`` may raise to refuse a query (see `fts5_definition`). A failure
    hands back no state, so the caller's ``state`` stays current; to see the state a failed
    read leaves (its key reserved), run `fts5_definition` with ``run_retrieval`` directly.

    >>> import tempfile, pathlib
    >>> from thrift_fp.sources import index_paths
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (root / "a.md").write_text("Shedding drops the lowest score first.")
    >>> _ = index_paths(root / "i.db", [root / "a.md"]).unwrap()
    >>> done = assemble("how does shedding work", database=root / "i.db").unwrap()
    >>> "Shedding drops the lowest score first." in done.text, done.tokens <= done.budget
    (True, True)
    >>> [(d.record.id, d.kept) for d in done.decisions], done.receipts[0].sequence
    ([('a.md#1', True)], 1)
    >>> [record.id for record in done.working_set.retrievables]   # the fitted working set
    ['a.md#1']
    >>> assemble("shedding", database=root / "i.db", dense=False).unwrap().ranking.as_json()
    {'ranking': 'lexical', 'ranking_reason': 'dense ranking is turned off'}
    >>> assemble("shedding", database=root / "i.db", state=done.state, max_queries=1).failure().message
    'retrieval \\'fts5-search\\': query budget exhausted (1 of 1 used); refused query "shedding"'
    >>> assemble("shedding", database=root / "i.db", tiers=["internal"]).failure().message
    "trust tier 'internal' is not one of first-party, third-party-public, third-party-private"
    >>> assemble([], database=root / "i.db").failure().message
    'no query to answer: the collection of queries is empty'
    """
    return answer(
        query,
        lambda allowed: fts5_definition(
            database, max_results=max_results, max_queries=max_queries, tiers=allowed, authorize=authorize,
            dense=dense,
        ),
        lambda cause: cause.error if isinstance(cause, SearchFailed) else None,
        tiers=tiers,  # checked element by element (one str is one tier) by answer
        context_window=context_window, options=options, state=state, context=context, nonce=nonce,
        spool=spool, working_set=working_set, ranking=lambda: search_ranking(database, dense),
    )
