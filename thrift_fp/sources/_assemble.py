"""``assemble``: retrieve → records → fit → render in one call, with one error value."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from returns.result import Failure, Result, Success

from thrift_fp._args import CheckedStringsArg, PathArg
from thrift_fp.records import ByteStore, RecordError, Retrievable, SpooledArtifact, size_hints
from thrift_fp.render import FitRendered, NonceMode, RandomNonce, RenderError, fit_and_render
from thrift_fp.retrieval import (
    ExecutionFailed,
    OperationContext,
    Receipt,
    RetrievalError,
    RetrievalState,
    run_retrieval,
)
from thrift_fp.sources._definition import FtsDefinition, SearchFailed, fts5_definition, hit_to_retrievable
from thrift_fp.sources._errors import NoQuery, SourceError
from thrift_fp.sources._tiers import checked_tiers
from thrift_fp.sources._search import ALL_TIERS, Hit
from thrift_fp.thrift import ThriftOptions, ThriftTrace, WorkingSet

AssembleError = SourceError | RetrievalError | RecordError | RenderError

FtsReceipt = Receipt[str, Hit, tuple[Hit, ...]]


@dataclass(frozen=True, slots=True)
class SpoolPolicy:
    """Passages of at least ``min_tokens`` tokens go into ``store`` and render as handles."""

    store: ByteStore
    min_tokens: int


@dataclass(frozen=True, slots=True)
class Decision:
    """What happened to one retrieved record: kept or shed, its body's tokens, why, and
    ``rendered``: the tokens its section (body and envelope) costs in the context, kept or shed
    (``None`` when it was never priced: a size-unknown record)."""

    record: Retrievable
    kept: bool
    tokens: int
    reason: str
    rendered: int | None


@dataclass(frozen=True, slots=True)
class Assembled:
    """The rendered context, its exact ``tokens``, the receipts (one per query), the thrift trace,
    every retrieved record's ``decisions`` (kept first, then shed), the next request state, the
    budget, ``fixed`` (the directive and block tags in ``tokens``, so that ``tokens == fixed +`` the
    kept decisions' ``rendered``) and the fitted ``working_set``: everything kept (system prompt,
    instructions, messages, memories, tools, the kept records), so what the fit dropped from the
    caller's own items shows directly.

    ``text`` renders every kept record (``working_set.retrievables``, the caller's and the
    retrieved ones alike); the rest of the working set is the caller's to lay out.
    """

    text: str
    tokens: int
    receipts: tuple[FtsReceipt, ...]
    trace: ThriftTrace
    decisions: tuple[Decision, ...]
    state: RetrievalState[Hit]
    budget: int
    fixed: int
    working_set: WorkingSet


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
    >>> assemble("shedding", database=root / "i.db", state=done.state, max_queries=1).failure().message
    'retrieval \\'fts5-search\\': query budget exhausted (1 of 1 used); refused query "shedding"'
    >>> assemble("shedding", database=root / "i.db", tiers=["internal"]).failure().message
    "trust tier 'internal' is not one of first-party, third-party-public, third-party-private"
    >>> assemble([], database=root / "i.db").failure().message
    'no query to answer: the collection of queries is empty'
    """
    queries = (query,) if isinstance(query, str) else tuple(query)
    if not queries:
        return Failure(NoQuery("the collection of queries is empty"))
    # beartype checks one element of a collection; every element is checked here.
    strays = [item for item in queries if not isinstance(item, str)]
    if strays:
        return Failure(NoQuery(f"every query must be a str, got a {type(strays[0]).__name__}"))
    questions = tuple(str(item) for item in queries)
    chosen = checked_tiers(tiers)  # one tier as a str is one tier, not its letters
    if isinstance(chosen, Failure):
        return Failure(chosen.failure())
    allowed = chosen.unwrap()
    definition = fts5_definition(
        database, max_results=max_results, max_queries=max_queries, tiers=allowed, authorize=authorize
    )
    retrieved = _retrieve(definition, questions, context, state)
    if isinstance(retrieved, Failure):
        return Failure(retrieved.failure())
    receipts, next_state = retrieved.unwrap()
    records = _records(_merged(receipts), spool)
    if isinstance(records, Failure):
        return Failure(records.failure())
    combined = dataclasses.replace(working_set, retrievables=(*working_set.retrievables, *records.unwrap()))
    fitted: Result[FitRendered, AssembleError] = fit_and_render(
        combined, context_window, None, options, nonce=nonce
    )
    return fitted.bind(lambda done: _assembled(done, records.unwrap(), receipts, next_state, options.encoding))


def _retrieve(
    definition: FtsDefinition,
    queries: tuple[str, ...],
    context: OperationContext[object],
    state: RetrievalState[Hit],
) -> Result[tuple[tuple[FtsReceipt, ...], RetrievalState[Hit]], AssembleError]:
    receipts: list[FtsReceipt] = []
    for query in queries:
        outcome = run_retrieval(definition, query, context, state)
        state = outcome.state
        if isinstance(outcome.result, Failure):
            error = outcome.result.failure()
            # A failed read carries the source's own error value; report that, not the wrapper.
            if isinstance(error, ExecutionFailed) and isinstance(error.cause, SearchFailed):
                return Failure(error.cause.error)
            return Failure(error)
        receipts.append(outcome.result.unwrap())
    return Success((tuple(receipts), state))


def _merged(receipts: tuple[FtsReceipt, ...]) -> tuple[Hit, ...]:
    best: dict[str, Hit] = {}
    for receipt in receipts:
        for hit in receipt.sources:
            seen = best.get(hit.content_hash)
            if seen is None or hit.score > seen.score:
                best[hit.content_hash] = hit
    return tuple(sorted(best.values(), key=lambda hit: (-hit.score, hit.passage_id)))


def _records(hits: tuple[Hit, ...], spool: SpoolPolicy | None) -> Result[tuple[Retrievable, ...], AssembleError]:
    records: list[Retrievable] = []
    for hit in hits:
        record: Result[Retrievable, AssembleError] = hit_to_retrievable(hit)
        if isinstance(record, Failure):
            return record
        if spool is not None and hit.tokens >= spool.min_tokens:
            record = _spooled(record.unwrap(), hit, spool.store)
            if isinstance(record, Failure):
                return record
        records.append(record.unwrap())
    return Success(tuple(records))


def _spooled(record: Retrievable, hit: Hit, store: ByteStore) -> Result[Retrievable, AssembleError]:
    # Passage ids hold '/' and '#', which are not store ids; the content hash is, and equal
    # content shares one stored value.
    byte_length, line_count = size_hints(hit.text)
    written: Result[Retrievable, AssembleError] = store.write(f"passage-{hit.content_hash}", hit.text).map(
        lambda reader: dataclasses.replace(record, content=SpooledArtifact(reader, byte_length, line_count))
    )
    return written


def _assembled(
    done: FitRendered,
    records: tuple[Retrievable, ...],
    receipts: tuple[FtsReceipt, ...],
    state: RetrievalState[Hit],
    encoding: str,
) -> Result[Assembled, AssembleError]:
    kept_ids = {getattr(item, "id", None) for item in done.working_set.retrievables}
    removed = {
        record_id: bucket.note or bucket.bucket for bucket in done.trace.buckets for record_id in bucket.ids
    }
    refilled = {record_id for step in done.trace.refilled for record_id in step.ids}
    decisions: list[Decision] = []
    for record in records:
        tokens = record.estimate_tokens(encoding)
        if isinstance(tokens, Failure):
            return Failure(tokens.failure())
        kept = record.id in kept_ids
        if kept:
            reason = "re-admitted by refill: fits what shedding left" if record.id in refilled else "within the budget"
        else:
            reason = removed.get(record.id, "shed")
        decisions.append(Decision(record, kept, tokens.unwrap().tokens, reason, done.costs.get(record.id)))
    ordered = sorted(decisions, key=lambda d: not d.kept)
    return Success(
        Assembled(
            done.text, done.tokens, receipts, done.trace, tuple(ordered), state, done.budget, done.fixed,
            done.working_set,
        )
    )
