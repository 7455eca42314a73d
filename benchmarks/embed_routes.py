"""Answer quality of the embedding routes (issue 35): which input length and model an index embeds with.

    python -m benchmarks.embed_routes --routes minilm-128,minilm-64,minilm-32 --halves tune
    python -m benchmarks.embed_routes --routes minilm-128,minilm-32 --halves fresh,fresh2 --json out.jsonl

A route is a model and the word pieces it reads of each passage (its heading path, then its
text, cut at that length): ``minilm-N`` is all-MiniLM-L6-v2 int8 at ``N`` word pieces
(``minilm-128`` is the hybrid ranking as it was before issue 35), ``static`` the static model. Each route indexes every
corpus of ``benchmarks/eval/corpora.json`` into its own SQLite index with its vectors (cached
under ``--cache``, and every vector remembered by model and input, so a second run embeds
nothing) and answers each question through ``search_index(..., dense=embedder)``: the hybrid
ranking a user gets. Figures are hit@5 and MRR@10 as ``benchmarks.answer_quality`` computes them.
Choose on ``tune``; ``fresh`` and ``fresh2`` only measure.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from benchmarks._eval_set import CORPORA, Corpus, corpora, load, relative
from benchmarks._harness import load_average
from benchmarks.answer_quality import metrics
from benchmarks.dense_systems import RememberingEmbedder, _fingerprint

LIMIT = 10


def route_embedder(route: str) -> object:
    """The embedder a route names: ``minilm-N`` (int8 at N word pieces), ``static`` (WordLlama's
    token vectors, `thrift_fp.sources.dense._static`; ``wordllama-512`` in earlier runs)."""
    from thrift_fp.sources.dense._embedder import embedder_for

    return embedder_for(route).unwrap()


def rank(corpus: Corpus, route: str, halves: Sequence[str], cache: Path) -> list[dict[str, object]]:
    """One route on one corpus: a row per half with its metrics, and the index run's times."""
    from thrift_fp.sources import index_paths, search_index

    cache.mkdir(parents=True, exist_ok=True)
    embedder = RememberingEmbedder(route_embedder(route), cache)  # type: ignore[arg-type]
    database = cache / f"{corpus.name}-{route}-{_fingerprint(corpus.root, corpus.include, corpus.exclude)}.sqlite"
    cpu, wall = time.process_time(), time.perf_counter()
    report = index_paths(
        database, [corpus.root], include=list(corpus.include), exclude=list(corpus.exclude), dense=embedder
    ).unwrap()
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    rows: list[dict[str, object]] = []
    for half in halves:
        questions = load(corpus.name, half)  # type: ignore[arg-type]
        ranked = []
        for question in questions:
            hits = search_index(database, question.question, limit=LIMIT, dense=embedder).unwrap()
            ranked.append([relative(hit.path, corpus.root) for hit in hits])
        rows.append({
            "corpus": corpus.name, "route": route, "half": half, "questions": len(questions),
            **{key: round(value, 3) for key, value in metrics(ranked, questions).items()},
            "passages": report.passages, "embedded": embedder.embedded, "index_wall": round(wall, 1),
            "index_cpu": round(cpu, 1),
        })
    return rows


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.embed_routes", description=__doc__.split("\n")[0])
    parser.add_argument("--routes", default="minilm-128,minilm-64,minilm-32")
    parser.add_argument("--halves", default="tune")
    parser.add_argument("--corpora", default=",".join(CORPORA))
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "thrift-fp-embed-routes")
    parser.add_argument("--json", type=Path, help="also append the rows to this file (JSON lines)")
    args = parser.parse_args(argv)
    known = corpora()
    halves = [half for half in args.halves.split(",") if half]
    print(f"load average before {load_average()}; pid {os.getpid()}", flush=True)
    for name in args.corpora.split(","):
        corpus = known[name]
        if not corpus.root.is_dir():
            print(f"{name}: {corpus.root} is not installed; skipped", flush=True)
            continue
        for route in args.routes.split(","):
            for row in rank(corpus, route, halves, args.cache):
                print(json.dumps(row), flush=True)
                if args.json is not None:
                    with args.json.open("a", encoding="utf-8") as out:
                        out.write(json.dumps(row) + "\n")
    print(f"load average after {load_average()}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
