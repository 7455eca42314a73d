"""Sessions kept in PostgreSQL (in process): two workers (each its own store and pool) serve one
session between them as one process would, a call that dies before committing leaves nothing,
a request sent again gets its kept answer, and concurrent calls never spend a quota twice."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from returns.result import Result, Success

from tests._serve_harness import DOCUMENTS
from thrift_fp.serve import SearchRequest, ServeError, SessionLedger, ToolAnswer, answer_search, serve_settings
from thrift_fp.serve._receipts import receipts_json
from thrift_fp.serve._ledger_postgres import PostgresSessions, open_postgres_sessions
from thrift_fp.serve._postgres import PostgresBackend, open_postgres_backend
from thrift_fp.serve._session_store import Replay
from thrift_fp.serve._sessions import Session
from thrift_fp.sources import postgres

QUESTIONS = ("shedding budget", "envelopes nonce", "quotas tokens", "receipts sources", "handles spooled", "walker folders")


@pytest.fixture
def workers(pg_url: str, tmp_path: Path) -> Iterator[tuple[PostgresBackend, PostgresSessions, PostgresSessions]]:
    for name, text in DOCUMENTS.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    with postgres.open_database(pg_url, create=True).unwrap() as database:
        postgres.index_paths(database, [tmp_path]).unwrap()
    backend = open_postgres_backend(pg_url).unwrap()
    other = postgres.open_database(pg_url).unwrap()
    yield backend, open_postgres_sessions(backend.database).unwrap(), open_postgres_sessions(other).unwrap()
    other.close()
    backend.database.close()


Call = Callable[[SessionLedger], tuple[SessionLedger, Result[ToolAnswer, ServeError]]]


def _search(backend: PostgresBackend, question: str, budget: int = 300, max_calls: int = 64) -> Call:
    settings = serve_settings(max_calls=max_calls).unwrap()

    def call(ledger: SessionLedger) -> tuple[SessionLedger, Result[ToolAnswer, ServeError]]:
        return answer_search(ledger, SearchRequest(question, budget, settings.tiers), backend, settings)

    return call


def test_two_workers_serve_one_session_as_one_process_would(
    workers: tuple[PostgresBackend, PostgresSessions, PostgresSessions],
) -> None:
    backend, first, second = workers
    token = first.start()
    alone = Session()
    for number, question in enumerate(QUESTIONS):
        worker = (first, second)[number % 2]
        shared = worker.session(f"http:{token}").step(_search(backend, question))
        local = alone.step(_search(backend, question))
        assert shared.map(lambda answer: answer.text.count("<")) == local.map(lambda answer: answer.text.count("<"))
    settings = serve_settings().unwrap()
    for worker in (first, second):
        ledger = worker.session(f"http:{token}").ledger
        assert ledger.tokens_used == alone.ledger.tokens_used > 0
        assert dict(ledger.delivered) == dict(alone.ledger.delivered)
        assert ledger.retrieval.seen == alone.ledger.retrieval.seen
        assert ledger.retrieval.sources == alone.ledger.retrieval.sources
        # Receipts read back whole: every call, its hits and its timestamps.
        shown, expected = receipts_json(ledger, settings)["calls"], receipts_json(alone.ledger, settings)["calls"]
        assert isinstance(shown, list) and isinstance(expected, list)
        assert [call["sent"] for call in shown] == [call["sent"] for call in expected]
        assert [call["tool"] for call in shown] == ["search"] * len(QUESTIONS)


def test_a_call_that_dies_before_its_commit_leaves_nothing(
    workers: tuple[PostgresBackend, PostgresSessions, PostgresSessions],
) -> None:
    backend, first, second = workers
    token = first.start()

    def killed(ledger: SessionLedger) -> tuple[SessionLedger, Result[ToolAnswer, ServeError]]:
        _search(backend, "shedding budget")(ledger)
        raise SystemExit("the worker dies here, before its change is written")

    with pytest.raises(SystemExit):
        first.session(token).step(killed)
    assert second.session(token).ledger == SessionLedger()
    answered = second.session(token).step(_search(backend, "shedding budget"))
    assert answered.unwrap().structured["session"]["calls_used"] == 1  # type: ignore[index]


def test_a_request_sent_again_gets_its_kept_answer_and_one_charge(
    workers: tuple[PostgresBackend, PostgresSessions, PostgresSessions],
) -> None:
    backend, first, second = workers
    token = first.start()
    replay: Replay[str] = Replay("7:abc", lambda text: text, lambda text: text)

    def answered(ledger: SessionLedger) -> tuple[SessionLedger, str]:
        after, result = _search(backend, "envelopes nonce")(ledger)
        return after, result.unwrap().text

    text = first.session(token).step(answered, replay)
    assert second.session(token).step(answered, replay) == text
    ledger = first.session(token).ledger
    assert len(ledger.calls) == 1 and ledger.tokens_used == ledger.calls[0].tokens > 0


def test_concurrent_calls_on_two_workers_never_spend_the_quota_twice(
    workers: tuple[PostgresBackend, PostgresSessions, PostgresSessions],
) -> None:
    backend, first, second = workers
    token = first.start()
    questions = [f"{word} {other}" for word in ("shedding", "budget", "envelopes", "quotas") for other in ("tokens", "nonce", "sources")]
    answers: list[Result[ToolAnswer, ServeError]] = []
    lock = threading.Lock()
    gate = threading.Barrier(len(questions))

    def run(number: int) -> None:
        gate.wait()
        worker = (first, second)[number % 2]
        done = worker.session(token).step(_search(backend, questions[number], 200, max_calls=5))
        with lock:
            answers.append(done)

    threads = [threading.Thread(target=run, args=(number,)) for number in range(len(questions))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    ledger = second.session(token).ledger
    answered = [done.unwrap() for done in answers if isinstance(done, Success)]
    assert len(answers) == len(questions) and len(ledger.calls) == len(questions)
    assert ledger.retrieval.query_count == 5 == sum(1 for call in ledger.calls if call.receipt is not None)
    assert ledger.tokens_used == sum(answer.tokens for answer in answered) == sum(call.tokens for call in ledger.calls)
    sent = [passage for call in ledger.calls for passage in call.sent]
    assert len(sent) == len(set(sent))
    assert sorted(call.number for call in ledger.calls) == list(range(1, len(questions) + 1))
