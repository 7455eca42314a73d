"""The ``read`` tool: one passage from an earlier answer, whole with its surroundings when they
fit the budget, else its opening cut to fit. Through the lifecycle too: it counts against the
quota of calls, and the same passage at the same budget is read once per session."""

from __future__ import annotations

import dataclasses

from returns.result import Failure, Result, Success

from thrift_fp._shown import quote_untrusted
from thrift_fp.render import FitRendered
from thrift_fp.render._fit import fit_and_render
from thrift_fp.retrieval import CancellationSignal, OperationContext, RetrievalDefinition
from thrift_fp.retrieval._lifecycle import run_retrieval
from thrift_fp.serve._arguments import ReadRequest
from thrift_fp.serve._backend import Backend
from thrift_fp.serve._errors import BudgetTooSmall, ServeError, SourceFailed, UnknownPassage
from thrift_fp.serve._ledger import CallRecord, SessionLedger, grant_budget, record_call
from thrift_fp.serve._operator_log import secrets_of
from thrift_fp.serve._outcome import ToolAnswer, session_summary, smallest_text, tool_error, within_budget
from thrift_fp.serve._settings import ServeSettings
from thrift_fp.sources import FtsDefinition, Hit
from thrift_fp.sources.contract import hit_to_retrievable
from thrift_fp.thrift import ThriftOptions, WorkingSet

Step = tuple[SessionLedger, Result[ToolAnswer, ServeError]]
_CUT_NOTE = "\n[cut to fit the budget: {left} more characters; read it with a larger budget]"


def answer_read(
    ledger: SessionLedger,
    request: ReadRequest,
    backend: Backend,
    settings: ServeSettings,
    signal: CancellationSignal = CancellationSignal(),
) -> Step:
    """Answer ``read`` for the session whose ledger is ``ledger``: the next ledger, and the
    passage (enveloped, within the budget) or the tool error. When the passage fits whole, the
    passages around it in its document (``backend.surroundings``) that this session was not
    sent yet come too, nearest first, as many as fit.

    >>> import tempfile, pathlib
    >>> from thrift_fp.retrieval import RetrievalState
    >>> from thrift_fp.serve import SqliteBackend, serve_settings
    >>> from thrift_fp.sources import index_paths, search_index
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (root / "a.md").write_text("Shedding drops the lowest score first. " * 10)
    >>> _ = index_paths(root / "i.db", [root / "a.md"]).unwrap()
    >>> ledger = SessionLedger(RetrievalState(sources=search_index(root / "i.db", "shedding").unwrap()))
    >>> backend = SqliteBackend(root / "i.db")
    >>> _, whole = answer_read(ledger, ReadRequest("a.md#1", 400), backend, serve_settings().unwrap())
    >>> whole.unwrap().structured["cut"], whole.unwrap().tokens <= 400
    (False, True)
    >>> _, cut = answer_read(ledger, ReadRequest("a.md#1", 150), backend, serve_settings().unwrap())
    >>> cut.unwrap().structured["cut"], cut.unwrap().tokens <= 150
    (True, True)
    >>> print(answer_read(ledger, ReadRequest("b.md#1", 80), backend, serve_settings().unwrap())[1].failure().message)
    read: no passage "b.md#1" in this session's answers; pass an id from an earlier search answer
    """
    number = ledger.next_call
    hit = next((hit for hit in reversed(ledger.retrieval.sources) if hit.passage_id == request.passage_id), None)
    if hit is None:
        unknown = UnknownPassage(request.passage_id)
        return record_call(ledger, CallRecord(number, "read", request.passage_id, unknown.message)), Failure(unknown)
    delivery = ledger.delivered.get(hit.content_hash)
    if delivery is not None:
        note = f"Already sent in answer {delivery.answer} as {quote_untrusted(delivery.passage_id)}; not repeated."
        text, tokens = within_budget("", [note], request.budget, settings.encoding)
        if not text:
            too_small = BudgetTooSmall(
                "read", request.budget, smallest_text(within_budget("", [note], 10**9, settings.encoding)[0], settings.encoding)
            )
            return record_call(ledger, CallRecord(number, "read", request.passage_id, too_small.message)), Failure(too_small)
        call = CallRecord(number, "read", request.passage_id, "answered", (), (hit.passage_id,), tokens)
        next_ledger = record_call(ledger, call)
        return next_ledger, Success(
            ToolAnswer(text, tokens, {
                "answer": number, "id": hit.passage_id, "repeated": {"sent_as": delivery.passage_id, "answer": delivery.answer},
                "tokens": tokens, "budget": request.budget, "cut": False,
                "session": session_summary(next_ledger, settings.max_calls, settings.max_session_tokens),
            })
        )
    granted = grant_budget(ledger, request.budget, settings)
    if isinstance(granted, Failure):
        return record_call(ledger, CallRecord(number, "read", request.passage_id, granted.failure().message)), Failure(
            granted.failure()
        )
    budget = granted.unwrap()
    outcome = run_retrieval(
        _reader(hit, budget, settings.max_calls), request.passage_id, OperationContext(None, signal=signal), ledger.retrieval
    )
    if isinstance(outcome.result, Failure):
        error = tool_error("read", request.passage_id, outcome.result.failure(), ledger, settings.max_calls, secrets_of(backend))
        return record_call(ledger, CallRecord(number, "read", request.passage_id, error.message), retrieval=outcome.state), (
            Failure(error)
        )
    receipt = outcome.result.unwrap()
    fitted = _fitted(hit, budget, settings.encoding)
    if isinstance(fitted, Failure):
        return record_call(
            ledger, CallRecord(number, "read", request.passage_id, fitted.failure().message), retrieval=outcome.state
        ), Failure(fitted.failure())
    done, cut = fitted.unwrap()
    if not done.records:
        # Not even its first character fits with the directive: an error naming the budget that
        # would carry it (nothing kept, so the same read may come again with that budget).
        opening = _fit(hit, hit.text[:1] + _CUT_NOTE.format(left=len(hit.text) - 1), 10**9, settings.encoding)
        smallest = opening.unwrap().tokens if not isinstance(opening, Failure) else 10**9
        too_small = BudgetTooSmall("read", budget, smallest)
        return record_call(ledger, CallRecord(number, "read", request.passage_id, too_small.message)), Failure(too_small)
    around: tuple[Hit, ...] = ()
    if done.records and not cut:
        widened = _with_surroundings(hit, backend.surroundings(hit), ledger, budget, settings.encoding)
        if widened is not None:
            done, around = widened
    text, tokens = within_budget(done.text, [], budget, settings.encoding)
    # A cut passage was not received whole: it stays readable (and searchable) in full later.
    sent = [(item.content_hash, item.passage_id) for item in (hit, *around)] if done.records and not cut else []
    call = CallRecord(
        number, "read", request.passage_id, "answered",
        (hit.passage_id, *(item.passage_id for item in around)) if done.records else (), (), tokens, receipt.key, receipt,
    )
    next_ledger = record_call(ledger, call, sent, retrieval=outcome.state)
    return next_ledger, Success(
        ToolAnswer(text, tokens, {
            "answer": number, "receipt": receipt.sequence, "id": hit.passage_id, "source": hit.source,
            "trust_tier": hit.trust_tier, "tokens": tokens, "budget": budget, "cut": cut,
            "surroundings": [item.passage_id for item in around],
            "session": session_summary(next_ledger, settings.max_calls, settings.max_session_tokens),
        })
    )


def _with_surroundings(
    hit: Hit, around: tuple[tuple[int, Hit], ...], ledger: SessionLedger, budget: int, encoding: str
) -> tuple[FitRendered, tuple[Hit, ...]] | None:
    # The passage scores 1 and a neighbour less the farther it is, so shedding drops the farthest
    # first and never the passage before them; the corpus keeps document order.
    fresh = [
        (distance, item) for distance, item in around
        if item.content_hash not in ledger.delivered and item.content_hash != hit.content_hash
    ]
    if not fresh:
        return None
    ordered = sorted([(0, dataclasses.replace(hit, score=1.0)), *(
        (distance, dataclasses.replace(item, score=0.5 / abs(distance))) for distance, item in fresh
    )], key=lambda pair: pair[0])
    records = [hit_to_retrievable(item) for _, item in ordered]
    if any(isinstance(record, Failure) for record in records):
        return None
    fitted = fit_and_render(
        WorkingSet(retrievables=tuple(record.unwrap() for record in records)), budget, None,
        ThriftOptions(output_reserve=0, encoding=encoding, refill=True),
    )
    if isinstance(fitted, Failure):
        return None
    kept = {record.id for record in fitted.unwrap().records}
    if hit.passage_id not in kept:
        return None
    return fitted.unwrap(), tuple(item for _, item in fresh if item.passage_id in kept)


def _reader(hit: Hit, budget: int, max_calls: int) -> FtsDefinition:
    # The passage is already known (the session retrieved it); the lifecycle still rules the call:
    # its quota, its key (the passage at this budget, so a larger budget can read it again), the
    # cancellation signal, and the receipt.
    def execute(passage_id: str, context: OperationContext[object]) -> tuple[Hit, ...]:
        return (hit,)

    return RetrievalDefinition(
        id="passage-read",
        description="read one passage an earlier answer of this session retrieved",
        assert_input=lambda passage_id, context: None,
        limit=lambda context: max_calls,
        execute=execute,
        sources=lambda hits: hits,
        key=lambda passage_id: f"{passage_id} @ {budget} tokens",
    )


def _fitted(hit: Hit, budget: int, encoding: str) -> Result[tuple[FitRendered, bool], ServeError]:
    whole = _fit(hit, hit.text, budget, encoding)
    if isinstance(whole, Failure) or whole.unwrap().records:
        return whole.map(lambda done: (done, False))
    # The longest opening (cut at a character, with a note saying so) whose envelope still fits.
    low, high, best = 1, len(hit.text) - 1, whole.unwrap()
    cut = False
    while low <= high:
        middle = (low + high) // 2
        probe = _fit(hit, hit.text[:middle] + _CUT_NOTE.format(left=len(hit.text) - middle), budget, encoding)
        if isinstance(probe, Failure):
            return Failure(probe.failure())
        if probe.unwrap().records:
            best, cut, low = probe.unwrap(), True, middle + 1
        else:
            high = middle - 1
    return Success((best, cut))


def _fit(hit: Hit, text: str, budget: int, encoding: str) -> Result[FitRendered, ServeError]:
    record = hit_to_retrievable(dataclasses.replace(hit, text=text))
    if isinstance(record, Failure):
        return Failure(SourceFailed("read", record.failure().message))
    fitted = fit_and_render(
        WorkingSet(retrievables=(record.unwrap(),)), budget, None, ThriftOptions(output_reserve=0, encoding=encoding)
    )
    if isinstance(fitted, Failure):
        return Failure(SourceFailed("read", fitted.failure().message))
    return Success(fitted.unwrap())
