"""Same answers with the vectors in pgvector: recall@50 of the HNSW candidates against the exact
nearest, and hit@5 / MRR@10 of hybrid search on pgvector against the in-process path (issue 38).

    python -m benchmarks.pgvector_quality                          # fresh + fresh2, every installed corpus
    python -m benchmarks.pgvector_quality --corpora node,git --sets fresh

Per corpus (the answer-quality harness's selection, ``benchmarks/eval/corpora.json``):

- the files are indexed with the ``[dense]`` extra's model into a collection on a PostgreSQL with
  pgvector (``$THRIFT_FP_TEST_PGVECTOR_URL``, or a throwaway ``.ci/pgvector.sh`` cluster), where
  the index run keeps the vectors in the ``embedding`` column under HNSW indexes, and into an
  SQLite index, whose hybrid search is the in-process path (the PostgreSQL in-process path gives
  SQLite's passages and scores, ``tests/test_dense_postgres.py``); vectors are remembered under
  ``--cache`` as ``benchmarks/dense_systems.py`` does, so a second run embeds nothing;
- **recall@50**: for each question, the 50 nearest contents the search takes from SQL
  (`nearest_in_sql`, every tier) against the exact 50 nearest contents (every stored vector of
  the collection compared with the question in process): the share found, averaged over the
  questions, at ``hnsw.ef_search`` 200 (the source's) and at 108 (the least it may use for 50
  candidates and their twins);
- **hit@5 and MRR@10** of ``search_index(..., limit=10, dense=embedder)`` on both stores, by the
  answer-quality harness's definition (file-level labels), and how many questions' top-10 files
  differ at all.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
from collections.abc import Sequence
from contextlib import AbstractContextManager
from pathlib import Path

from benchmarks._eval_set import CORPORA, corpora, load
from benchmarks._harness import load_average, machine
from benchmarks.answer_quality import metrics
from benchmarks.dense_systems import _fingerprint, rank_corpus, rank_corpus_postgres, remembering_embedder
from benchmarks.postgres import ci_server

POOL = 50


def server() -> AbstractContextManager[str]:
    """The pgvector server's URL: the environment's, or a throwaway cluster for this run."""
    return ci_server("pgvector.sh", "THRIFT_FP_TEST_PGVECTOR_URL", "thrift-fp-bench-pgvector-")


def recall(url: str, collection: str, questions: Sequence[str], cache: Path) -> dict[str, float]:
    """Mean recall@50 of the SQL candidates against the exact nearest, at two ``hnsw.ef_search``."""
    import psycopg

    from thrift_fp.records import TRUST_TIERS
    from thrift_fp.sources.dense._contract import passages_matrix
    from thrift_fp.sources.postgres import _pgvector
    from thrift_fp.sources.postgres._pgvector import nearest_in_sql, search_column

    embedder = remembering_embedder(cache)
    with psycopg.connect(url, autocommit=True) as connection:
        column, why = search_column(connection, collection, embedder.model_id, embedder.dimensions)
        assert column is not None, why
        vectors = {str(k): bytes(v) for k, v in connection.execute(
            "SELECT key, vector FROM thrift_fp_dense_vectors WHERE collection = %s", (collection,)).fetchall()}
        passages = connection.execute(
            "SELECT id, passage_id, trust_tier, content_hash, metadata::text, text FROM thrift_fp_passages"
            " WHERE collection = %s ORDER BY id", (collection,)).fetchall()
        matrix = passages_matrix(embedder, vectors, passages)
        shares: dict[str, list[float]] = {"ef_search_200": [], "ef_search_108": []}
        default_ef = _pgvector.EF_SEARCH
        for question in questions:
            query = embedder.embed([question])[0]
            exact = {matrix.content_hashes[at] for at, _ in matrix.nearest(query, TRUST_TIERS, POOL)}
            for name, ef in (("ef_search_200", default_ef), ("ef_search_108", 0)):
                _pgvector.EF_SEARCH = ef  # type: ignore[misc]  # the benchmark varies the module's setting
                try:
                    found = {digest for _, _, digest, _ in nearest_in_sql(connection, collection, column, query, TRUST_TIERS, POOL)[0]}
                finally:
                    _pgvector.EF_SEARCH = default_ef  # type: ignore[misc]  # restored
                shares[name].append(len(found & exact) / max(1, len(exact)))
    return {name: statistics.mean(values) for name, values in shares.items()} | {"questions": len(questions), "passages": len(matrix.rows)}


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--corpora", default=",".join(CORPORA))
    parser.add_argument("--sets", default="fresh,fresh2")
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "thrift-fp-pgvector-quality")
    args = parser.parse_args(argv)
    print(json.dumps({"machine": machine(), "load_before": load_average()}), flush=True)
    known = corpora()
    with server() as url:
        for name in args.corpora.split(","):
            corpus = known[name]
            if not corpus.root.is_dir():
                print(json.dumps({"corpus": name, "skipped": f"{corpus.root} is not installed"}), flush=True)
                continue
            questions = [q for half in args.sets.split(",") for q in load(name, half)]
            texts = [q.question for q in questions]
            in_process = rank_corpus(corpus.root, corpus.include, corpus.exclude, texts, args.cache, "hybrid")
            on_pgvector = rank_corpus_postgres(url, corpus.root, corpus.include, corpus.exclude, texts, args.cache)
            collection = f"dense-{corpus.root.name}-{_fingerprint(corpus.root, corpus.include, corpus.exclude)}"
            row = {
                "corpus": name,
                "sets": args.sets,
                "in_process": metrics(in_process[0], questions),
                "pgvector": metrics(on_pgvector[0], questions),
                "top10_differs": sum(1 for a, b in zip(in_process[0], on_pgvector[0], strict=True) if a != b),
                "recall@50": recall(url, collection, texts, args.cache),
                "p50_ms": {"in_process": statistics.median(in_process[1]) * 1000,
                           "pgvector": statistics.median(on_pgvector[1]) * 1000},
            }
            print(json.dumps(row), flush=True)
    print(json.dumps({"load_after": load_average()}), flush=True)


if __name__ == "__main__":
    main()
