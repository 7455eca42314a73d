"""The dense-embedding systems of the answer-quality harness: the dense model alone, and hybrid.

``benchmarks/answer_quality.py`` declares two slots, ``dense`` and ``hybrid``; each is filled by
wrapping `rank_corpus` into the harness's ``Ranked``::

    def _dense(corpus, questions, context):
        return Ranked(*rank_corpus(corpus.root, corpus.include, corpus.exclude, questions, context.cache, "dense"))

Both systems read the same files as the others (the corpus selection), index them once into
an SQLite index with the ``[dense]`` extra's vectors (cached under ``cache``, so only new or
changed passages are embedded by a later run), and answer each question with 10 passages:
``dense`` in the order of cosine similarity alone (the nearest passages, one per distinct
content), ``hybrid`` through ``search_index(..., dense=True)``, the fused ranking a user gets.
`missing` names what this machine lacks to run them. `rank_corpus_postgres` is ``hybrid`` on
the PostgreSQL source (for the harness's server: ``context.postgres_url()``)::

    def _hybrid_postgres(corpus, questions, context):
        return Ranked(*rank_corpus_postgres(context.postgres_url(), corpus.root, corpus.include,
                                            corpus.exclude, questions))
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Final, Literal

LIMIT: Final = 10
DenseSystem = Literal["dense", "hybrid"]


def missing() -> str | None:
    """Why the dense systems cannot run here (the extra or its model absent), or ``None``."""
    from returns.result import Success

    from thrift_fp.sources.dense import default_embedder

    loaded = default_embedder()
    return None if isinstance(loaded, Success) else loaded.failure().message


def _fingerprint(root: Path, include: Sequence[str], exclude: Sequence[str]) -> str:
    import thrift_fp

    digest = hashlib.sha256()
    package = Path(thrift_fp.__file__).resolve().parent
    for path in sorted(package.rglob("*.py")):
        digest.update(path.relative_to(package).as_posix().encode())
        digest.update(path.read_bytes())
    digest.update(json.dumps([str(root), list(include), list(exclude)]).encode())
    return digest.hexdigest()[:16]


def _relative(path: str, root: Path) -> str:
    try:
        return Path(path).resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path


def rank_corpus(
    root: Path,
    include: Sequence[str],
    exclude: Sequence[str],
    questions: Sequence[str],
    cache: Path,
    system: DenseSystem,
) -> tuple[tuple[tuple[str, ...], ...], tuple[float, ...], int, float, float]:
    """Per question the files of the first 10 passages, per question the in-process query
    seconds, the passages indexed, and the index run's wall and CPU seconds."""
    from thrift_fp.sources import index_paths, search_index
    from thrift_fp.sources.dense import default_embedder
    from thrift_fp.sources.dense._sqlite import dense_candidates
    from thrift_fp.sources.sqlite._store import open_index

    embedder = default_embedder().unwrap()
    cache.mkdir(parents=True, exist_ok=True)
    database = cache / f"{root.name}-{_fingerprint(root, include, exclude)}-dense.sqlite"
    cpu, wall = time.process_time(), time.perf_counter()
    report = index_paths(database, [root], include=list(include), exclude=list(exclude), dense=embedder).unwrap()
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    tiers = ("first-party", "third-party-public", "third-party-private")

    def query(question: str) -> list[str]:
        if system == "hybrid":
            hits = search_index(database, question, limit=LIMIT, dense=embedder).unwrap()
            return [_relative(hit.path, root) for hit in hits]
        connection = open_index(database).unwrap()
        try:
            near = dense_candidates(database, connection, embedder, question, tiers, LIMIT).unwrap()[0]
            paths = dict(connection.execute(
                "SELECT id, path FROM passages WHERE id IN (SELECT value FROM json_each(?))",
                (json.dumps([scored.key for scored in near]),),
            ).fetchall())
        finally:
            connection.close()
        return [_relative(str(paths[scored.key]), root) for scored in near]

    if questions:
        query(questions[0])  # warm-up: the model, the vectors, the page cache
    files: list[tuple[str, ...]] = []
    latencies: list[float] = []
    for question in questions:
        started = time.perf_counter()
        found = query(question)
        latencies.append(time.perf_counter() - started)
        files.append(tuple(found))
    return tuple(files), tuple(latencies), report.passages, wall, cpu


def rank_corpus_postgres(
    url: str,
    root: Path,
    include: Sequence[str],
    exclude: Sequence[str],
    questions: Sequence[str],
) -> tuple[tuple[tuple[str, ...], ...], tuple[float, ...], int, float, float]:
    """`rank_corpus`'s ``hybrid`` on the PostgreSQL source: one collection per corpus and package
    version on the server at ``url`` (vectors embedded once, then only what changed)."""
    from thrift_fp.sources.dense import default_embedder
    from thrift_fp.sources.postgres import index_paths, open_database, search_index

    embedder = default_embedder().unwrap()
    collection = f"dense-{root.name}-{_fingerprint(root, include, exclude)}"
    with open_database(url, create=True).unwrap() as database:
        cpu, wall = time.process_time(), time.perf_counter()
        report = index_paths(
            database, [root], collection=collection, include=list(include), exclude=list(exclude), dense=embedder
        ).unwrap()
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall

        def query(question: str) -> list[str]:
            hits = search_index(database, question, collection=collection, limit=LIMIT, dense=embedder).unwrap()
            return [_relative(hit.path, root) for hit in hits]

        if questions:
            query(questions[0])
        files: list[tuple[str, ...]] = []
        latencies: list[float] = []
        for question in questions:
            started = time.perf_counter()
            found = query(question)
            latencies.append(time.perf_counter() - started)
            files.append(tuple(found))
    return tuple(files), tuple(latencies), report.passages, wall, cpu
