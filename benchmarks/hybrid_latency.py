"""In-process query latency of hybrid search at about 20k passages, against lexical search.

    python -m benchmarks.hybrid_latency --cache /tmp/aq-cache [--corpora cmake,node,git,python] [--rounds 2]

One SQLite index of the evaluation set's corpora (``benchmarks/eval/corpora.json``: by default
CMake, Node.js, Git and Python, about 22k passages), every passage with its all-MiniLM-L6-v2
vector. Vectors come from the vectors earlier runs computed (``benchmarks.dense_systems``'s
memory in ``--cache``); passages it lacks are embedded for real, once. Questions: every question
of the evaluation set (both halves, every corpus), asked of the whole index.

Contenders, interleaved A-B-B-A (``--rounds`` times), one ``search_index(..., limit=10)`` call per
question each, after one warm-up call each (the model and the vectors load):
- ``lexical``: ``dense=False``;
- ``hybrid``: ``dense=model`` with the library's pools (lexical 10, dense 50); the question is
  embedded by the real model on every call;
- ``hybrid, lexical pool N`` for each N of ``--pools`` (default 50, the pool the fusion used
  before): the same with another lexical pool.

Printed per contender: p50 / p95 wall and the median CPU time of one query (``time.process_time``,
this thread's process; onnxruntime's threads are counted there too), and the load average before
and after. Nothing outside ``--work`` (default: a temporary folder) and the memory is written.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from benchmarks._eval_set import corpora, load
from benchmarks._harness import load_average


def _percentile(values: Sequence[float], percent: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(percent / 100 * len(ordered)) - 1))]


def build(work: Path, cache: Path, names: Sequence[str]) -> tuple[Path, int, int]:
    """The index of ``names`` with every vector; its path, its passages, and how many were embedded for real."""
    from benchmarks.dense_systems import remembering_embedder
    from thrift_fp.sources import index_paths

    embedder = remembering_embedder(cache)
    database = work / "hybrid-latency.sqlite"
    passages = 0
    for name in names:
        corpus = corpora()[name]
        report = index_paths(
            database, [corpus.root], include=list(corpus.include), exclude=list(corpus.exclude), dense=embedder
        ).unwrap()
        passages = report.passages
        print(f"indexed {name}: {passages} passages in the index, {embedder.embedded} embedded for real so far",
              flush=True)
    return database, passages, embedder.embedded


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cache", type=Path, required=True, help="the answer-quality cache (vector memory)")
    parser.add_argument("--corpora", default="cmake,node,git,python")
    parser.add_argument("--work", type=Path, default=None)
    parser.add_argument("--rounds", type=int, default=2, help="A-B-B-A rounds")
    parser.add_argument("--pools", default="50", help="other lexical pools to time hybrid with (comma-separated)")
    args = parser.parse_args(argv)

    from thrift_fp.sources import search_index
    from thrift_fp.sources.dense import default_embedder
    from thrift_fp.sources.sqlite import _search

    work = args.work or Path(tempfile.mkdtemp(prefix="thrift-fp-hybrid-latency-"))
    work.mkdir(parents=True, exist_ok=True)
    database, passages, embedded = build(work, args.cache, args.corpora.split(","))
    model = default_embedder().unwrap()
    questions = [q.question for name in corpora() for half in ("tune", "report") for q in load(name, half)]
    pool = int(getattr(_search, "LEXICAL_POOL"))

    def ask(dense: bool, lexical_pool: int) -> Callable[[str], object]:
        def one(question: str) -> object:
            setattr(_search, "LEXICAL_POOL", lexical_pool)  # the module's constant, read at each search
            try:
                return search_index(database, question, limit=10, dense=model if dense else False).unwrap()
            finally:
                setattr(_search, "LEXICAL_POOL", pool)
        return one

    contenders = {
        "lexical": ask(False, pool),
        f"hybrid (lexical pool {pool}, dense 50)": ask(True, pool),
        **{f"hybrid, lexical pool {other}": ask(True, int(other)) for other in args.pools.split(",") if other},
    }
    load_before = load_average()
    for run in contenders.values():
        run(questions[0])  # warm-up: the model, the vectors, the page cache
    walls: dict[str, list[float]] = {name: [] for name in contenders}
    cpus: dict[str, list[float]] = {name: [] for name in contenders}
    for names in (list(contenders), list(reversed(contenders))) * args.rounds:
        for name in names:
            for question in questions:
                wall, cpu = time.perf_counter(), time.process_time()
                contenders[name](question)
                walls[name].append(time.perf_counter() - wall)
                cpus[name].append(time.process_time() - cpu)
    load_after = load_average()
    print(f"{passages} passages ({args.corpora}), {embedded} embedded for real in this run; "
          f"{len(questions)} questions x {2 * args.rounds} rounds per contender; "
          f"load average before {load_before}, after {load_after}; {os.cpu_count()} CPUs")
    print(f"{'contender':40} {'p50 ms':>8} {'p95 ms':>8} {'CPU median ms':>14}")
    for name in contenders:
        print(f"{name:40} {1000 * statistics.median(walls[name]):8.1f} {1000 * _percentile(walls[name], 95):8.1f}"
              f" {1000 * statistics.median(cpus[name]):14.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
