"""A session's ledger shared by several workers (`thrift_fp.serve._ledger_postgres`).

Without a database: a call's change (`ledger_change`), through its JSON text and back, rebuilds
the ledger the call produced, whatever the hits, questions (NUL, lone surrogates) and ranks.

With one (``THRIFT_FP_TEST_PG_URL``): a state machine runs calls of one session on three
workers, each with its own cache, and interleaves them: while a call is being computed, calls
on other workers commit first (as two balancer-routed requests of one session would). Checked
after every step against a model that applies the same calls one at a time, in the order they
committed: every worker reads exactly the model's ledger, so no call was lost, none applied
twice, none spent a quota another had already spent; the quotas hold; no content went twice.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import datetime, timezone
from types import MappingProxyType

import pytest
from hypothesis import given, settings as hypothesis_settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule, run_state_machine_as_test
from returns.result import Failure

from thrift_fp.retrieval import Receipt
from thrift_fp.serve import CallRecord, ServeSettings, SessionLedger, serve_settings
from thrift_fp.serve._ledger import grant_budget, record_call, split_delivered
from thrift_fp.serve._ledger_change import apply_change, ledger_change
from thrift_fp.serve._ledger_json import change_from_json, change_to_json
from thrift_fp.sources import Hit

_AT = datetime(2026, 1, 1, tzinfo=timezone.utc)
Call = tuple[str, tuple[int, ...], int]  # question, contents retrieved, budget asked


def _hit(content: int, question: str, rank: float) -> Hit:
    return Hit(
        f"doc{content}.md#1", f"doc{content}.md", "/docs/x", "markdown", "first-party", _AT, _AT, f"hash{content}",
        7 + content, f"text {content} \x00 é", rank, 0.5, MappingProxyType({"heading_path": ["a", question[:3]]}),
    )


def run_call(call: Call, settings: ServeSettings) -> Callable[[SessionLedger], tuple[SessionLedger, int]]:
    """A search-shaped call, pure in the ledger: the quota granted, the question's key reserved,
    the contents not sent yet delivered and charged; the answer is the tokens charged."""
    question, contents, asked = call

    def step(ledger: SessionLedger) -> tuple[SessionLedger, int]:
        number = ledger.next_call
        granted = grant_budget(ledger, asked, settings)
        if isinstance(granted, Failure):
            return record_call(ledger, CallRecord(number, "search", question, granted.failure().message)), 0
        hits = tuple(_hit(content, question, -1.5) for content in contents)
        fresh, repeated = split_delivered(ledger, hits)
        tokens = min(granted.unwrap(), sum(hit.tokens for hit in fresh))
        key = f"{question}#{number}"
        receipt: Receipt[str, Hit, tuple[Hit, ...]] = Receipt("synthetic", ledger.retrieval.query_count + 1, key, question, hits, hits, _AT, _AT)
        state = ledger.retrieval
        retrieval = replace(state, query_count=state.query_count + 1, seen=state.seen | {key}, sources=(*state.sources, *hits))
        record = CallRecord(
            number, "search", question, "answered", tuple(hit.passage_id for hit in fresh),
            tuple(hit.passage_id for hit, _ in repeated), tokens, key, receipt,
        )
        return record_call(ledger, record, [(hit.content_hash, hit.passage_id) for hit in fresh], retrieval), tokens

    return step


_calls = st.tuples(st.text(max_size=8), st.lists(st.integers(0, 9), max_size=4, unique=True).map(tuple), st.integers(1, 400))


@given(
    calls=st.lists(_calls, max_size=6),
    hostile=st.text(alphabet=st.characters(codec=None, min_codepoint=0, max_codepoint=0xDFFF), max_size=6),
    rank=st.floats(allow_nan=False),
    extra=st.sampled_from(["none", "appended", "one appended differs", "the result differs"]),
)
def test_a_change_through_its_json_rebuilds_the_ledger(calls: list[Call], hostile: str, rank: float, extra: str) -> None:
    # The receipt's hits are written once when they are the change's own (or its result is its
    # sources): the round trip holds with and without that sharing.
    settings = serve_settings(max_calls=5, max_session_tokens=900).unwrap()
    ledger = SessionLedger()
    for question, contents, asked in calls:
        after, _ = run_call((question + hostile, contents, asked), settings)(ledger)
        odd = _hit(99, hostile, rank)
        receipt = after.calls[-1].receipt
        if extra == "appended":
            after = replace(after, retrieval=replace(after.retrieval, sources=(*after.retrieval.sources, odd)))
        elif extra == "one appended differs" and receipt is not None and receipt.sources:
            # The state appends other hits than the receipt names, as many.
            sources = after.retrieval.sources
            after = replace(after, retrieval=replace(after.retrieval, sources=(*sources[:-1], odd)))
        elif extra == "the result differs" and receipt is not None and receipt.result:
            call = replace(after.calls[-1], receipt=replace(receipt, result=(odd, *receipt.result[1:])))
            after = replace(after, calls=(*after.calls[:-1], call))
        change = ledger_change(ledger, after)
        assert change_from_json(change_to_json(change)) == change
        assert apply_change(ledger, change_from_json(change_to_json(change))) == after
        ledger = after


class SharedSessionMachine(RuleBasedStateMachine):
    """Calls of one session on three workers, interleaved, against the serial model."""

    def __init__(self, make_worker: Callable[[], object], token: str) -> None:
        super().__init__()
        self.workers = [make_worker() for _ in range(3)]
        self.token = token
        self.settings = serve_settings(max_calls=6, max_session_tokens=600).unwrap()
        self.model = SessionLedger()
        self.charged: list[int] = []

    def _step(self, worker: int, call: Call, interleaved: list[tuple[int, Call]]) -> None:
        inner = run_call(call, self.settings)
        pending = list(interleaved)

        def racing(ledger: SessionLedger) -> tuple[SessionLedger, int]:
            # Before this call commits, the interleaved calls run to their commits on other workers.
            while pending:
                other, other_call = pending.pop(0)
                self._step(other, other_call, [])
            return inner(ledger)

        charged = self.workers[worker].session(self.token).step(racing)  # type: ignore[attr-defined]
        self.model, expected = inner(self.model)
        assert charged == expected
        self.charged.append(charged)

    @rule(worker=st.integers(0, 2), call=_calls, interleaved=st.lists(st.tuples(st.integers(0, 2), _calls), max_size=3))
    def call(self, worker: int, call: Call, interleaved: list[tuple[int, Call]]) -> None:
        self._step(worker, call, interleaved)

    @invariant()
    def every_worker_reads_the_serial_ledger(self) -> None:
        for worker in self.workers:
            assert worker.session(self.token).ledger == self.model  # type: ignore[attr-defined]

    @invariant()
    def quotas_hold_and_no_content_goes_twice(self) -> None:
        assert self.model.retrieval.query_count <= self.settings.max_calls
        assert self.model.tokens_used == sum(self.charged) <= self.settings.max_session_tokens
        sent = [passage for call in self.model.calls for passage in call.sent]
        assert len(sent) == len(set(sent))


@pytest.fixture
def sessions_database(pg_url: str) -> Iterator[object]:
    from thrift_fp.sources.postgres import open_database

    with open_database(pg_url, create=True).unwrap() as database:
        yield database


def test_interleaved_calls_on_three_workers_match_the_serial_model(sessions_database: object) -> None:
    from thrift_fp.serve._ledger_postgres import PostgresSessions, open_postgres_sessions

    open_postgres_sessions(sessions_database).unwrap()  # type: ignore[arg-type]  # a PostgresDatabase

    def machine() -> SharedSessionMachine:
        first = PostgresSessions(sessions_database)  # type: ignore[arg-type]
        return SharedSessionMachine(lambda: PostgresSessions(sessions_database), first.start())  # type: ignore[arg-type]

    # A factory, which Hypothesis accepts though its stubs ask for the class.
    run_state_machine_as_test(machine, settings=hypothesis_settings(max_examples=20, stateful_step_count=10))  # type: ignore[arg-type]
