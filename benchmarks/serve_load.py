"""``thrift-fp serve`` under load: concurrent HTTP sessions of ``search`` calls on localhost.

    python -m benchmarks.serve_load [--sessions 8] [--calls 200] [--only sqlite|postgres|both]

Target: 8 sessions × 200 searches each, at once, with 0 errors (tool errors included), against
an SQLite index and a PostgreSQL database (``$THRIFT_FP_TEST_PG_URL``, or a throwaway cluster
started with ``.ci/postgres.sh`` and stopped after). Reported: latency p50/p95/p99 and
throughput of the load; then the per-call server overhead: one session's sequential calls
against the same questions answered by an in-process ``assemble`` (same budget, fresh state),
interleaved in blocks (A-B-B-A), medians and CPU time of this (client) process beside them.
On PostgreSQL the same load also runs on two server processes sharing the database (sessions
split between them), since sessions are per-process state.

Corpus: the embedded corpus (``thrift_fp/corpus``). Questions: distinct pairs of words from it,
so no session repeats a question (a repeat is refused by design and would count as an error).
The client runs on the same machine and shares its CPUs with the servers.
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import anyio
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from benchmarks._harness import Report, Row, none_of, run_and_print, seconds
from benchmarks.postgres import server as postgres_server
from tests._serve_process import announced_url, stop
from thrift_fp.sources import assemble, embedded_corpus, index_paths
from thrift_fp.thrift import ThriftOptions

BUDGET = 1024
# Words of the embedded corpus's subject matter, paired into distinct questions.
_WORDS = (
    "budget", "shedding", "envelope", "nonce", "trust", "tier", "token", "count", "fit", "window", "reserve",
    "passage", "index", "query", "receipt", "quota", "duplicate", "message", "memory", "thought", "tool",
    "image", "score", "retrieval", "render", "spool", "artifact", "handle", "encoding", "vocabulary",
    "lifecycle", "cancel", "signal", "state", "source", "snapshot", "store", "refill", "trace", "summary",
)


def questions(session: int, count: int) -> list[str]:
    """``count`` distinct questions for ``session`` (other sessions get other pairs first)."""
    pairs = list(itertools.combinations(_WORDS, 2))
    start = (session * 97) % len(pairs)
    chosen = (pairs[start:] + pairs[:start])[:count]
    return [f"how does the {first} relate to the {second}" for first, second in chosen]


@contextmanager
def serving(db: str, processes: int = 1) -> Iterator[list[str]]:
    """``processes`` servers of ``db`` on 127.0.0.1 (free ports), quotas out of the way: their URLs."""
    command = [sys.executable, "-m", "thrift_fp", "serve", "--db", db, "--http", "127.0.0.1:0",
               "--max-calls", "100000", "--max-session-tokens", "1000000000", "--budget", str(BUDGET)]
    started: list[subprocess.Popen[str]] = []
    try:
        urls = []
        for _ in range(processes):
            process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            started.append(process)
            found, said = announced_url(process)
            if found is None:
                raise RuntimeError(f"the server did not start: {said}")
            urls.append(found)
        yield urls
    finally:
        for process in started:
            stop(process, timeout=20)


async def _session(url: str, asked: Sequence[str], latencies: list[float], errors: list[str]) -> None:
    async with streamable_http_client(url) as streams, ClientSession(streams[0], streams[1]) as session:
        await session.initialize()
        for question in asked:
            started = time.perf_counter()
            try:
                result = await session.call_tool("search", {"question": question, "budget": BUDGET})
            except Exception as exc:  # noqa: BLE001 - a failed call is counted, not fatal
                errors.append(f"{type(exc).__name__}: {exc}")
                continue
            latencies.append(time.perf_counter() - started)
            if result.is_error:
                errors.append(str(result.content[0]))


def load(urls: Sequence[str], sessions: int, calls: int) -> tuple[list[float], list[str], float]:
    """``sessions`` concurrent sessions (round-robin over ``urls``) × ``calls`` searches each:
    the latencies, the errors, the wall time."""
    latencies: list[float] = []
    errors: list[str] = []

    async def everything() -> None:
        async with anyio.create_task_group() as group:
            for index in range(sessions):
                group.start_soon(_session, urls[index % len(urls)], questions(index, calls), latencies, errors)

    started = time.perf_counter()
    anyio.run(everything)
    return latencies, errors, time.perf_counter() - started


def _percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def overhead(url: str, in_process: Callable[[str], object], calls: int) -> dict[str, float]:
    """One session's call latency against ``in_process(question)`` on the same questions, in
    interleaved blocks (A-B-B-A): medians of wall time, and of this process's CPU time."""
    asked = questions(1000, calls)
    blocks = [asked[i : i + 25] for i in range(0, len(asked), 25)]
    served: list[float] = []
    local: list[float] = []
    local_cpu: list[float] = []

    async def one_block(session: ClientSession, block: Sequence[str]) -> None:
        for question in block:
            started = time.perf_counter()
            await session.call_tool("search", {"question": question, "budget": BUDGET})
            served.append(time.perf_counter() - started)

    def local_block(block: Sequence[str]) -> None:
        for question in block:
            started, cpu = time.perf_counter(), time.process_time()
            in_process(question)
            local.append(time.perf_counter() - started)
            local_cpu.append(time.process_time() - cpu)

    async def run() -> None:
        async with streamable_http_client(url) as streams, ClientSession(streams[0], streams[1]) as session:
            await session.initialize()
            for index, block in enumerate(blocks):
                if index % 2 == 0:
                    await one_block(session, block)
                    await anyio.to_thread.run_sync(local_block, block)
                else:
                    await anyio.to_thread.run_sync(local_block, block)
                    await one_block(session, block)

    anyio.run(run)
    return {
        "served median": statistics.median(served),
        "in-process median": statistics.median(local),
        "in-process cpu median": statistics.median(local_cpu),
    }


def _rows(name: str, latencies: list[float], errors: list[str], wall: float, sessions: int, calls: int) -> list[Row]:
    return [
        Row(f"{name}: errors in {sessions} sessions × {calls} searches", float(len(errors)), "0", not errors),
    ]


def _figures(name: str, latencies: list[float], errors: list[str], wall: float) -> list[tuple[str, str]]:
    if not latencies:
        return [(name, f"no call answered; errors: {errors[:3]}")]
    shown = "; first: " + errors[0][:200] if errors else ""
    return [(name, f"{len(latencies)} calls in {seconds(wall)} ({len(latencies) / wall:.0f}/s): "
                   f"p50 {seconds(_percentile(latencies, 0.5))}, p95 {seconds(_percentile(latencies, 0.95))}, "
                   f"p99 {seconds(_percentile(latencies, 0.99))}, max {seconds(max(latencies))}; "
                   f"{len(errors)} errors{shown}")]


def _overhead_figure(name: str, measured: dict[str, float]) -> tuple[str, str]:
    served, local = measured["served median"], measured["in-process median"]
    return (f"{name}: per-call overhead (1 session, sequential)",
            f"served median {seconds(served)} vs in-process assemble median {seconds(local)} "
            f"(cpu {seconds(measured['in-process cpu median'])}): +{seconds(served - local)} per call, "
            f"{served / local:.2f}×")


def run(sessions: int = 8, calls: int = 200, only: str = "both") -> Report:
    """The load workload as a report."""
    rows: list[Row] = []
    figures: list[tuple[str, str]] = []
    notes: list[str] = []
    with ExitStack() as stack:
        root = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="thrift-fp-serve-load-")))
        if only in ("sqlite", "both"):
            database = root / "corpus.db"
            index_paths(database, [embedded_corpus()]).unwrap()
            options = ThriftOptions(output_reserve=0, refill=True)
            with serving(str(database)) as urls:
                latencies, errors, wall = load(urls, sessions, calls)
                rows += _rows("sqlite", latencies, errors, wall, sessions, calls)
                figures += _figures("sqlite, 1 process", latencies, errors, wall)
                measured = overhead(urls[0], lambda q: assemble(q, database=database, context_window=BUDGET,
                                                                options=options).unwrap(), calls)
                figures.append(_overhead_figure("sqlite", measured))
        if only in ("postgres", "both"):
            from thrift_fp.sources import postgres  # noqa: PLC0415 - the postgres extra

            url = stack.enter_context(postgres_server())
            with postgres.open_database(url, create=True).unwrap() as db:
                postgres.index_paths(db, [embedded_corpus()]).unwrap()
                options = ThriftOptions(output_reserve=0, refill=True)
                with serving(url) as urls:
                    latencies, errors, wall = load(urls, sessions, calls)
                    rows += _rows("postgres", latencies, errors, wall, sessions, calls)
                    figures += _figures("postgres, 1 process", latencies, errors, wall)
                    measured = overhead(urls[0], lambda q: postgres.assemble(
                        q, database=db, context_window=BUDGET, options=options).unwrap(), calls)
                    figures.append(_overhead_figure("postgres", measured))
                with serving(url, processes=2) as urls:
                    latencies, errors, wall = load(urls, sessions, calls)
                    rows += _rows("postgres, 2 processes", latencies, errors, wall, sessions, calls)
                    figures += _figures("postgres, 2 processes (sessions split)", latencies, errors, wall)
            notes.append("PostgreSQL: a throwaway cluster (fsync off) unless THRIFT_FP_TEST_PG_URL was set")
    errors_total = sum(row.value for row in rows)
    return Report(
        workload="serve_load",
        headline=f"errors in {sessions} concurrent HTTP sessions × {calls} searches (every source)",
        **none_of(errors_total),
        inputs=(
            ("sessions × calls", f"{sessions} × {calls}, all at once, distinct questions per session"),
            ("budget", f"{BUDGET} cl100k_base tokens per answer"),
            ("corpus", "the embedded corpus"),
            ("cpus", str(os.cpu_count())),
        ),
        figures=tuple(figures),
        notes=tuple(notes),
        rows=tuple(rows),
    )


def _arguments(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.serve_load")
    parser.add_argument("--sessions", type=int, default=8)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--only", choices=("sqlite", "postgres", "both"), default="both")
    return parser.parse_args(argv)


if __name__ == "__main__":
    arguments = _arguments(sys.argv[1:])
    report = run_and_print(lambda: run(arguments.sessions, arguments.calls, arguments.only))
    sys.exit(0 if report.all_met else 1)
