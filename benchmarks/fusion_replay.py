"""Replay fusion rules in memory over the candidate lists of every evaluation question.

    python -m benchmarks.fusion_replay --cache /tmp/aq-cache [--corpora cmake,node] [--depth 100]

For each corpus whose dense index (``<root name>-*-dense.sqlite``, as `benchmarks.dense_systems`
builds it) is in ``--cache``, every question of both halves is asked once: the lexical ranking's
``--depth`` best passages with their scores, and for every candidate either side found, its exact
lexical score and its exact cosine with the question. Fusion rules are then replayed over those
lists without touching the index again, and hit@5 / MRR@10 (file level, duplicates counted, as
`benchmarks.answer_quality`) are printed per corpus and half. Nothing is written.
"""

from __future__ import annotations

import argparse
import json
import math
import pickle
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from benchmarks._eval_set import Half, corpora, load, relative

TIERS = ("first-party", "third-party-public", "third-party-private")


@dataclass(frozen=True, slots=True)
class Candidate:
    """One distinct content a question's lists hold: its file, lexical share, cosine and ranks."""

    key: str
    path: str
    lexical: float  # the exact lexical share in [0, 1] (0: no question term)
    cosine: float
    lexical_rank: int | None  # rank in the lexical pool (None: not in it)
    dense_rank: int | None


@dataclass(frozen=True, slots=True)
class Asked:
    corpus: str
    half: str
    labels: frozenset[str]
    candidates: tuple[Candidate, ...]


def _holds(database: Path, root: Path) -> bool:
    # Two corpora's roots may share a name (PostgreSQL's and Python's ``html``): check a passage.
    import sqlite3

    connection = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    try:
        row = connection.execute("SELECT path FROM passages LIMIT 1").fetchone()
    except sqlite3.Error:
        return False
    finally:
        connection.close()
    return row is not None and str(row[0]).startswith(str(root))


def collect(cache: Path, names: Sequence[str], depth: int, halves: Sequence[str] = ("tune", "report")) -> list[Asked]:
    """Ask every question of ``names`` once; the candidates of both lists, with both exact scores."""
    import sqlite3

    import numpy as np

    from thrift_fp.sources.dense import default_embedder
    from thrift_fp.sources.sqlite._dense import _matrix
    from thrift_fp.sources.ranking._analyze import query_words
    from thrift_fp.sources.ranking._score import Candidate as Fields, CollectionStats, passage_score, term_idfs
    from thrift_fp.sources.sqlite import _search

    embedder = default_embedder().unwrap()
    asked: list[Asked] = []
    for name in names:
        corpus = corpora()[name]
        found = sorted(
            (p for p in cache.glob(f"{corpus.root.name}-*-dense.sqlite") if _holds(p, corpus.root)),
            key=lambda p: p.stat().st_mtime,
        )
        if not found:
            print(f"{name}: no dense index in {cache}", file=sys.stderr)
            continue
        database = found[-1]
        connection = sqlite3.connect(database)
        matrix = _matrix(database, connection, embedder)
        assert matrix is not None
        paths = {int(row): str(path) for row, path in connection.execute("SELECT id, path FROM passages")}
        analyzer = str(connection.execute("SELECT value FROM meta WHERE key = 'analyzer'").fetchone()[0])
        passages, body, heading, trail = connection.execute(_search._STATS).fetchone()
        stats = CollectionStats(int(passages), int(body), int(heading), int(trail))
        position_of = {row: at for at, row in enumerate(matrix.rows)}
        started = time.perf_counter()
        for half in halves:
            for question in load(name, cast(Half, half)):
                terms = query_words(question.question, analyzer)
                lexical = _search._ranked(connection, terms, list(TIERS), depth)[0] if terms else ()
                vector = embedder.embed([question.question])[0]
                cosines = np.einsum("ij,j->i", matrix.matrix, np.frombuffer(vector, dtype="<f4"))
                near = matrix.nearest(vector, TIERS, depth)
                rows: dict[str, int] = {}
                lexical_rank: dict[str, int] = {}
                dense_rank: dict[str, int] = {}
                for rank, scored in enumerate(lexical, start=1):
                    rows.setdefault(scored.content_hash, scored.key)
                    lexical_rank.setdefault(scored.content_hash, rank)
                for rank, (at, _) in enumerate(near, start=1):
                    rows.setdefault(matrix.content_hashes[at], matrix.rows[at])
                    dense_rank.setdefault(matrix.content_hashes[at], rank)
                # Exact lexical share of every candidate (the dense ones were not in the pool).
                df = {t: int(connection.execute(_search._COUNT, ('"' + t + '"',)).fetchone()[0]) for t in terms}
                idfs = term_idfs(terms, stats, df)
                ideal = math.fsum(idfs[t] for t in terms)
                fields = {
                    key: Fields(key, pid, digest, b, h, t, (lb, lh, lt))
                    for key, pid, digest, b, h, t, lb, lh, lt in connection.execute(
                        _search._FIELDS, (json.dumps(list(rows.values())),)
                    )
                }
                candidates = tuple(
                    Candidate(
                        digest,
                        relative(paths[row], corpus.root),
                        min(1.0, passage_score(terms, idfs, fields[row], stats) / ideal) if ideal > 0 else 0.0,
                        float(cosines[position_of[row]]) if row in position_of else -1.0,
                        lexical_rank.get(digest),
                        dense_rank.get(digest),
                    )
                    for digest, row in rows.items()
                )
                asked.append(Asked(name, half, frozenset(question.files), candidates))
        connection.close()
        print(f"{name}: {database.name}, {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return asked


Rule = Callable[[Sequence[Candidate]], list[Candidate]]


def _ordered(candidates: Sequence[Candidate], score: Callable[[Candidate], float]) -> list[Candidate]:
    return sorted(candidates, key=lambda c: (-score(c), c.lexical_rank or 10**6, c.dense_rank or 10**6, c.key))


def lexical_only(pool: int) -> Rule:
    return lambda cs: _ordered([c for c in cs if c.lexical_rank and c.lexical_rank <= pool], lambda c: -c.lexical_rank)  # type: ignore[operator]


def dense_only(pool: int) -> Rule:
    return lambda cs: _ordered([c for c in cs if c.dense_rank and c.dense_rank <= pool], lambda c: -c.dense_rank)  # type: ignore[operator]


def rrf(k: float, weight: float, lexical_pool: int, dense_pool: int) -> Rule:
    def rule(cs: Sequence[Candidate]) -> list[Candidate]:
        def score(c: Candidate) -> float:
            lex = 1 / (k + c.lexical_rank) if c.lexical_rank and c.lexical_rank <= lexical_pool else 0.0
            den = weight / (k + c.dense_rank) if c.dense_rank and c.dense_rank <= dense_pool else 0.0
            return lex + den
        return _ordered([c for c in cs if score(c) > 0], score)
    return rule


def convex(alpha: float, lexical_pool: int, dense_pool: int, floor: float = 0.0) -> Rule:
    """alpha x lexical share + (1 - alpha) x cosine rescaled from [floor, 1] to [0, 1], both exact
    for every candidate of either pool."""
    def rule(cs: Sequence[Candidate]) -> list[Candidate]:
        pool = [
            c for c in cs
            if (c.lexical_rank and c.lexical_rank <= lexical_pool) or (c.dense_rank and c.dense_rank <= dense_pool)
        ]
        return _ordered(pool, lambda c: alpha * c.lexical + (1 - alpha) * max(0.0, (c.cosine - floor) / (1 - floor)))
    return rule


def convex_minmax(alpha: float, lexical_pool: int, dense_pool: int) -> Rule:
    """Bruch et al.'s min-max over the union of the pools, both scores exact."""
    def rule(cs: Sequence[Candidate]) -> list[Candidate]:
        pool = [
            c for c in cs
            if (c.lexical_rank and c.lexical_rank <= lexical_pool) or (c.dense_rank and c.dense_rank <= dense_pool)
        ]
        if not pool:
            return []
        lo_l, hi_l = min(c.lexical for c in pool), max(c.lexical for c in pool)
        lo_d, hi_d = min(c.cosine for c in pool), max(c.cosine for c in pool)

        def score(c: Candidate) -> float:
            lex = (c.lexical - lo_l) / (hi_l - lo_l) if hi_l > lo_l else 0.0
            den = (c.cosine - lo_d) / (hi_d - lo_d) if hi_d > lo_d else 0.0
            return alpha * lex + (1 - alpha) * den
        return _ordered(pool, score)
    return rule


def diversified(rule: Rule, cap: int) -> Rule:
    """``rule``'s order with at most ``cap`` passages per file before every file's turn is over:
    a passage past its file's cap waits until the end."""
    def diversify(cs: Sequence[Candidate]) -> list[Candidate]:
        counts: dict[str, int] = {}
        first: list[Candidate] = []
        later: list[Candidate] = []
        for c in rule(cs):
            counts[c.path] = counts.get(c.path, 0) + 1
            (first if counts[c.path] <= cap else later).append(c)
        return first + later
    return diversify


def penalised(alpha: float, dense_pool: int, factor: float, lexical: bool = False) -> Rule:
    """Greedy: each next passage is the one of highest fused score x ``factor`` ** (passages of
    its file already taken), so order and shown score agree (a demoted score is the score shown)."""
    def rule(cs: Sequence[Candidate]) -> list[Candidate]:
        if lexical:
            pool = [c for c in cs if c.lexical_rank and c.lexical_rank <= 100]
            base = {c.key: c.lexical for c in pool}
        else:
            pool = [c for c in cs if c.dense_rank and c.dense_rank <= dense_pool]
            base = {c.key: alpha * c.lexical + (1 - alpha) * max(0.0, c.cosine) for c in pool}
        taken: dict[str, int] = {}
        out: list[Candidate] = []
        left = _ordered(pool, lambda c: base[c.key])
        while left and len(out) < 10:
            best = max(left, key=lambda c: (base[c.key] * factor ** taken.get(c.path, 0), -left.index(c)))
            left.remove(best)
            out.append(best)
            taken[best.path] = taken.get(best.path, 0) + 1
        return out
    return rule


def measure(asked: Sequence[Asked], rule: Rule) -> tuple[float, float]:
    hits = 0
    reciprocal = 0.0
    for one in asked:
        files = [c.path for c in rule(one.candidates)[:10]]
        ranks = [at for at, path in enumerate(files, start=1) if path in one.labels]
        hits += bool(ranks and ranks[0] <= 5)
        reciprocal += 1 / ranks[0] if ranks else 0.0
    return hits / max(len(asked), 1), reciprocal / max(len(asked), 1)


def rules() -> dict[str, Rule]:
    found: dict[str, Rule] = {
        "lexical": lexical_only(100),
        "dense": dense_only(100),
        "rrf k60 w1.5 50/50 (old)": rrf(60, 1.5, 50, 50),
        "rrf k5 w1.5 50/50": rrf(5, 1.5, 50, 50),
    }
    for alpha in (0.1, 0.2, 0.3, 0.4, 0.5):
        for lp, dp in ((50, 50), (10, 50), (0, 50), (0, 100), (10, 20), (5, 30)):
            found[f"convex a{alpha} {lp}/{dp}"] = convex(alpha, lp, dp)
    for alpha in (0.2, 0.3):
        found[f"minmax a{alpha} 10/50"] = convex_minmax(alpha, 10, 50)
    for factor in (0.5, 0.7, 0.8, 0.9):
        found[f"pen{factor}"] = penalised(0.2, 50, factor)
        found[f"lex pen{factor}"] = penalised(0.2, 50, factor, lexical=True)
    found["lex cap1"] = diversified(lexical_only(100), 1)
    for cap in (1, 2, 3):
        found[f"convex a0.2 0/50 cap{cap}"] = diversified(convex(0.2, 0, 50), cap)
        found[f"dense cap{cap}"] = diversified(dense_only(100), cap)
    return found


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cache", type=Path, required=True)
    parser.add_argument("--corpora", default="cmake,node,postgresql,python,git")
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--save", type=Path, default=Path("/tmp/ranking-replay"),
                        help="where the collected lists are kept between runs (a corpus is asked once)")
    parser.add_argument("--only", default="", help="comma-separated rule names (default: every rule)")
    parser.add_argument("--halves", default="tune,report", help="the sets whose questions are asked (seen ones only)")
    args = parser.parse_args(argv)
    args.save.mkdir(parents=True, exist_ok=True)
    halves = args.halves.split(",")
    saved = args.save / f"fusion-replay-{args.depth}-{'-'.join(halves)}.pickle"
    asked: list[Asked] = []
    if saved.exists():
        asked = [a for a in pickle.loads(saved.read_bytes()) if a.corpus in args.corpora.split(",")]
    have = {a.corpus for a in asked}
    todo = [name for name in args.corpora.split(",") if name not in have]
    if todo:
        asked += collect(args.cache, todo, args.depth, halves)
        saved.write_bytes(pickle.dumps(asked))
    groups = sorted({(a.corpus, a.half) for a in asked})
    chosen = rules()
    if args.only:
        chosen = {name: rule for name, rule in chosen.items() if name in args.only.split(",")}
    print("rule".ljust(28) + "".join(f"{c[:5]}/{h[:3]}".rjust(13) for c, h in groups) + "   mean")
    for name, rule in chosen.items():
        cells = [measure([a for a in asked if (a.corpus, a.half) == group], rule) for group in groups]
        mean = sum(h + m for h, m in cells) / max(len(cells), 1)
        print(name.ljust(28) + "".join(f"{h:.3f}/{m:.3f}".rjust(13) for h, m in cells) + f"  {mean:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
