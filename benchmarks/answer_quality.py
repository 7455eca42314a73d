"""Answer quality on the held-out set (benchmarks/eval/): hit@5, MRR@10 and query latency.

    python -m benchmarks.answer_quality                       # tune half, every installed corpus, every available system
    python -m benchmarks.answer_quality --half report         # the held-out half: publish it, never tune on it
    python -m benchmarks.answer_quality --half fresh          # the fresh set no ranking engineer has seen: run once, frozen ranking
    python -m benchmarks.answer_quality --half fresh2         # the second fresh set, written after the first was seen: run once
    python -m benchmarks.answer_quality --corpora cmake,node --systems bm25,sqlite --misses
    python -m benchmarks.answer_quality --list                # the systems and whether each can run here
    python -m benchmarks answer_quality                       # the tune half, as one workload of the suite

The set: questions written as a user asks them before opening the docs, labelled by hand at
file level before any ranking ran, over five documentation folders that Debian packages install
(``benchmarks/eval/README.md``; ``corpora.json`` gives each root, its include/exclude patterns,
package and version). Every system reads the same files: that selection.

Definition (the one ``benchmarks/retrieval_quality.py`` uses): a question is answered at rank r
when the r-th passage returned comes from one of its labelled files. Passages are counted as
returned, so a system that returns the same file (or the same text) twice spends two ranks on
it. hit@k is the share of questions answered within rank k; MRR@10 is the mean of 1/r over the
first 10 passages (0 when none of them is from a labelled file).

Latency is in process: the wall time of one query call (``search_index(..., limit=10)``, or
BM25's scoring and sort), one call per question after one warm-up call, p50 and p95 over the
questions of the half.

Systems (``SYSTEMS``, name -> `System`; a system ranks the questions of one corpus and gives,
per question, the files of its first 10 passages in order):
- ``bm25``: ``rank_bm25.BM25Okapi`` over paragraphs (blank-line blocks of text files; the text
  of each block element of HTML), words ``\\w+`` lower-cased, English stop words dropped
  (NLTK's list, as ``bm25s`` ships it), Snowball-stemmed (``snowballstemmer``): the bench extra;
- ``sqlite``: thrift_fp's SQLite source through its public API (``thrift_fp.sources.index_paths``
  and ``search_index``);
- ``postgres``: thrift_fp's PostgreSQL source (``thrift_fp.sources.postgres``), one collection per
  corpus, on ``$THRIFT_FP_TEST_PG_URL`` or on a throwaway cluster (``.ci/postgres.sh``) started for
  the run and stopped after it;
- ``dense``, ``hybrid`` and ``hybrid-pg``: the ``[dense]`` extra (``benchmarks/dense_systems.py``):
  the dense model alone, and lexical fused with it on SQLite and on PostgreSQL; listed as
  unavailable and skipped where the extra or its model is not installed.

Cache: index databases are kept under ``--cache`` (default ``$TMPDIR/thrift-fp-answer-quality``)
keyed by corpus and by a fingerprint of the thrift_fp package's source and the corpus selection,
so a second run re-checks the files (nothing changed: nothing re-read) instead of re-indexing,
and a change to the package or the selection starts a fresh database. On
``$THRIFT_FP_TEST_PG_URL`` the PostgreSQL collections are named the same way and persist; a
throwaway cluster is indexed afresh each run. BM25's stemmed paragraphs are cached alike.
"""

from __future__ import annotations

import argparse
import hashlib
import heapq
import importlib.util
import json
import os
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from benchmarks._eval_set import CORPORA, EVAL, SETS, Corpus, Half, Question, corpora, load, relative
from benchmarks._harness import Report, Row, load_average, machine, run_and_print, versions

LIMIT = 10
# A bump of this discards cached BM25 paragraphs (the tokenizer or the paragraph split changed).
BM25_TOKENIZER_VERSION = "1"


@dataclass(frozen=True, slots=True)
class Ranked:
    """What one system did on one corpus: per question, the file (relative to the corpus root)
    of each passage it returned, best first (at most 10, duplicates kept); the in-process wall
    seconds of each question's query; the passages (or paragraphs) it searched; and the index
    run's wall and CPU seconds (a cached index costs only the re-check)."""

    files: tuple[tuple[str, ...], ...]
    latencies: tuple[float, ...]
    passages: int
    index_wall: float
    index_cpu: float


@dataclass(slots=True)
class RunContext:
    """What systems share within one run: the cache folder and, opened on first use, the
    PostgreSQL server's URL (a throwaway cluster is stopped when the run ends)."""

    cache: Path
    stack: ExitStack
    _postgres_url: str | None = field(default=None)

    def postgres_url(self) -> str:
        if self._postgres_url is None:
            from benchmarks.postgres import server

            self._postgres_url = self.stack.enter_context(server())
        return self._postgres_url


RankFunction = Callable[[Corpus, Sequence[str], RunContext], Ranked]


@dataclass(frozen=True, slots=True)
class System:
    """One entry of the registry: ``rank`` (``None`` for a declared slot not wired yet) and
    ``missing``, which names what this machine lacks to run it (``None``: it can run)."""

    name: str
    about: str
    rank: RankFunction | None
    missing: Callable[[], str | None]

    def unavailable(self) -> str | None:
        """Why the system cannot run here, or ``None``."""
        if self.rank is None:
            return "slot not wired yet (filled in with the dense-embedding extra's API)"
        return self.missing()


# -- metrics ---------------------------------------------------------------------------------


def first_answer(files: Sequence[str], wanted: Sequence[str]) -> int | None:
    """The 1-based rank of the first passage from a labelled file, within the first 10.

    >>> first_answer(["a.md", "a.md", "b.md"], ["b.md"]), first_answer(["a.md"], ["b.md"])
    (3, None)
    """
    return next((rank for rank, file in enumerate(files[:LIMIT], start=1) if file in wanted), None)


def metrics(ranked: Sequence[Sequence[str]], questions: Sequence[Question]) -> dict[str, float]:
    """hit@1, hit@5 and MRR@10 of ranked file lists against the questions' labels.

    >>> q = [Question("x-1", "?", ("a.md",)), Question("x-2", "?", ("b.md",))]
    >>> metrics([["a.md"], ["c.md", "b.md"]], q)
    {'hit@1': 0.5, 'hit@5': 1.0, 'MRR@10': 0.75}
    """
    firsts = [first_answer(files, question.files) for files, question in zip(ranked, questions, strict=True)]
    n = len(firsts) or 1
    return {
        "hit@1": sum(1 for r in firsts if r is not None and r <= 1) / n,
        "hit@5": sum(1 for r in firsts if r is not None and r <= 5) / n,
        "MRR@10": sum(1 / r for r in firsts if r is not None) / n,
    }


def percentile(values: Sequence[float], percent: int) -> float:
    """The ``percent``-th percentile (inclusive method), or NaN for no values.

    >>> percentile([1.0, 2.0, 3.0, 4.0, 5.0], 50), percentile([1.0, 2.0, 3.0, 4.0, 5.0], 95)
    (3.0, 4.8)
    """
    if not values:
        return float("nan")
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[percent - 1]


# -- shared plumbing ---------------------------------------------------------------------------


def _fingerprint(corpus: Corpus) -> str:
    """A key that changes with the thrift_fp package's source and with the corpus selection."""
    import thrift_fp

    digest = hashlib.sha256()
    package = Path(thrift_fp.__file__).resolve().parent
    for path in sorted(package.rglob("*.py")):
        digest.update(path.relative_to(package).as_posix().encode())
        digest.update(path.read_bytes())
    digest.update(json.dumps([str(corpus.root), corpus.include, corpus.exclude]).encode())
    return digest.hexdigest()[:16]


def _timed_queries(questions: Sequence[str], query: Callable[[str], list[str]]) -> tuple[list[list[str]], list[float]]:
    if questions:
        query(questions[0])  # warm-up: page cache, prepared statements, lazy imports
    ranked, latencies = [], []
    for question in questions:
        started = time.perf_counter()
        files = query(question)
        latencies.append(time.perf_counter() - started)
        ranked.append(files)
    return ranked, latencies


def _selected(corpus: Corpus) -> list[Path]:
    from thrift_fp.sources import select_files

    selection = select_files([corpus.root], include=list(corpus.include), exclude=list(corpus.exclude)).unwrap()
    return [found.path for found in selection.files]


# -- thrift_fp on SQLite -----------------------------------------------------------------------


def _sqlite(corpus: Corpus, questions: Sequence[str], context: RunContext) -> Ranked:
    from thrift_fp.sources import index_paths, search_index

    database = context.cache / f"{corpus.name}-{_fingerprint(corpus)}.sqlite"
    cpu, wall = time.process_time(), time.perf_counter()
    report = index_paths(database, [corpus.root], include=list(corpus.include), exclude=list(corpus.exclude)).unwrap()
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall

    def query(question: str) -> list[str]:
        return [relative(hit.path, corpus.root) for hit in search_index(database, question, limit=LIMIT).unwrap()]

    ranked, latencies = _timed_queries(questions, query)
    return Ranked(tuple(map(tuple, ranked)), tuple(latencies), report.passages, wall, cpu)


# -- thrift_fp on PostgreSQL -------------------------------------------------------------------


def _postgres_missing() -> str | None:
    if importlib.util.find_spec("psycopg") is None:
        return "psycopg is not installed (the postgres extra)"
    if os.environ.get("THRIFT_FP_TEST_PG_URL"):
        return None
    if not any(Path("/usr/lib/postgresql").glob("*/bin/initdb")):
        return "no $THRIFT_FP_TEST_PG_URL and no PostgreSQL server binaries for a throwaway cluster"
    return None


def _postgres(corpus: Corpus, questions: Sequence[str], context: RunContext) -> Ranked:
    from thrift_fp.sources import postgres

    collection = f"answer-quality-{corpus.name}-{_fingerprint(corpus)}"
    with postgres.open_database(context.postgres_url(), create=True).unwrap() as database:
        cpu, wall = time.process_time(), time.perf_counter()
        report = postgres.index_paths(database, [corpus.root], collection=collection, include=list(corpus.include),
                                      exclude=list(corpus.exclude)).unwrap()
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall

        def query(question: str) -> list[str]:
            hits = postgres.search_index(database, question, collection=collection, limit=LIMIT).unwrap()
            return [relative(hit.path, corpus.root) for hit in hits]

        ranked, latencies = _timed_queries(questions, query)
    return Ranked(tuple(map(tuple, ranked)), tuple(latencies), report.passages, wall, cpu)


# -- BM25 over paragraphs ----------------------------------------------------------------------


_BLOCKS = frozenset({"p", "li", "pre", "h1", "h2", "h3", "h4", "h5", "h6", "dt", "dd", "td", "th", "tr",
                     "div", "blockquote", "table", "section", "caption", "title", "br"})
_SKIPPED = frozenset({"script", "style"})


class _HtmlParagraphs(HTMLParser):
    """The text of an HTML page, one paragraph per block element (the standard library's parser)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.paragraphs: list[str] = []
        self._current: list[str] = []
        self._skipping = 0

    def _flush(self) -> None:
        text = " ".join("".join(self._current).split())
        if text:
            self.paragraphs.append(text)
        self._current = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIPPED:
            self._skipping += 1
        elif tag in _BLOCKS:
            self._flush()

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIPPED:
            self._skipping = max(0, self._skipping - 1)
        elif tag in _BLOCKS:
            self._flush()

    def handle_data(self, data: str) -> None:
        if not self._skipping:
            self._current.append(data)

    def close(self) -> None:
        super().close()
        self._flush()


def paragraphs(path: Path) -> list[str]:
    """The paragraphs BM25 scores: block elements' text for HTML, blank-line blocks otherwise.

    >>> import tempfile
    >>> page = Path(tempfile.mkdtemp()) / "a.html"
    >>> _ = page.write_text("<html><head><style>x{}</style></head><p>One <b>two</b></p><pre>three</pre></html>")
    >>> paragraphs(page)
    ['One two', 'three']
    """
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix.lower() in {".html", ".htm"}:
        parser = _HtmlParagraphs()
        parser.feed(text)
        parser.close()
        return parser.paragraphs
    return [block.strip() for block in re.split(r"\n\s*\n", text) if block.strip()]


def bm25_words() -> Callable[[str], list[str]]:
    """The BM25 tokenizer: ``\\w+`` lower-cased, English stop words dropped, Snowball-stemmed.

    >>> bm25_words()("How do I make the folders?")
    ['make', 'folder']
    >>> bm25_words()("Running totals over ordered rows")
    ['run', 'total', 'order', 'row']
    """
    import snowballstemmer
    from bm25s.stopwords import STOPWORDS_EN_PLUS  # NLTK's English list (179 words)

    stop = frozenset(STOPWORDS_EN_PLUS)
    stemmer = snowballstemmer.stemmer("english")

    def words(text: str) -> list[str]:
        kept = [word for word in re.findall(r"\w+", text.lower()) if word not in stop]
        stemmed: list[str] = stemmer.stemWords(kept)
        return stemmed

    return words


def _bm25_missing() -> str | None:
    absent = [name for name in ("rank_bm25", "snowballstemmer", "bm25s") if importlib.util.find_spec(name) is None]
    return f"{', '.join(absent)} not installed (the bench extra)" if absent else None


def _bm25(corpus: Corpus, questions: Sequence[str], context: RunContext) -> Ranked:
    from rank_bm25 import BM25Okapi  # untyped; mypy.ini ignores its missing types

    words = bm25_words()
    cpu, wall = time.process_time(), time.perf_counter()
    files = _selected(corpus)
    key = hashlib.sha256(json.dumps([BM25_TOKENIZER_VERSION, [(str(p), p.stat().st_mtime_ns, p.stat().st_size)
                                                              for p in files]]).encode()).hexdigest()[:16]
    cached = context.cache / f"{corpus.name}-bm25-{key}.json"
    if cached.exists():
        table: list[list[Any]] = json.loads(cached.read_text(encoding="utf-8"))
    else:
        table = [[relative(str(path), corpus.root), tokens]
                 for path in files for paragraph in paragraphs(path) if (tokens := words(paragraph))]
        cached.write_text(json.dumps(table), encoding="utf-8")
    model = BM25Okapi([tokens for _, tokens in table])
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall

    def query(question: str) -> list[str]:
        scores = model.get_scores(words(question))
        # nlargest is sorted(..., reverse=True)[:LIMIT]: ties keep file order. Like a search, it
        # returns only paragraphs that match (a positive score), not the best of the rest.
        best = heapq.nlargest(LIMIT, range(len(scores)), key=scores.__getitem__)
        return [str(table[i][0]) for i in best if scores[i] > 0]

    ranked, latencies = _timed_queries(questions, query)
    return Ranked(tuple(map(tuple, ranked)), tuple(latencies), len(table), wall, cpu)


# -- the registry ------------------------------------------------------------------------------


def _always() -> str | None:
    return None


def _dense_missing() -> str | None:
    from benchmarks import dense_systems

    return dense_systems.missing()


def _hybrid_postgres_missing() -> str | None:
    return _dense_missing() or _postgres_missing()


def _dense(corpus: Corpus, questions: Sequence[str], context: RunContext) -> Ranked:
    from benchmarks import dense_systems

    return Ranked(*dense_systems.rank_corpus(corpus.root, corpus.include, corpus.exclude, questions, context.cache,
                                             "dense"))


def _hybrid(corpus: Corpus, questions: Sequence[str], context: RunContext) -> Ranked:
    from benchmarks import dense_systems

    return Ranked(*dense_systems.rank_corpus(corpus.root, corpus.include, corpus.exclude, questions, context.cache,
                                             "hybrid"))


def _hybrid_postgres(corpus: Corpus, questions: Sequence[str], context: RunContext) -> Ranked:
    from benchmarks import dense_systems

    return Ranked(*dense_systems.rank_corpus_postgres(context.postgres_url(), corpus.root, corpus.include,
                                                      corpus.exclude, questions, context.cache))


SYSTEMS: dict[str, System] = {
    "bm25": System("bm25", "BM25Okapi over paragraphs, stemmed, stop words dropped", _bm25, _bm25_missing),
    "sqlite": System("sqlite", "thrift_fp lexical, SQLite source (index_paths + search_index)", _sqlite, _always),
    "postgres": System("postgres", "thrift_fp lexical, PostgreSQL source (thrift_fp.sources.postgres)",
                       _postgres, _postgres_missing),
    # The dense-embedding extra (benchmarks/dense_systems.py imports it lazily).
    "dense": System("dense", "the dense embedding model alone (SQLite)", _dense, _dense_missing),
    "hybrid": System("hybrid", "lexical fused with dense embeddings, SQLite source", _hybrid, _dense_missing),
    "hybrid-pg": System("hybrid-pg", "lexical fused with dense embeddings, PostgreSQL source", _hybrid_postgres,
                        _hybrid_postgres_missing),
}
BASELINES = ("bm25", "sqlite", "postgres")


# -- running -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Result:
    """One system on one corpus's half: its metrics, latency and what it missed at rank 5."""

    corpus: str
    system: str
    questions: int
    scores: dict[str, float]
    p50_ms: float
    p95_ms: float
    passages: int
    index_wall: float
    index_cpu: float
    misses: tuple[str, ...]


def default_cache() -> Path:
    """The cache folder used when none is given."""
    return Path(tempfile.gettempdir()) / "thrift-fp-answer-quality"


def evaluate(half: Half, corpus_names: Sequence[str], system_names: Sequence[str], cache: Path,
             progress: Callable[[str], None] = lambda line: None, folder: Path = EVAL) -> list[Result]:
    """Run the named systems on the named corpora's ``half`` (of the set in ``folder``); corpora
    not installed and systems unavailable here are reported through ``progress`` and skipped."""
    cache.mkdir(parents=True, exist_ok=True)
    known = corpora(folder)
    results = []
    with ExitStack() as stack:
        context = RunContext(cache, stack)
        for name in corpus_names:
            corpus = known[name]
            if not corpus.root.is_dir():
                progress(f"{name}: {corpus.root} is missing (apt-get install {corpus.package}); skipped")
                continue
            questions = load(name, half, folder)
            texts = [question.question for question in questions]
            for system_name in system_names:
                system = SYSTEMS[system_name]
                reason = system.unavailable()
                if reason is not None:
                    progress(f"{name} {system_name}: unavailable ({reason}); skipped")
                    continue
                assert system.rank is not None  # unavailable() says so when it is None
                ranked = system.rank(corpus, texts, context)
                misses = tuple(question.id for files, question in zip(ranked.files, questions, strict=True)
                               if not set(files[:5]) & set(question.files))
                result = Result(name, system_name, len(questions), metrics(ranked.files, questions),
                                percentile(ranked.latencies, 50) * 1000, percentile(ranked.latencies, 95) * 1000,
                                ranked.passages, ranked.index_wall, ranked.index_cpu, misses)
                progress(_row(result))
                results.append(result)
    return results


_HEADER = (f"{'corpus':11}{'system':9}{'n':>4}{'hit@1':>7}{'hit@5':>7}{'MRR@10':>8}{'p50 ms':>8}{'p95 ms':>8}"
           f"{'passages':>10}{'index s':>9}")


def _row(result: Result) -> str:
    s = result.scores
    return (f"{result.corpus:11}{result.system:9}{result.questions:4d}{s['hit@1']:7.3f}{s['hit@5']:7.3f}"
            f"{s['MRR@10']:8.3f}{result.p50_ms:8.1f}{result.p95_ms:8.1f}{result.passages:10d}{result.index_wall:9.1f}")


def table(results: Sequence[Result]) -> str:
    """The results as the table the script prints."""
    return "\n".join([_HEADER, *(_row(result) for result in results)])


def _mean(results: Sequence[Result], system: str, key: str) -> float | None:
    values = [result.scores[key] for result in results if result.system == system]
    return statistics.fmean(values) if values else None


def run(folder: Path = EVAL, corpus_names: Sequence[str] = CORPORA, system_names: Sequence[str] | None = None,
        cache: Path | None = None) -> Report:
    """The suite's workload: every system that can run here (all of them unless named) on the
    tune half of every installed corpus. Headline: thrift_fp on SQLite against BM25, mean hit@5
    over corpora; rows: MRR@10 likewise, the two stores' worst hit@5 gap, SQLite's worst p95."""
    systems = [name for name in (system_names or SYSTEMS) if SYSTEMS[name].unavailable() is None]
    results = evaluate("tune", corpus_names, systems, cache or default_cache(),
                       progress=lambda line: print(line, flush=True), folder=folder)
    sqlite, bm25 = _mean(results, "sqlite", "hit@5"), _mean(results, "bm25", "hit@5")
    gap = (sqlite - bm25) if sqlite is not None and bm25 is not None else float("nan")
    rows = []
    sqlite_mrr, bm25_mrr = _mean(results, "sqlite", "MRR@10"), _mean(results, "bm25", "MRR@10")
    if sqlite_mrr is not None and bm25_mrr is not None:
        rows.append(Row("sqlite MRR@10 - bm25 MRR@10 (mean over corpora, tune half)", sqlite_mrr - bm25_mrr,
                        ">= 0", sqlite_mrr >= bm25_mrr))
    by_store = {(result.corpus, result.system): result.scores["hit@5"] for result in results}
    gaps = [abs(by_store[(corpus, "postgres")] - by_store[(corpus, "sqlite")])
            for corpus, system in by_store if system == "sqlite" and (corpus, "postgres") in by_store]
    if gaps:
        rows.append(Row("|postgres hit@5 - sqlite hit@5| (worst corpus, tune half)", max(gaps), "<= 0.02",
                        max(gaps) <= 0.02))
    p95 = [result.p95_ms for result in results if result.system == "sqlite"]
    if p95:
        rows.append(Row("sqlite query p95 ms (worst corpus)", max(p95), "<= 50", max(p95) <= 50))
    return Report(
        workload="answer_quality",
        headline="sqlite hit@5 - bm25 hit@5 (mean over corpora, tune half)",
        value=gap,
        target=">= 0",
        met=gap >= 0,
        inputs=(("set", "benchmarks/eval/ (tune half)"), ("systems", ", ".join(systems)),
                ("corpora", ", ".join(sorted({result.corpus for result in results})))),
        figures=tuple((f"{result.corpus} {result.system}", _row(result)) for result in results),
        rows=tuple(rows),
    )


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.answer_quality")
    parser.add_argument("--half", choices=SETS, default="tune")
    parser.add_argument("--corpora", default=",".join(CORPORA), help=f"comma-separated, of {', '.join(CORPORA)}")
    parser.add_argument("--systems", default=",".join(SYSTEMS), help=f"comma-separated, of {', '.join(SYSTEMS)}")
    parser.add_argument("--cache", type=Path, default=default_cache(), help="folder for cached indexes")
    parser.add_argument("--misses", action="store_true", help="list the ids missed at rank 5 (tune half only)")
    parser.add_argument("--json", type=Path, help="also write the results to this file")
    parser.add_argument("--list", action="store_true", help="list the systems and whether each can run here")
    args = parser.parse_args(argv)
    if args.list:
        for system in SYSTEMS.values():
            reason = system.unavailable()
            print(f"{system.name:10}{'available' if reason is None else 'unavailable: ' + reason:40}  {system.about}")
        return 0
    names = [name for name in args.corpora.split(",") if name]
    chosen = [name for name in args.systems.split(",") if name]
    unknown = [name for name in names if name not in CORPORA] + [name for name in chosen if name not in SYSTEMS]
    if unknown:
        print(f"unknown corpus or system: {', '.join(unknown)}", file=sys.stderr)
        return 2
    if args.misses and args.half != "tune":
        print("--misses shows questions; it is for the tune half only", file=sys.stderr)
        return 2
    print("machine: " + ", ".join(f"{key} {value}" for key, value in machine().items()))
    print("versions: " + ", ".join(f"{key} {value}" for key, value in versions().items()))
    print(f"half {args.half}; load average before {load_average()}\n{_HEADER}", flush=True)
    results = evaluate(args.half, names, chosen, args.cache, progress=lambda line: print(line, flush=True))
    print(f"load average after {load_average()}\n\n{table(results)}")
    if args.misses:
        questions = {q.id: q.question for name in names for q in load(name, "tune")}
        for result in results:
            print(f"{result.corpus} {result.system} misses at 5: "
                  + "; ".join(f"{miss} {questions[miss]!r}" for miss in result.misses))
    if args.json:
        args.json.write_text(json.dumps([{
            "corpus": r.corpus, "system": r.system, "half": args.half, "questions": r.questions, **r.scores,
            "p50_ms": r.p50_ms, "p95_ms": r.p95_ms, "passages": r.passages, "index_wall_s": r.index_wall,
            "index_cpu_s": r.index_cpu, "misses": list(r.misses)} for r in results], indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
