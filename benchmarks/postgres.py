"""The PostgreSQL source beside the SQLite source: indexing throughput and an ``ask`` load test.

1. Index: the same generated corpus (JSONL files, one passage per record) into a fresh SQLite
   index file and a fresh PostgreSQL schema, interleaved A-B-B-A; passages per second from the
   median wall time, with client CPU and (PostgreSQL) the server backend's CPU beside it.
2. Load: ``workers`` threads, each asking the same ``queries`` questions (in its own order)
   through ``assemble`` (retrieve under the lifecycle, fit, render), against both sources;
   PostgreSQL through one shared connection pool of ``workers`` connections. Errors, p50 and
   p99 latency, throughput. A one-thread row comes first (equal work: same questions, same
   thread counts on both sides).

    python -m benchmarks.postgres                       # 100k passages, 8 x 500 queries
    python -m benchmarks.postgres --passages 10000 --queries 50
    python -m benchmarks.postgres --only fresh --passages 20000 --queries 100

3. Fresh (``--only fresh``): searches per second (``search_index``, ``workers`` threads) right
   after an index run and again in steady state (the same searches once more), with the
   full-text index as the schema builds it (GIN, ``fastupdate = off``: no pending list) and,
   interleaved A-B-B-A, with ``fastupdate = on`` (a bulk load leaves a pending list that every
   search scans until vacuum merges it); index wall time beside each.

The server is ``$THRIFT_FP_TEST_PG_URL``, or a throwaway cluster this script starts with
``.ci/postgres.sh`` (Unix socket, fsync off: the SQLite build also skips per-commit syncs and
flushes once). Both sides share the machine with the Python client: on 2 cores, the figures
measure contention as much as the stores.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import secrets
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from urllib.parse import quote

from returns.result import Success

from benchmarks._data import SEED, VOCABULARY, passages
from benchmarks._harness import Report, machine, run_and_print
from thrift_fp.sources import assemble as sqlite_assemble
from thrift_fp.sources import index_paths as sqlite_index_paths
from thrift_fp.sources.postgres import PostgresDatabase, open_database
from thrift_fp.sources.postgres import assemble as postgres_assemble
from thrift_fp.sources.postgres import index_paths as postgres_index_paths

_CI = Path(__file__).resolve().parent.parent / ".ci"
RECORDS_PER_FILE = 200


@contextmanager
def ci_server(script: str, url_env: str, prefix: str,
              prepare: Callable[[str, str], None] = lambda url, folder: None) -> Iterator[str]:
    """The URL ``url_env`` names, or a throwaway cluster for this run, started (in a new folder named
    ``prefix`` and more) and stopped by ``.ci/<script>``; ``prepare(url, folder)`` runs on such a
    cluster before it is used."""
    given = os.environ.get(url_env)
    if given:
        yield given
        return
    folder = tempfile.mkdtemp(prefix=prefix)
    try:
        started = subprocess.run(["bash", str(_CI / script), "start", folder], capture_output=True, text=True, check=True)
        url = started.stdout.strip()
        prepare(url, folder)
        yield url
    finally:
        subprocess.run(["bash", str(_CI / script), "stop", folder], capture_output=True, check=False)


def server() -> AbstractContextManager[str]:
    """The benchmark server's URL: the test server, or a throwaway cluster for this run."""
    return ci_server("postgres.sh", "THRIFT_FP_TEST_PG_URL", "thrift-fp-bench-pg-")


def corpus(root: Path, count: int) -> int:
    """Write ``count`` generated passages (30-120 words) as JSONL files; returns the file count."""
    root.mkdir(parents=True, exist_ok=True)
    generated = passages(count, min_words=30, max_words=120)
    files = 0
    for start in range(0, count, RECORDS_PER_FILE):
        lines = (json.dumps({"id": p.id, "text": p.text}) for p in generated[start : start + RECORDS_PER_FILE])
        path = root / f"part{files:04d}.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        os.utime(path, (1e9, 1e9))
        files += 1
    return files


def questions(count: int) -> list[str]:
    """Questions of 2-4 less common vocabulary words inside a question frame."""
    rng = random.Random(SEED + 1)
    tail = VOCABULARY[150:]
    frames = ("how does {} work", "what is {}", "{}", "why {}")
    return [rng.choice(frames).format(" ".join(rng.sample(tail, rng.randint(2, 4)))) for _ in range(count)]


def _schema_url(base: str, schema: str) -> str:
    separator = "&" if "?" in base else "?"
    return f"{base}{separator}options={quote(f'-csearch_path={schema}', safe='')}"


def _fresh_schema(base: str) -> str:
    import psycopg

    schema = f"bench_{secrets.token_hex(4)}"
    with psycopg.connect(base, autocommit=True) as admin:
        admin.execute(f"CREATE SCHEMA {schema}")
    return _schema_url(base, schema)


def _drop_schemas(base: str) -> None:
    import psycopg

    with psycopg.connect(base, autocommit=True) as admin:
        for (name,) in admin.execute("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'bench_%'").fetchall():
            admin.execute(f"DROP SCHEMA {name} CASCADE")


def _backend_cpu(database: PostgresDatabase) -> float:
    """CPU seconds (user + system) of the pool's server backends so far (read from /proc)."""
    with database.pool.connection() as connection:
        pids = [row[0] for row in connection.execute(
            "SELECT pid FROM pg_stat_activity WHERE application_name = 'thrift_fp'"
        ).fetchall()]
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / tick
    return total


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def index_round(name: str, base: str, root: Path, workdir: Path) -> tuple[float, float, float, int]:
    """One fresh index build: wall seconds, client CPU, server CPU, passages."""
    if name == "sqlite":
        database = workdir / f"{secrets.token_hex(4)}.db"
        cpu, started = _cpu(), time.perf_counter()
        report = sqlite_index_paths(database, [root]).unwrap()
        wall, used = time.perf_counter() - started, _cpu() - cpu
        database.unlink()
        return wall, used, 0.0, report.passages
    with open_database(_fresh_schema(base), create=True, pool_size=1).unwrap() as db:
        server_before = _backend_cpu(db)
        cpu, started = _cpu(), time.perf_counter()
        pg_report = postgres_index_paths(db, [root], batch_files=16).unwrap()
        wall, used = time.perf_counter() - started, _cpu() - cpu
        server_used = _backend_cpu(db) - server_before
    return wall, used, server_used, pg_report.passages


def load(ask: Callable[[str], bool], workers: int, asked: Sequence[str]) -> tuple[list[float], int, float]:
    """Each worker asks every question once (its own shuffled order): latencies, errors, wall time."""
    latencies: list[float] = []
    errors = [0]
    lock = threading.Lock()

    def worker(number: int) -> None:
        order = list(asked)
        random.Random(number).shuffle(order)
        mine: list[float] = []
        failed = 0
        for question in order:
            started = time.perf_counter()
            ok = ask(question)
            mine.append(time.perf_counter() - started)
            failed += not ok
        with lock:
            latencies.extend(mine)
            errors[0] += failed

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(workers)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return latencies, errors[0], time.perf_counter() - started


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def run(count: int = 100_000, workers: int = 8, queries: int = 500, rounds: int = 2, only: str = "both") -> Report:
    """Index ``count`` passages into both sources (A-B-B-A), then the load test on each
    (``only="index"`` or ``"load"`` runs one half)."""
    figures: list[tuple[str, str]] = []
    notes: list[str] = [f"load average at start: {os.getloadavg()}"]
    with server() as base, tempfile.TemporaryDirectory() as scratch:
        workdir = Path(scratch)
        root = workdir / "corpus"
        files = corpus(root, count)
        timings: dict[str, list[tuple[float, float, float, int]]] = {"sqlite": [], "postgres": []}
        order = ["sqlite", "postgres", "postgres", "sqlite"] * max(1, rounds // 2) if only != "load" else []
        for name in order:
            timings[name].append(index_round(name, base, root, workdir))
            print(f"  index {name}: {timings[name][-1][0]:.1f} s", flush=True)
            if name == "postgres":
                _drop_schemas(base)
        rates: dict[str, float] = {"sqlite": 1.0, "postgres": 1.0}
        for name, runs in timings.items():
            if not runs:
                continue
            walls = [wall for wall, _, _, _ in runs]
            rates[name] = count / statistics.median(walls)
            figures.append((
                f"index {name}",
                f"median {statistics.median(walls):.1f} s (best {min(walls):.1f} s) = {rates[name]:,.0f} passages/s;"
                f" client CPU median {statistics.median([c for _, c, _, _ in runs]):.1f} s;"
                f" server CPU median {statistics.median([s for _, _, s, _ in runs]):.1f} s;"
                f" passages {runs[0][3]:,}",
            ))
        if only == "index":
            _drop_schemas(base)
            return _report(count, files, workers, queries, rates, figures, notes)
        # The load test's indexes, built once each.
        sqlite_db = workdir / "load.db"
        sqlite_index_paths(sqlite_db, [root]).unwrap()
        asked = questions(queries)
        with open_database(_fresh_schema(base), create=True, pool_size=workers).unwrap() as pg:
            postgres_index_paths(pg, [root]).unwrap()
            with pg.pool.connection() as connection:
                connection.execute("ANALYZE")
            contenders: dict[str, Callable[[str], bool]] = {
                "sqlite": lambda q: isinstance(sqlite_assemble(q, database=sqlite_db), Success),
                "postgres": lambda q: isinstance(postgres_assemble(q, database=pg), Success),
            }
            for threads in (1, workers):
                plan = ["sqlite", "postgres"] if threads == 1 else ["postgres", "sqlite"]
                for name in plan:
                    subset = asked if threads > 1 else asked[: max(1, queries // 5)]
                    latencies, errors, wall = load(contenders[name], threads, subset)
                    figures.append((
                        f"load {name} {threads}x{len(subset)}",
                        f"errors {errors}; p50 {_percentile(latencies, 0.5) * 1000:.1f} ms;"
                        f" p99 {_percentile(latencies, 0.99) * 1000:.1f} ms;"
                        f" {len(latencies) / wall:,.0f} asks/s over {wall:.1f} s",
                    ))
        _drop_schemas(base)
    return _report(count, files, workers, queries, rates, figures, notes)


def _fresh_round(base: str, root: Path, fastupdate: bool, workers: int, asked: Sequence[str]) -> tuple[float, float, float]:
    """Index into a fresh schema (its GIN index with ``fastupdate`` as given), then search:
    index seconds, searches/s right after the run, searches/s on the second pass."""
    import psycopg

    from thrift_fp.sources.postgres import search_index as postgres_search

    url = _fresh_schema(base)
    with open_database(url, create=True, pool_size=workers).unwrap() as db:
        with psycopg.connect(url, autocommit=True) as admin:
            admin.execute(f"ALTER INDEX thrift_fp_passages_lexicon SET (fastupdate = {'on' if fastupdate else 'off'})")
        started = time.perf_counter()
        postgres_index_paths(db, [root], batch_files=16).unwrap()
        indexed = time.perf_counter() - started

        def ask(question: str) -> bool:
            return isinstance(postgres_search(db, question, limit=8), Success)

        ask("warm up the client")  # the pool's connections and the analyzer, not the server's state
        rates = []
        for _ in range(2):
            latencies, errors, wall = load(ask, workers, asked)
            assert errors == 0
            rates.append(len(latencies) / wall)
    return indexed, rates[0], rates[1]


def fresh(count: int, workers: int, queries: int, rounds: int) -> Report:
    """Searches/s right after an index run against steady state, fastupdate off (the schema's)
    and on, interleaved A-B-B-A."""
    figures: list[tuple[str, str]] = []
    notes: list[str] = [f"load average at start: {os.getloadavg()}"]
    with server() as base, tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / "corpus"
        files = corpus(root, count)
        asked = questions(queries)
        results: dict[bool, list[tuple[float, float, float]]] = {False: [], True: []}
        for fastupdate in [False, True, True, False] * max(1, rounds // 2):
            results[fastupdate].append(_fresh_round(base, root, fastupdate, workers, asked))
            label = "on" if fastupdate else "off"
            print(f"  fastupdate {label}: index {results[fastupdate][-1][0]:.1f} s, right after "
                  f"{results[fastupdate][-1][1]:.0f}/s, steady {results[fastupdate][-1][2]:.0f}/s", flush=True)
        _drop_schemas(base)
    for fastupdate, label in ((False, "fastupdate off (the schema)"), (True, "fastupdate on")):
        rows = results[fastupdate]
        after = statistics.median(row[1] for row in rows)
        steady = statistics.median(row[2] for row in rows)
        figures.append((label, f"index {statistics.median(row[0] for row in rows):.1f} s; searches/s right after "
                               f"{after:,.0f}, steady {steady:,.0f} (ratio {after / steady:.2f}; medians of {len(rows)})"))
    ratio = statistics.median(r[1] for r in results[False]) / statistics.median(r[2] for r in results[False])
    notes.append(f"load average at end: {os.getloadavg()}")
    return Report(
        "postgres-fresh",
        "searches/s right after an index run / steady state (fastupdate off)",
        ratio,
        ">= 0.9",
        ratio >= 0.9,
        (("passages", f"{count:,}"), ("files", str(files)), ("workers", str(workers)),
         ("searches per worker per pass", str(queries)), ("machine", str(machine()))),
        tuple(figures),
        tuple(notes),
    )


def _report(
    count: int, files: int, workers: int, queries: int, rates: dict[str, float],
    figures: list[tuple[str, str]], notes: list[str],
) -> Report:
    notes.append(f"load average at end: {os.getloadavg()}")
    notes.append("2 shared cores: the server, the client threads and other engineers' jobs all compete")
    ratio = rates["postgres"] / rates["sqlite"]
    return Report(
        "postgres",
        "PostgreSQL / SQLite indexing passages per second",
        ratio,
        "reported, no target",
        True,
        (("passages", f"{count:,}"), ("files", str(files)), ("workers", str(workers)),
         ("queries per worker", str(queries)), ("machine", str(machine()))),
        tuple(figures),
        tuple(notes),
    )


def main(argv: Sequence[str]) -> int:
    """Parse the sizes and run."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.postgres", description=__doc__.splitlines()[0])
    parser.add_argument("--passages", type=int, default=100_000)
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--queries", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=2, help="A-B-B-A index rounds (2 = one ABBA)")
    parser.add_argument("--only", choices=("both", "index", "load", "fresh"), default="both")
    options = parser.parse_args(argv)
    if options.only == "fresh":
        run_and_print(lambda: fresh(options.passages, options.workers, options.queries, options.rounds))
        return 0
    run_and_print(lambda: run(options.passages, options.workers, options.queries, options.rounds, options.only))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
