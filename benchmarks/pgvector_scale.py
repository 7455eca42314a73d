"""PostgreSQL with pgvector at a scale nobody indexes by hand: worker memory and hybrid latency
from 10,000 to 1,000,000 passages, against the in-process dense path (issue 38).

    python -m benchmarks.pgvector_scale                              # 10k, 100k, 1M; 200 questions each
    python -m benchmarks.pgvector_scale --sizes 10000,100000 --questions 100
    python -m benchmarks.pgvector_scale --in-process-max 100000      # skip today's path above 100k

For each size, one collection of generated passages (30-80 words from ``benchmarks._data``'s
Zipf vocabulary plus one rarer ``termNNNNN`` word each, so questions have a selective word as
real ones do) is written straight into the PostgreSQL source's tables with ``COPY``: files,
passages (their analyzed fields computed as the index run computes them) and, for each passage,
a random unit vector of 384 float32 (the default model's size) stored as the index run stores
vectors (``thrift_fp_dense_vectors``, ``bytea``), with the collection's model recorded. That is
a collection as an index run before pgvector left it. Then, per size:

1. **in-process** (today's path): a fresh worker process opens the database and asks the
   questions through ``search_index(..., dense=embedder)``; every vector is loaded into it;
2. **migration**: the next index run's vector step (``sync_vectors``; nothing is embedded)
   copies the stored vectors into the ``embedding`` column and builds the HNSW indexes; its
   wall time is reported;
3. **pgvector**: a fresh worker asks the same questions; the dense candidates come from SQL.

Each worker reports p50 and p95 wall time of one hybrid ``search_index(limit=10)`` after one
warm-up question (timed apart: the in-process path loads its vectors there), its CPU time per
question, its resident memory after the questions (``VmRSS``) and its peak (``VmHWM``), and the
ranking it says it used. The questions' vectors come from `SyntheticEmbedder` (a unit vector
drawn from a hash of the text), so no model runs and the figures are the stores' own.

The server is ``$THRIFT_FP_TEST_PGVECTOR_URL``, or a throwaway cluster this script starts with
``.ci/pgvector.sh`` (Unix socket, fsync off) and restarts with ``shared_buffers`` of
``--shared-buffers`` (default 2GB); the migration's connection sets ``maintenance_work_mem``
(``--maintenance-work-mem``, default 4GB: an HNSW build that fits in it is many times faster).
Client and server share the machine's cores; the load average is printed before and after.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from contextlib import AbstractContextManager
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote

from benchmarks._data import VOCABULARY, words
from benchmarks._harness import load_average, machine
from benchmarks.postgres import ci_server

DIMENSIONS = 384
MODEL_ID = "synthetic-unit-384"
PASSAGES_PER_FILE = 1000
RARE_TERMS = 50_000
SEED = 20261205
# Questions asked again for the breakdown (lexical alone, the SQL nearest alone).
BREAKDOWN = 50


class SyntheticEmbedder:
    """The `Embedder` shape without a model: a text's vector is a unit vector drawn from a hash of it."""

    model_id = MODEL_ID
    dimensions = DIMENSIONS

    def embed(self, texts: Sequence[str]) -> list[bytes]:
        import numpy as np

        vectors = []
        for text in texts:
            seed = int.from_bytes(hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()[:8], "little")
            vector = np.random.default_rng(seed).standard_normal(DIMENSIONS).astype(np.float32)
            vectors.append((vector / np.linalg.norm(vector)).astype("<f4").tobytes())
        return vectors


def questions(count: int) -> list[str]:
    """``count`` questions: two vocabulary words and one rare term each (deterministic)."""
    rng = random.Random(SEED + 1)
    return [f"{words(rng, 2).rstrip('.')} term{rng.randrange(RARE_TERMS)}" for _ in range(count)]


def server(shared_buffers: str) -> AbstractContextManager[str]:
    """The benchmark server's URL: the environment's, or a throwaway pgvector cluster for this run
    (``shared_buffers`` set on the throwaway one)."""

    def tune(url: str, folder: str) -> None:
        import psycopg

        with psycopg.connect(url, autocommit=True) as admin:
            admin.execute(f"ALTER SYSTEM SET shared_buffers = '{shared_buffers}'")
            admin.execute("ALTER SYSTEM SET max_parallel_maintenance_workers = 1")
        bin_dir = next(Path(folder).glob("venv/lib/python3*/site-packages/pgserver/pginstall/bin"))
        owner = ["runuser", "-u", "postgres", "--"] if os.getuid() == 0 else []
        subprocess.run(
            [*owner, str(bin_dir / "pg_ctl"), "-D", f"{folder}/data", "-w", "-m", "fast", "restart"],
            capture_output=True, check=True,
        )

    return ci_server("pgvector.sh", "THRIFT_FP_TEST_PGVECTOR_URL", "thrift-fp-bench-pgvector-", tune)


def _with_options(url: str, options: str) -> str:
    separator = "&" if "?" in url else "?"
    return f"{url}{separator}options={quote(options, safe='')}"


def load(url: str, collection: str, size: int) -> float:
    """Write ``size`` generated passages and their vectors into ``collection`` (fresh); returns the wall seconds."""
    import numpy as np
    import psycopg

    from thrift_fp.sources.dense._vectors import vector_key
    from thrift_fp.sources.postgres import open_database
    from thrift_fp.sources.ranking._analyze import analyze, analyze_fields, default_analyzer

    started = time.perf_counter()
    open_database(url, create=True).unwrap().close()
    analyzer = default_analyzer()
    analyzed: dict[str, list[str]] = {}

    def terms(text: str) -> list[str]:
        # Word by word, memoised: the same terms as analyze(text) for these texts (checked below).
        out: list[str] = []
        for word in text.split():
            if word not in analyzed:
                analyzed[word] = list(analyze(word, analyzer))
            out.extend(analyzed[word])
        return out

    rng = random.Random(SEED + size)
    vectors_rng = np.random.default_rng(SEED + size)
    stamp = datetime(2026, 12, 1, tzinfo=UTC)
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute("DELETE FROM thrift_fp_collections WHERE collection = %s", (collection,))
        connection.execute(
            "INSERT INTO thrift_fp_collections (collection, encoding, max_tokens, ts_config, analyzer)"
            " VALUES (%s, 'cl100k_base', 400, 'english', %s)",
            (collection, analyzer),
        )
        files = (size + PASSAGES_PER_FILE - 1) // PASSAGES_PER_FILE
        with connection.cursor() as cursor, cursor.copy(
            "COPY thrift_fp_files (collection, path, source, kind, trust_tier, mtime_ns, size, sha256, checked_ns)"
            " FROM STDIN"
        ) as copy:
            for number in range(files):
                copy.write_row((collection, f"/synthetic/{number:05d}.txt", f"{number:05d}.txt", "text", "first-party",
                                0, 0, f"{number:064x}", 0))
        done = 0
        while done < size:
            batch = min(20_000, size - done)
            units = vectors_rng.standard_normal((batch, DIMENSIONS)).astype(np.float32)
            units /= np.linalg.norm(units, axis=1, keepdims=True)
            passage_rows: list[tuple[object, ...]] = []
            vector_rows: list[tuple[object, ...]] = []
            for at in range(batch):
                number = done + at
                text = f"{words(rng, rng.randint(30, 80))} term{rng.randrange(RARE_TERMS)}."
                body = terms(text)
                if number < 200:
                    assert "  ".join(body) == analyze_fields(text, (), analyzer).body, text
                file = number // PASSAGES_PER_FILE
                passage_rows.append((
                    collection, f"/synthetic/{file:05d}.txt", f"{file:05d}.txt#{number % PASSAGES_PER_FILE + 1}",
                    f"{file:05d}.txt", number % PASSAGES_PER_FILE + 1, "text", "first-party", stamp, stamp,
                    hashlib.sha256(text.encode()).hexdigest(), len(text.split()) * 11 // 10, "", text, "{}",
                    "  ".join(body), "", "", len(body), 0, 0, sorted(set(body)),
                ))
                vector_rows.append((collection, vector_key(MODEL_ID, "", text), units[at].astype("<f4").tobytes()))
            with connection.transaction(), connection.cursor() as cursor:
                with cursor.copy(
                    "COPY thrift_fp_passages (collection, path, passage_id, source, ordinal, kind, trust_tier,"
                    " created_at, updated_at, content_hash, tokens, heading_path, text, metadata, body_terms,"
                    " heading_terms, trail_terms, body_length, heading_length, trail_length, lexicon) FROM STDIN"
                ) as copy:
                    for row in passage_rows:
                        copy.write_row(row)
                if done == 0:
                    from thrift_fp.sources.postgres._dense import TABLES

                    cursor.execute(TABLES)
                with cursor.copy("COPY thrift_fp_dense_vectors (collection, key, vector) FROM STDIN") as copy:
                    for row in vector_rows:
                        copy.write_row(row)
            done += batch
        connection.execute(
            "INSERT INTO thrift_fp_dense_models (collection, model, generation) VALUES (%s, %s, %s)",
            (collection, MODEL_ID, f"synthetic-{size}"),
        )
        connection.execute("ANALYZE thrift_fp_passages")
        connection.execute("ANALYZE thrift_fp_dense_vectors")
    return time.perf_counter() - started


def migrate(url: str, collection: str, maintenance_work_mem: str) -> dict[str, object]:
    """The next index run's vector step on ``collection``: fill the column, build the indexes."""
    import psycopg

    from thrift_fp.sources.postgres._dense import sync_vectors

    from thrift_fp.sources.postgres._store import ensure_schema

    options = f"-c maintenance_work_mem={maintenance_work_mem}"
    with psycopg.connect(_with_options(url, options), autocommit=True) as connection:
        # The run's first step: a database made before the kept ranking statistics gains them.
        started = time.perf_counter()
        ensure_schema(connection, "benchmark").unwrap()
        statistics = time.perf_counter() - started
        started, cpu = time.perf_counter(), time.process_time()
        embedded = sync_vectors(connection, collection, SyntheticEmbedder()).unwrap()
        wall, client_cpu = time.perf_counter() - started, time.process_time() - cpu
        sizes = _sizes(connection, collection)
    return {"statistics_s": statistics, "wall_s": wall, "client_cpu_s": client_cpu, "embedded": embedded, **sizes}


def _sizes(connection: object, collection: str) -> dict[str, float]:
    """The collection's HNSW index and the database's tables, in MB (tables hold every size's collection)."""
    from thrift_fp.records import TRUST_TIERS
    from thrift_fp.sources.postgres._pgvector import index_name

    names = [index_name(collection, tier, DIMENSIONS) for tier in TRUST_TIERS]
    hnsw = connection.execute(  # type: ignore[attr-defined]  # a psycopg connection
        "SELECT coalesce(sum(pg_relation_size(to_regclass(name))), 0) FROM unnest(%s::text[]) AS name", (names,)
    ).fetchone()[0]
    tables = dict(connection.execute(  # type: ignore[attr-defined]  # a psycopg connection
        "SELECT relname, pg_total_relation_size(oid) FROM pg_class"
        " WHERE relname IN ('thrift_fp_passages', 'thrift_fp_dense_vectors')"
    ).fetchall())
    mb = 1024 * 1024
    return {"hnsw_mb": float(hnsw) / mb, **{f"{name}_total_mb": float(size) / mb for name, size in tables.items()}}


def _memory_mb() -> tuple[float, float]:
    fields = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            fields[name] = int(value.split()[0]) / 1024
    return fields["VmRSS"], fields["VmHWM"]


def worker(url: str, collection: str, count: int) -> dict[str, object]:
    """One worker process's figures: ask ``count`` questions after a warm-up one."""
    from thrift_fp.sources.postgres import open_database, search_index, search_ranking

    embedder = SyntheticEmbedder()
    asked = questions(count + 1)
    with open_database(url, pool_size=1).unwrap() as database:
        before_rss, _ = _memory_mb()
        ranking = search_ranking(database, collection=collection, dense=embedder).unwrap().as_json()
        started = time.perf_counter()
        search_index(database, asked[0], collection=collection, limit=10, dense=embedder).unwrap()
        first = time.perf_counter() - started
        walls = []
        cpu = time.process_time()
        for question in asked[1:]:
            started = time.perf_counter()
            search_index(database, question, collection=collection, limit=10, dense=embedder).unwrap()
            walls.append(time.perf_counter() - started)
        cpu = time.process_time() - cpu
        rss, hwm = _memory_mb()
        # Where the time goes: the lexical ranking alone, and (pgvector) the SQL nearest alone.
        lexical = []
        for question in asked[1:BREAKDOWN + 1]:
            started = time.perf_counter()
            search_index(database, question, collection=collection, limit=10, dense=False).unwrap()
            lexical.append(time.perf_counter() - started)
        dense = _dense_only(database, collection, embedder, asked[1:BREAKDOWN + 1])
    quantiles = statistics.quantiles(walls, n=20)
    return {
        "ranking": ranking,
        "first_ms": first * 1000,
        "p50_ms": statistics.median(walls) * 1000,
        "p95_ms": quantiles[18] * 1000,
        "cpu_ms": cpu / len(walls) * 1000,
        "lexical_p50_ms": statistics.median(lexical) * 1000,
        "sql_nearest_p50_ms": statistics.median(dense) * 1000 if dense else None,
        "rss_before_mb": before_rss,
        "rss_mb": rss,
        "hwm_mb": hwm,
        "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


# A worker's address space: today's path at 1M passages needs several GB; past this it fails
# (a MemoryError, reported as such) instead of pushing the shared machine into swapless OOM.
WORKER_ADDRESS_SPACE = 10 * 1024**3


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (WORKER_ADDRESS_SPACE, WORKER_ADDRESS_SPACE))


def _dense_only(database: object, collection: str, embedder: SyntheticEmbedder, asked: Sequence[str]) -> list[float]:
    from thrift_fp.records import TRUST_TIERS
    from thrift_fp.sources.postgres._pgvector import nearest_in_sql, search_column

    walls = []
    with database.pool.connection() as connection:  # type: ignore[attr-defined]  # a PostgresDatabase
        column, _ = search_column(connection, collection, MODEL_ID, DIMENSIONS)
        if column is None:
            return []
        for question in asked:
            vector = embedder.embed([question])[0]
            started = time.perf_counter()
            nearest_in_sql(connection, collection, column, vector, TRUST_TIERS, 50)
            walls.append(time.perf_counter() - started)
    return walls


def _run_worker(url: str, collection: str, count: int) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.pgvector_scale", "--worker", url, collection, str(count)],
        capture_output=True, text=True, check=False, preexec_fn=_limit_memory,
    )
    if done.returncode != 0:
        return {"failed": (done.stderr.strip().splitlines() or ["?"])[-1]}
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--questions", type=int, default=200)
    parser.add_argument("--in-process-max", type=int, default=1_000_000)
    parser.add_argument("--shared-buffers", default="2GB")
    parser.add_argument("--maintenance-work-mem", default="4GB")
    parser.add_argument("--phases", default="load,in-process,migrate,pgvector",
                        help="which steps to run per size (a later run may take up the collections an earlier left)")
    parser.add_argument("--worker", nargs=3, metavar=("URL", "COLLECTION", "QUESTIONS"))
    args = parser.parse_args(argv)
    if args.worker:
        url, collection, count = args.worker
        print(json.dumps(worker(url, collection, int(count))))
        return
    print(json.dumps({"machine": machine(), "load_before": load_average()}), flush=True)
    with server(args.shared_buffers) as url:
        for size in (int(size) for size in args.sizes.split(",")):
            collection = f"scale-{size}"
            phases = set(args.phases.split(","))
            row: dict[str, object] = {"passages": size}
            if "load" in phases:
                row["load_s"] = load(url, collection, size)
            if "in-process" in phases and size <= args.in_process_max:
                row["in_process"] = _run_worker(url, collection, args.questions)
            if "migrate" in phases:
                row["migration"] = migrate(url, collection, args.maintenance_work_mem)
            if "pgvector" in phases:
                row["pgvector"] = _run_worker(url, collection, args.questions)
            row["load_average"] = load_average()
            print(json.dumps(row), flush=True)
    print(json.dumps({"load_after": load_average()}), flush=True)


if __name__ == "__main__":
    main()
