"""Sessions any worker can serve: ``thrift-fp serve --http`` workers on one PostgreSQL database
behind a plain round-robin balancer, one worker killed with SIGKILL mid-run and restarted.

    python -m benchmarks.serve_shared [--workers 3] [--sessions 16] [--calls 100] [--max-calls 80]

Each session is a client thread making ``calls`` searches (distinct questions) one after the
other; each request goes to the next worker in turn, whatever its session (no routing by
``Mcp-Session-Id``). A request whose worker is gone (refused or cut connection) goes to the next
one as it was, same JSON-RPC id, as a balancer retrying upstream would. The quota of calls is
below the calls made, so every session crosses it during the run.

Two runs on fresh sessions: undisturbed, then with worker 2 killed (SIGKILL) once 30% of the
calls are done and restarted on its port once 55% are. Checked from the database and from what
the clients received: every call is in its session's ledger exactly once (no lost, no duplicated
charge), the tokens the clients were answered sum to each ledger's tokens, each session answered
exactly its quota, and no passage reached a client twice in one session.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from benchmarks._harness import Report, Row, none_of, run_and_print, seconds
from benchmarks.postgres import server as postgres_server
from tests._serve_process import announced_url, stop
from benchmarks.serve_load import questions
from thrift_fp.sources import embedded_corpus

BUDGET = 400
_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
            "Mcp-Protocol-Version": "2025-11-25"}


class Workers:
    """``serve --http`` processes of one database, each restartable on its own port."""

    def __init__(self, url: str, count: int, max_calls: int) -> None:
        self._command = [sys.executable, "-m", "thrift_fp", "serve", "--db", url, "--budget", str(BUDGET),
                         "--max-calls", str(max_calls), "--max-session-tokens", "100000000"]
        self.processes: list[subprocess.Popen[str]] = []
        self.urls: list[str] = []
        for _ in range(count):
            process, found = self._start("127.0.0.1:0")
            self.processes.append(process)
            self.urls.append(found)

    def _start(self, address: str) -> tuple[subprocess.Popen[str], str]:
        process = subprocess.Popen([*self._command, "--http", address], stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE, text=True)
        assert process.stderr is not None
        # The command says what it serves, then where it listens (the test worker only the latter).
        found, said = announced_url(process)
        if found is None:
            raise RuntimeError(f"the server did not start: {said}{process.stderr.read()}")
        # Drained, so a chatty worker never blocks on a full pipe.
        threading.Thread(target=process.stderr.read, daemon=True).start()
        return process, found

    def kill(self, slot: int) -> None:
        self.processes[slot].send_signal(signal.SIGKILL)
        self.processes[slot].wait()

    def restart(self, slot: int) -> None:
        address = self.urls[slot].removeprefix("http://").removesuffix("/mcp")
        self.processes[slot], self.urls[slot] = self._start(address)

    def stop(self) -> None:
        for process in self.processes:
            stop(process, timeout=20)


@dataclass
class Balancer:
    """Round robin over the workers; a request its worker dropped goes to the next one."""

    urls: list[str]
    turn: Iterator[int] = field(default_factory=itertools.count)
    lock: threading.Lock = field(default_factory=threading.Lock)
    retries: int = 0
    # Requests whose connection was cut while in flight (not refused): they may have been answered.
    cut: set[tuple[str, str]] = field(default_factory=set)

    def post(self, client: httpx.Client, message: dict[str, Any], session: str | None) -> httpx.Response:
        headers = dict(_HEADERS) | ({"Mcp-Session-Id": session} if session else {})
        for _ in range(50):
            with self.lock:
                url = self.urls[next(self.turn) % len(self.urls)]
            try:
                return client.post(url, json=message, headers=headers, timeout=60)
            except httpx.TransportError as exc:
                with self.lock:
                    self.retries += 1
                    if session and "id" in message and not isinstance(exc, httpx.ConnectError):
                        self.cut.add((session, str(message["id"])))
                time.sleep(0.05)
        raise RuntimeError("no worker answered 50 attempts")


def _message(response: httpx.Response) -> Any:
    lines = [line[len("data: "):] for line in response.text.splitlines() if line.startswith("data: ")]
    return json.loads(lines[-1]) if lines else response.json()


@dataclass
class SessionRun:
    """What one client saw: its session id, each call's latency, and the answers it received."""

    token: str = ""
    latencies: list[float] = field(default_factory=list)
    answers: list[dict[str, Any]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def _client(balancer: Balancer, number: int, calls: int, done: list[int], lock: threading.Lock) -> SessionRun:
    seen = SessionRun()
    with httpx.Client() as client:
        opened = balancer.post(client, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}}, None)
        seen.token = opened.headers["mcp-session-id"]
        balancer.post(client, {"jsonrpc": "2.0", "method": "notifications/initialized"}, seen.token)
        for index, question in enumerate(questions(number, calls), start=1):
            started = time.perf_counter()
            response = balancer.post(client, {"jsonrpc": "2.0", "id": index, "method": "tools/call", "params": {
                "name": "search", "arguments": {"question": question, "budget": BUDGET}}}, seen.token)
            seen.latencies.append(time.perf_counter() - started)
            result = _message(response).get("result")
            if not isinstance(result, dict):
                seen.errors.append(response.text[:200])
            elif result.get("isError"):
                seen.errors.append(result["content"][0]["text"])
            else:
                seen.answers.append(result["structuredContent"])
            with lock:
                done[0] += 1
    return seen


@dataclass(frozen=True)
class Outcome:
    """One run's figures and its integrity counts."""

    latencies: list[float]
    wall: float
    retries: int
    lost: int
    duplicated: int
    resent: int
    quota_off: int
    errors: list[str]
    row_bytes: tuple[float, int, float]
    cut: int
    replayed: int


def load(url: str, workers: int, sessions: int, calls: int, max_calls: int, kill: bool) -> Outcome:
    """One run: ``sessions`` clients at once over ``workers`` fresh workers, checked after."""
    from thrift_fp.serve._ledger_postgres import PostgresSessions, open_postgres_sessions  # noqa: PLC0415
    from thrift_fp.sources.postgres import open_database  # noqa: PLC0415

    started_workers = Workers(url, workers, max_calls)
    balancer = Balancer(started_workers.urls)
    done, lock = [0], threading.Lock()
    runs: list[SessionRun] = [SessionRun() for _ in range(sessions)]

    def client(number: int) -> None:
        runs[number] = _client(balancer, number, calls, done, lock)

    total = sessions * calls
    killed_at = None
    try:
        threads = [threading.Thread(target=client, args=(number,)) for number in range(sessions)]
        began = time.perf_counter()
        for thread in threads:
            thread.start()
        if kill:
            victim = min(1, workers - 1)
            while done[0] < 0.30 * total:
                time.sleep(0.01)
            started_workers.kill(victim)
            with open_database(url).unwrap() as clock, clock.pool.connection() as connection:
                killed_at = (connection.execute("SELECT now()").fetchone() or (None,))[0]
            while done[0] < 0.55 * total:
                time.sleep(0.01)
            started_workers.restart(victim)
        for thread in threads:
            thread.join()
        wall = time.perf_counter() - began
    finally:
        started_workers.stop()
    lost = duplicated = resent = quota_off = 0
    errors = [error for run in runs for error in run.errors if "quota exhausted" not in error]
    with open_database(url).unwrap() as database:
        store: PostgresSessions = open_postgres_sessions(database).unwrap()
        for run in runs:
            with database.pool.connection() as connection:
                rows, requests = connection.execute(
                    "SELECT count(*), count(DISTINCT request) FROM thrift_fp_session_changes WHERE session = %s",
                    (run.token,),
                ).fetchone() or (0, 0)
            ledger = store.session(run.token).ledger
            # Each of the client's calls is one ledger row, one call record: more is a duplicate, fewer a loss.
            duplicated += max(0, rows - calls) + max(0, rows - requests)
            lost += max(0, calls - rows) + max(0, calls - len(ledger.calls))
            by_number = {call.number: call for call in ledger.calls}
            for answer in run.answers:
                recorded = by_number.get(answer["answer"])
                if recorded is None or recorded.tokens != answer["tokens"]:
                    lost += 1
            if ledger.tokens_used != sum(answer["tokens"] for answer in run.answers):
                lost += 1
            received = [row["id"] for answer in run.answers for row in answer["passages"] if row["kept"]]
            resent += len(received) - len(set(received))
            quota_off += abs(len(run.answers) - min(calls, max_calls)) + abs(ledger.retrieval.query_count - min(calls, max_calls))
        with database.pool.connection() as connection:
            sizes = connection.execute(
                "SELECT avg(octet_length(change) + coalesce(octet_length(answer), 0)), max(octet_length(change)"
                " + coalesce(octet_length(answer), 0)), sum(octet_length(change) + coalesce(octet_length(answer), 0))"
                " / count(DISTINCT session) FROM thrift_fp_session_changes WHERE session = ANY(%s)",
                ([run.token for run in runs],),
            ).fetchone() or (0, 0, 0)
            # Cut requests whose row was written before the kill: the dead worker answered them,
            # and the retry got the kept answer.
            replayed = sum(
                1 for session, request in balancer.cut
                if killed_at is not None and connection.execute(
                    "SELECT 1 FROM thrift_fp_session_changes WHERE session = %s AND split_part(request, ':', 1) = %s"
                    " AND committed_at < %s", (session, request, killed_at),
                ).fetchone() is not None
            )
    return Outcome([lat for run in runs for lat in run.latencies], wall, balancer.retries, lost, duplicated, resent,
                   quota_off, errors, (float(sizes[0] or 0), int(sizes[1] or 0), float(sizes[2] or 0)),
                   len(balancer.cut), replayed)


def _percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


@contextmanager
def _schema(base: str) -> Iterator[str]:
    # A schema of its own in the server (dropped after), so a shared test server stays clean.
    import secrets  # noqa: PLC0415
    from urllib.parse import quote  # noqa: PLC0415

    import psycopg  # noqa: PLC0415

    name = f"bench_{secrets.token_hex(4)}"
    with psycopg.connect(base, autocommit=True) as admin:
        admin.execute(f"CREATE SCHEMA {name}")
    try:
        yield f"{base}{'&' if '?' in base else '?'}options={quote(f'-csearch_path={name}', safe='')}"
    finally:
        with psycopg.connect(base, autocommit=True) as admin:
            admin.execute(f"DROP SCHEMA {name} CASCADE")


def run(workers: int = 3, sessions: int = 16, calls: int = 100, max_calls: int = 80) -> Report:
    """The workload as a report."""
    from thrift_fp.sources import postgres  # noqa: PLC0415 - the postgres extra

    figures: list[tuple[str, str]] = []
    rows: list[Row] = []
    cpu = time.process_time()
    with ExitStack() as stack:
        base = stack.enter_context(postgres_server())
        url = stack.enter_context(_schema(base))
        with postgres.open_database(url, create=True).unwrap() as db:
            postgres.index_paths(db, [embedded_corpus()]).unwrap()
        for name, kill in (("undisturbed", False), ("worker 2 SIGKILLed at 30%, restarted at 55%", True)):
            outcome = load(url, workers, sessions, calls, max_calls, kill)
            lat = outcome.latencies
            figures.append((name, (
                f"{len(lat)} calls in {seconds(outcome.wall)} ({len(lat) / outcome.wall:.0f}/s): p50 "
                f"{seconds(_percentile(lat, 0.5))}, p95 {seconds(_percentile(lat, 0.95))}, p99 "
                f"{seconds(_percentile(lat, 0.99))}, max {seconds(max(lat))}, median {seconds(statistics.median(lat))}; "
                f"requests re-sent to another worker {outcome.retries} ({outcome.cut} cut in flight by the kill, "
                f"{outcome.replayed} of them answered from the kept row); other errors {len(outcome.errors)}"
                + (f" (first: {outcome.errors[0][:160]})" if outcome.errors else "")
                + f"; ledger rows: mean {outcome.row_bytes[0] / 1000:.1f} kB, max {outcome.row_bytes[1] / 1000:.1f} kB,"
                f" {outcome.row_bytes[2] / 1e6:.2f} MB per session"
            )))
            for label, value in (("lost charges", outcome.lost), ("duplicated charges", outcome.duplicated),
                                 ("passages re-sent", outcome.resent), ("sessions off their quota", outcome.quota_off),
                                 ("errors other than the quota", len(outcome.errors))):
                rows.append(Row(f"{name}: {label}", **none_of(float(value))))
    failures = sum(row.value for row in rows)
    return Report(
        workload="serve_shared",
        headline=f"lost + duplicated charges + passages re-sent, {workers} workers × {sessions} sessions × {calls} calls",
        **none_of(failures),
        inputs=(
            ("workers", f"{workers} `serve --http` processes on one database, round-robin per request"),
            ("sessions × calls", f"{sessions} × {calls} searches, all at once; quota {max_calls} calls per session"),
            ("budget", f"{BUDGET} cl100k_base tokens per answer"),
            ("corpus", "the embedded corpus"),
            ("cpus", str(os.cpu_count())),
        ),
        figures=(*figures, ("benchmark process cpu", seconds(time.process_time() - cpu))),
        notes=("PostgreSQL: a throwaway cluster (fsync off) unless THRIFT_FP_TEST_PG_URL was set, in a schema of its own",),
        rows=tuple(rows),
    )


def _arguments(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.serve_shared")
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--sessions", type=int, default=16)
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--max-calls", type=int, default=80)
    return parser.parse_args(argv)


if __name__ == "__main__":
    arguments = _arguments(sys.argv[1:])
    report = run_and_print(lambda: run(arguments.workers, arguments.sessions, arguments.calls, arguments.max_calls))
    sys.exit(0 if report.all_met else 1)
