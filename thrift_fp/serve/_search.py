"""The ``search`` tool: a question through the lifecycle, the new hits fitted and rendered.

The session's `RetrievalState` applies (quota of calls, one run per question), passages the
session was already sent are named instead of sent again, and the answer's text (notes
included) is counted afresh and is within the granted budget.
"""

from __future__ import annotations

from typing import Final

from returns.result import Failure, Result, Success

from thrift_fp._shown import quote_untrusted
from thrift_fp.records import Retrievable
from thrift_fp.render import FitRendered
from thrift_fp.render._fit import fit_and_render
from thrift_fp.retrieval import CancellationSignal, OperationContext
from thrift_fp.retrieval._lifecycle import run_retrieval
from thrift_fp.serve._arguments import SearchRequest
from thrift_fp.render._smallest import smallest_budget
from thrift_fp.serve._backend import Backend
from thrift_fp.serve._errors import BudgetTooSmall, ServeError, SourceFailed
from thrift_fp.serve._ledger import CallRecord, Delivery, SessionLedger, grant_budget, record_call, split_delivered
from thrift_fp.serve._operator_log import secrets_of
from thrift_fp.serve._outcome import (
    ToolAnswer,
    plain_note,
    session_summary,
    smallest_text,
    tool_error,
    within_budget,
)
from thrift_fp.serve._settings import ServeSettings
from thrift_fp.sources import Hit
from thrift_fp.sources.contract import hit_to_retrievable
from thrift_fp.thrift import ThriftOptions, WorkingSet

Step = tuple[SessionLedger, Result[ToolAnswer, ServeError]]
NO_MATCH: Final = "No passage matched the question."


def answer_search(
    ledger: SessionLedger,
    request: SearchRequest,
    backend: Backend,
    settings: ServeSettings,
    signal: CancellationSignal = CancellationSignal(),
) -> Step:
    """Answer ``request`` for the session whose ledger is ``ledger``: the next ledger, and the
    answer or the tool error (every call, answered or not, is in the next ledger's ``calls``).

    >>> import tempfile, pathlib
    >>> from thrift_fp.render import SAFETY_DIRECTIVE
    >>> from thrift_fp.serve import SqliteBackend, serve_settings
    >>> from thrift_fp.serve._arguments import SearchRequest
    >>> from thrift_fp.sources import index_paths
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (root / "a.md").write_text("Shedding drops the lowest score first.")
    >>> _ = index_paths(root / "i.db", [root / "a.md"]).unwrap()
    >>> backend, settings = SqliteBackend(root / "i.db"), serve_settings().unwrap()
    >>> ledger, first = answer_search(SessionLedger(), SearchRequest("shedding", 300, settings.tiers), backend, settings)
    >>> "Shedding drops the lowest score first." in first.unwrap().text, ledger.tokens_used == first.unwrap().tokens
    (True, True)
    >>> ledger, second = answer_search(ledger, SearchRequest("lowest score", 300, settings.tiers), backend, settings)
    >>> print(second.unwrap().text.removeprefix(SAFETY_DIRECTIVE))
    <BLANKLINE>
    <BLANKLINE>
    Already sent earlier in this session, not repeated: "a.md#1" (answer 1).
    """
    number = ledger.next_call
    granted = grant_budget(ledger, request.budget, settings)
    if isinstance(granted, Failure):
        return record_call(ledger, CallRecord(number, "search", request.question, granted.failure().message)), Failure(
            granted.failure()
        )
    budget = granted.unwrap()
    definition = backend.definition(request.tiers, settings.max_results, settings.max_calls)
    outcome = run_retrieval(definition, request.question, OperationContext(None, signal=signal), ledger.retrieval)
    if isinstance(outcome.result, Failure):
        error = tool_error("search", request.question, outcome.result.failure(), ledger, settings.max_calls, secrets_of(backend))
        return record_call(ledger, CallRecord(number, "search", request.question, error.message), retrieval=outcome.state), (
            Failure(error)
        )
    receipt = outcome.result.unwrap()
    fresh, repeated = split_delivered(ledger, receipt.sources)
    records = _records(fresh)
    if isinstance(records, Failure):
        error = records.failure()
        return record_call(ledger, CallRecord(number, "search", request.question, error.message), retrieval=outcome.state), (
            Failure(error)
        )
    fitted = fit_and_render(
        WorkingSet(retrievables=records.unwrap()), budget, None,
        ThriftOptions(output_reserve=0, encoding=settings.encoding, refill=True),
    )
    if isinstance(fitted, Failure):
        failed = SourceFailed("search", fitted.failure().message)
        return record_call(ledger, CallRecord(number, "search", request.question, failed.message), retrieval=outcome.state), (
            Failure(failed)
        )
    done = fitted.unwrap()
    kept = tuple(record.id for record in done.records)
    shed = tuple(record.id for record in records.unwrap() if record.id not in kept)
    notes = _notes(repeated, shed, budget) if receipt.sources else [NO_MATCH]
    if receipt.sources:
        text, tokens = within_budget(done.text, notes, budget, settings.encoding)
    else:
        text, tokens = plain_note(NO_MATCH, budget, settings.encoding)
    if (fresh and not done.records) or not text:
        # Too small for one passage (or its one note): an error naming the budget that answers,
        # and nothing kept, not even the question's key, so it may be asked again with that budget.
        smallest = (
            smallest_budget(records.unwrap(), settings.encoding) if fresh
            else smallest_text(within_budget("", notes[:1], 10**9, settings.encoding)[0] if receipt.sources else NO_MATCH, settings.encoding)
        )
        too_small = BudgetTooSmall("search", budget, smallest)
        return record_call(ledger, CallRecord(number, "search", request.question, too_small.message)), Failure(too_small)
    by_id = {hit.passage_id: hit for hit in fresh}
    call = CallRecord(
        number, "search", request.question, "answered", kept, tuple(hit.passage_id for hit, _ in repeated), tokens,
        receipt.key, receipt,
    )
    # A passage's near-duplicates (its copies) count as sent with it: a twin is never sent later.
    sent = [
        (content_hash, passage_id) for passage_id in kept
        for content_hash in (by_id[passage_id].content_hash, *(copy.content_hash for copy in by_id[passage_id].copies))
    ]
    next_ledger = record_call(ledger, call, sent, retrieval=outcome.state)
    structured: dict[str, object] = {
        "answer": number,
        "receipt": receipt.sequence,
        "question": receipt.query,
        "budget": budget,
        "tokens": tokens,
        "encoding": settings.encoding,
        **backend.ranking(),
        "passages": _passages(done, records.unwrap(), by_id, settings.encoding),
        "repeated": [
            {"id": hit.passage_id, "sent_as": delivery.passage_id, "answer": delivery.answer} for hit, delivery in repeated
        ],
        "shed": [{"id": passage_id, "reason": _reasons(done).get(passage_id, "shed")} for passage_id in shed],
        "session": session_summary(next_ledger, settings.max_calls, settings.max_session_tokens),
    }
    return next_ledger, Success(ToolAnswer(text, tokens, structured))


def _records(hits: tuple[Hit, ...]) -> Result[tuple[Retrievable, ...], ServeError]:
    records: list[Retrievable] = []
    for hit in hits:
        record = hit_to_retrievable(hit)
        if isinstance(record, Failure):
            return Failure(SourceFailed("search", record.failure().message))
        records.append(record.unwrap())
    return Success(tuple(records))


def _notes(repeated: tuple[tuple[Hit, Delivery], ...], shed: tuple[str, ...], budget: int) -> list[str]:
    # In order of use to the agent; each is added only while the whole text stays within budget.
    # Passage ids are names documents chose: each one quoted, so none can read as an instruction.
    notes: list[str] = []
    if repeated:
        named = ", ".join(f"{quote_untrusted(delivery.passage_id)} (answer {delivery.answer})" for _, delivery in repeated)
        notes.append(f"Already sent earlier in this session, not repeated: {named}.")
    if shed:
        named = ", ".join(quote_untrusted(passage_id) for passage_id in shed)
        notes.append(f"Shed to fit the {budget}-token budget: {named} (read one by id, or ask with a larger budget).")
    return notes


def _reasons(done: FitRendered) -> dict[str, str]:
    return {passage_id: bucket.note or bucket.bucket for bucket in done.trace.buckets for passage_id in bucket.ids}


def heading_path(hit: Hit) -> list[str]:
    """The headings a hit sits under, outermost first (none when its index has none).

    >>> import tempfile, pathlib
    >>> from thrift_fp.sources import index_paths, search_index
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (root / "fs.md").write_text("# fs\\n\\n## readFile\\n\\nReads a whole file.")
    >>> _ = index_paths(root / "i.db", [root / "fs.md"]).unwrap()
    >>> heading_path(search_index(root / "i.db", "reads whole file").unwrap()[0])
    ['fs', 'readFile']
    """
    path = getattr(hit, "heading_path", ())
    if isinstance(path, str):
        return [path] if path else []
    return [str(title) for title in path] if isinstance(path, tuple | list) else []


def _passages(
    done: FitRendered, records: tuple[Retrievable, ...], by_id: dict[str, Hit], encoding: str
) -> list[dict[str, object]]:
    kept = {record.id for record in done.records}
    refilled = {passage_id for step in done.trace.refilled for passage_id in step.ids}
    reasons = _reasons(done)
    rows: list[dict[str, object]] = []
    for record in records:
        hit = by_id[record.id]
        if record.id in kept:
            reason = "re-admitted by refill: fits what shedding left" if record.id in refilled else "within the budget"
        else:
            reason = reasons.get(record.id, "shed")
        rows.append(
            {
                "id": record.id,
                "source": hit.source,
                "trust_tier": hit.trust_tier,
                "score": hit.score,
                "heading_path": heading_path(hit),
                "tokens": hit.tokens,
                "rendered_tokens": done.costs.get(record.id),
                "kept": record.id in kept,
                "reason": reason,
                # Near-duplicates collapsed into this passage (a page's other renderings).
                "copies": [copy.passage_id for copy in hit.copies],
            }
        )
    return rows
