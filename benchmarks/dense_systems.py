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
                                            corpus.exclude, questions, context.cache))
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Final, Literal

from benchmarks._eval_set import relative
from benchmarks._wrapped_embedder import SameModel

if TYPE_CHECKING:
    from thrift_fp.sources.dense import Embedder

LIMIT: Final = 10
DenseSystem = Literal["dense", "hybrid"]
# The vectors every earlier run computed, by model and input: the index fingerprint changes with
# every edit of thrift_fp, and re-embedding a corpus costs minutes of CPU per change.
MEMORY: Final = "dense-vectors-memory.sqlite"


class RememberingEmbedder(SameModel):
    """The real model behind a table of the vectors it computed before (model and input → vector).

    A benchmark device, not a library one: the table is seeded from the ``*-dense.sqlite``
    indexes already in the cache folder, so a changed thrift_fp (a new index fingerprint) or the
    PostgreSQL store embeds only inputs no earlier run saw. Vectors are the model's own either way.
    """

    def __init__(self, inner: Embedder, folder: Path) -> None:
        self.inner = inner
        self._memory = sqlite3.connect(folder / MEMORY, timeout=120)
        self._memory.execute("CREATE TABLE IF NOT EXISTS v(key TEXT PRIMARY KEY, vector BLOB NOT NULL)")
        self._seed(folder)
        self.embedded = 0

    def _key(self, text: str) -> str:
        return hashlib.sha256(f"{self.model_id}\0{text}".encode("utf-8", "surrogatepass")).hexdigest()

    def _seed(self, folder: Path) -> None:
        from thrift_fp.sources.dense._vectors import embedding_input, heading_of, vector_key

        seeded = {str(key) for (key,) in self._memory.execute("SELECT key FROM seeded")} if self._memory.execute(
            "SELECT name FROM sqlite_master WHERE name = 'seeded'").fetchone() else set()
        self._memory.execute("CREATE TABLE IF NOT EXISTS seeded(key TEXT PRIMARY KEY)")
        for index in sorted(folder.glob("*-dense.sqlite")):
            if index.name in seeded:
                continue
            source = sqlite3.connect(f"file:{index}?mode=ro", uri=True)
            try:
                vectors = dict(source.execute("SELECT key, vector FROM dense_vectors").fetchall())
                rows = []
                for metadata, text in source.execute("SELECT metadata, text FROM passages"):
                    heading = heading_of(str(metadata))
                    vector = vectors.get(vector_key(self.model_id, heading, str(text)))
                    if vector is not None:
                        rows.append((self._key(embedding_input(heading, str(text))), vector))
            except sqlite3.Error:
                continue  # an index of another schema or an unfinished one: nothing to seed
            finally:
                source.close()
            self._memory.executemany("INSERT OR IGNORE INTO v(key, vector) VALUES (?, ?)", rows)
            self._memory.execute("INSERT OR IGNORE INTO seeded(key) VALUES (?)", (index.name,))
        self._memory.commit()

    def embed(self, texts: Sequence[str]) -> tuple[bytes, ...]:
        keys = [self._key(text) for text in texts]
        known: dict[str, bytes] = {}
        for start in range(0, len(keys), 500):
            chunk = keys[start:start + 500]
            marks = ",".join("?" * len(chunk))
            known.update((str(key), bytes(vector)) for key, vector in
                         self._memory.execute(f"SELECT key, vector FROM v WHERE key IN ({marks})", chunk))
        todo = [at for at, key in enumerate(keys) if key not in known]
        if todo:
            fresh = self.inner.embed([texts[at] for at in todo])
            self.embedded += len(todo)
            rows = [(keys[at], bytes(vector)) for at, vector in zip(todo, fresh, strict=True)]
            self._memory.executemany("INSERT OR REPLACE INTO v(key, vector) VALUES (?, ?)", rows)
            self._memory.commit()
            known.update(rows)
        return tuple(known[key] for key in keys)


def remembering_embedder(cache: Path) -> RememberingEmbedder:
    """The ``[dense]`` extra's default model, remembering its vectors under ``cache``."""
    from thrift_fp.sources.dense import default_embedder

    cache.mkdir(parents=True, exist_ok=True)
    return RememberingEmbedder(default_embedder().unwrap(), cache)


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
    from thrift_fp.sources.sqlite._dense import dense_candidates
    from thrift_fp.sources.sqlite._store import open_index

    embedder = remembering_embedder(cache)
    database = cache / f"{root.name}-{_fingerprint(root, include, exclude)}-dense.sqlite"
    cpu, wall = time.process_time(), time.perf_counter()
    report = index_paths(database, [root], include=list(include), exclude=list(exclude), dense=embedder).unwrap()
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    tiers = ("first-party", "third-party-public", "third-party-private")

    def query(question: str) -> list[str]:
        if system == "hybrid":
            hits = search_index(database, question, limit=LIMIT, dense=embedder).unwrap()
            return [relative(hit.path, root) for hit in hits]
        connection = open_index(database).unwrap()
        try:
            near = dense_candidates(database, connection, embedder, question, tiers, LIMIT).unwrap()[0]
            paths = dict(connection.execute(
                "SELECT id, path FROM passages WHERE id IN (SELECT value FROM json_each(?))",
                (json.dumps([scored.key for scored in near]),),
            ).fetchall())
        finally:
            connection.close()
        return [relative(str(paths[scored.key]), root) for scored in near]

    files, latencies = _timed(query, questions)
    return files, latencies, report.passages, wall, cpu


def _timed(query: Callable[[str], list[str]], questions: Sequence[str]) -> tuple[tuple[tuple[str, ...], ...], tuple[float, ...]]:
    """Per question the files ``query`` finds and its seconds, after one untimed warm-up query
    (the model, the vectors, the page cache)."""
    if questions:
        query(questions[0])
    files: list[tuple[str, ...]] = []
    latencies: list[float] = []
    for question in questions:
        started = time.perf_counter()
        found = query(question)
        latencies.append(time.perf_counter() - started)
        files.append(tuple(found))
    return tuple(files), tuple(latencies)


def rank_corpus_postgres(
    url: str,
    root: Path,
    include: Sequence[str],
    exclude: Sequence[str],
    questions: Sequence[str],
    cache: Path,
) -> tuple[tuple[tuple[str, ...], ...], tuple[float, ...], int, float, float]:
    """`rank_corpus`'s ``hybrid`` on the PostgreSQL source: one collection per corpus and package
    version on the server at ``url`` (vectors the SQLite runs computed are reused from ``cache``)."""
    from thrift_fp.sources.postgres import index_paths, open_database, search_index

    embedder = remembering_embedder(cache)
    collection = f"dense-{root.name}-{_fingerprint(root, include, exclude)}"
    with open_database(url, create=True).unwrap() as database:
        cpu, wall = time.process_time(), time.perf_counter()
        report = index_paths(
            database, [root], collection=collection, include=list(include), exclude=list(exclude), dense=embedder
        ).unwrap()
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall

        def query(question: str) -> list[str]:
            hits = search_index(database, question, collection=collection, limit=LIMIT, dense=embedder).unwrap()
            return [relative(hit.path, root) for hit in hits]

        files, latencies = _timed(query, questions)
    return files, latencies, report.passages, wall, cpu
