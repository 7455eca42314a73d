"""The retrieval lifecycle every source's ``assemble`` shares, over the source's search.

A source supplies two things: how to build its `FtsDefinition` for the tiers asked for, and
how to recognise its own error value inside a failed read (the exception its ``execute``
raised). Everything else is the same for SQLite and PostgreSQL: checking the queries and the
tiers, running each query under the lifecycle, merging the hits (one per distinct content, and one
of each set of near-duplicates, see `collapse`),
turning them into records (spooled when large), fitting them with the caller's working set and
rendering, and explaining each record's fate (`Decision`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable

from typing import Final, TypeVar

from returns.result import Failure, Result, Success

from thrift_fp._errors import ThriftFpError
from thrift_fp._args import CheckedStringsArg
from thrift_fp._value import value
from thrift_fp.records import ByteStore, RecordError, Retrievable, SpooledArtifact
from thrift_fp.records._lines import size_hints
from thrift_fp.render import Field, FitRendered, NonceMode, RenderError
from thrift_fp.render._fit import fit_and_render
from thrift_fp.retrieval import (
    ExecutionFailed,
    OperationContext,
    Receipt,
    RetrievalError,
    RetrievalState,
)
from thrift_fp.retrieval._lifecycle import run_retrieval
from thrift_fp.sources.contract._contract import FtsDefinition, Hit, hit_to_retrievable
from thrift_fp.sources.contract._errors import NoQuery, SourceError
from thrift_fp.sources.contract._tiers import checked_tiers
from thrift_fp.sources.dense import Ranking
from thrift_fp.sources.ranking import collapse
from thrift_fp.thrift import ThriftOptions, ThriftTrace, WorkingSet

AssembleError = SourceError | RetrievalError | RecordError | RenderError
"""What `assemble` can fail with: a source, retrieval, record or render error value."""

ANSWER_FIELDS: Final[tuple[Field, ...]] = ("source", "heading", "score", "date")
"""The fields each passage of an `assemble` answer shows in its envelope (its source, heading
path, score and date), priced like its text: `thrift_fp.render.smallest_budget` takes them to
price a passage as an answer renders it."""

FtsReceipt = Receipt[str, Hit, tuple[Hit, ...]]
"""The receipt of one search through a store's definition: the question, the hits."""

# The source's own error values, as its failed reads carry them.
E = TypeVar("E", bound=ThriftFpError)


@value
class SpoolPolicy:
    """Passages of at least ``min_tokens`` tokens go into ``store`` and render as handles."""

    store: ByteStore
    min_tokens: int


@value
class Decision:
    """What happened to one retrieved record: kept or shed, its body's tokens, why, and
    ``rendered``: the tokens its section (body and envelope) costs in the context, kept or shed
    (``None`` when it was never priced: a size-unknown record)."""

    record: Retrievable
    kept: bool
    tokens: int
    reason: str
    rendered: int | None


@value
class Assembled:
    """The rendered context, its exact ``tokens``, the receipts (one per query), the thrift trace,
    every retrieved record's ``decisions`` (kept first, then shed), the next request state, the
    budget, ``fixed`` (the directive and block tags in ``tokens``, so that ``tokens == fixed +`` the
    kept decisions' ``rendered``) and the fitted ``working_set``: everything kept (system prompt,
    instructions, messages, memories, tools, the kept records), so what the fit dropped from the
    caller's own items shows directly. ``ranking`` says how the passages were ranked (hybrid,
    or lexical and why: `Ranking`).

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
    ranking: Ranking

    def _repr_html_(self) -> str:
        """The fit as one self-contained HTML page (`thrift_fp.thrift.fit_report_html`), shown inline
        by a notebook and written by ``thrift-fp ask --report FILE``: each kept passage with its
        tier, source, heading path, score and rendered cost; each shed one with its reason."""
        from thrift_fp.thrift._picture import (  # noqa: PLC0415 - loads when drawn
            fit_report_html,
            report_passages,
            report_shed,
        )

        costs = {d.record.id: d.rendered for d in self.decisions if d.rendered is not None}
        paths = {hit.passage_id: hit.heading_path for receipt in self.receipts for hit in receipt.sources}
        refilled = (key for step in self.trace.refilled for key in step.ids)
        kept = report_passages(self.working_set.retrievables, costs, paths, refilled)
        return fit_report_html(self.trace, kept, report_shed(self.trace, costs))


def answer(
    # Iterable[object], not Iterable[str]: beartype would check one sampled item and raise, so a
    # bad item would sometimes be an exception; every item is checked below instead (a value).
    query: str | Iterable[object],
    search: Callable[[tuple[str, ...]], FtsDefinition],
    read_error: Callable[[BaseException], E | None],
    *,
    tiers: CheckedStringsArg,
    context_window: int,
    options: ThriftOptions,
    state: RetrievalState[Hit],
    context: OperationContext[object],
    nonce: NonceMode,
    spool: SpoolPolicy | None,
    working_set: WorkingSet,
    ranking: Callable[[], Result[Ranking, E]],
) -> Result[Assembled, AssembleError | E]:
    """Answer ``query`` (one ``str``, or one question per item) with the definition
    ``search(tiers)`` builds: retrieve each under the lifecycle, merge, fit, render.

    ``read_error(cause)`` is the source's error value carried by the exception its ``execute``
    raised (``None`` for any other cause), so a failed read reports that value, not the wrapper.
    ``ranking()`` tells the ranking the definition's search runs, carried into the answer; it is
    asked only after the arguments are checked, so a bad argument is reported as itself, not as
    a fault of the store it would have read.

    >>> import tempfile, pathlib
    >>> from thrift_fp.render import RandomNonce
    >>> from thrift_fp.sources import fts5_definition, index_paths
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (root / "a.md").write_text("Shedding drops the lowest score first.")
    >>> _ = index_paths(root / "i.db", [root / "a.md"]).unwrap()
    >>> done = answer(
    ...     "how does shedding work", lambda tiers: fts5_definition(root / "i.db", tiers=tiers),
    ...     lambda cause: None, tiers=("first-party",), context_window=4096, options=ThriftOptions(),
    ...     state=RetrievalState(), context=OperationContext(None), nonce=RandomNonce(), spool=None,
    ...     working_set=WorkingSet(),
    ...     ranking=lambda: Success(Ranking("lexical", None, "dense ranking is turned off")),
    ... ).unwrap()
    >>> [(d.record.id, d.kept) for d in done.decisions]
    [('a.md#1', True)]
    """
    queries = (query,) if isinstance(query, str) else tuple(query)
    if not queries:
        return Failure(NoQuery("the collection of queries is empty"))
    # beartype checks one element of a collection; every element is checked here.
    strays = [item for item in queries if not isinstance(item, str)]
    if strays:
        return Failure(NoQuery(f"every query must be a str, got a {type(strays[0]).__name__}"))
    chosen = checked_tiers(tiers)  # one tier as a str is one tier, not its letters
    if isinstance(chosen, Failure):
        return Failure(chosen.failure())
    ranked = ranking()
    if isinstance(ranked, Failure):
        return Failure(ranked.failure())
    retrieved = _retrieve(search(chosen.unwrap()), tuple(str(item) for item in queries), context, state, read_error)
    if isinstance(retrieved, Failure):
        return Failure(retrieved.failure())
    receipts, next_state = retrieved.unwrap()
    records = _records(_merged(receipts), spool)
    if isinstance(records, Failure):
        return Failure(records.failure())
    combined = dataclasses.replace(working_set, retrievables=(*working_set.retrievables, *records.unwrap()))
    # Each passage shows where it comes from (its heading path), priced like every attribute.
    fitted: Result[FitRendered, AssembleError | E] = fit_and_render(
        combined, context_window, None, options, nonce=nonce, fields=ANSWER_FIELDS
    )
    return fitted.bind(lambda done: _assembled(done, records.unwrap(), receipts, next_state, options.encoding, ranked.unwrap()))


def _retrieve(
    definition: FtsDefinition,
    queries: tuple[str, ...],
    context: OperationContext[object],
    state: RetrievalState[Hit],
    read_error: Callable[[BaseException], E | None],
) -> Result[tuple[tuple[FtsReceipt, ...], RetrievalState[Hit]], AssembleError | E]:
    receipts: list[FtsReceipt] = []
    for query in queries:
        outcome = run_retrieval(definition, query, context, state)
        state = outcome.state
        if isinstance(outcome.result, Failure):
            error = outcome.result.failure()
            # A failed read carries the source's own error value; report that, not the wrapper.
            cause = error.cause if isinstance(error, ExecutionFailed) else None
            own = read_error(cause) if cause is not None else None
            return Failure(own if own is not None else error)
        receipts.append(outcome.result.unwrap())
    return Success((tuple(receipts), state))


def _merged(receipts: tuple[FtsReceipt, ...]) -> tuple[Hit, ...]:
    best: dict[str, Hit] = {}
    for receipt in receipts:
        for hit in receipt.sources:
            seen = best.get(hit.content_hash)
            if seen is None or hit.score > seen.score:
                best[hit.content_hash] = hit
    # The same text from two files (a page and its HTML twin, a copied section) is answered once.
    return collapse(sorted(best.values(), key=lambda hit: (-hit.score, hit.passage_id)), lambda hit: hit.text)


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
    ranking: Ranking,
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
            done.working_set, ranking,
        )
    )
