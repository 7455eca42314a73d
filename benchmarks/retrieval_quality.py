"""Retrieval quality and indexing speed on real documentation found on this machine.

    python -m benchmarks.retrieval_quality            # quality: hit@1, hit@5, MRR@10
    python -m benchmarks.retrieval_quality --no-postgres   # quality without the PostgreSQL rows
    python -m benchmarks.retrieval_quality --speed    # indexing CPU/wall, A-B-B-A, equal work
    python -m benchmarks.retrieval_quality --stdlib   # index the Python standard library folder

Corpora (documentation that ships with installed packages, nobody here wrote it):
Node.js's API reference (``/usr/share/doc/nodejs/api/*.md``, Debian's ``nodejs`` package)
and CMake's reference (``/usr/share/cmake-*/Help/**/*.rst``, Debian's ``cmake-data``).
Each question below was written as a user would ask it, and the files that answer it
were labelled by hand, before any ranking was run. A question is answered at rank r when
the r-th passage returned comes from one of its files.

Rankers, on the same corpus and the same questions:
- ``today``: the package at ``--baseline`` (default: the commit this work started from),
  extracted with ``git archive`` and run in a child process through its public API;
- ``new``: this working tree, through the same API in the same kind of child process;
- ``postgres``: this working tree's PostgreSQL source (``thrift_fp.sources.postgres``: the same
  selection of files, the same questions, ``search_index(limit=10)``) in a fresh schema of
  ``$THRIFT_FP_TEST_PG_URL``, or of a throwaway cluster started with ``.ci/postgres.sh``;
- ``bm25``: ``rank_bm25.BM25Okapi`` over blank-line paragraphs, words as ``\\w+`` lower-cased.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import secrets
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from io import BytesIO
from pathlib import Path
from urllib.parse import quote

REPO = Path(__file__).resolve().parent.parent
BASELINE = "1262e3c"
NODE = Path("/usr/share/doc/nodejs/api")
CMAKE = next(iter(sorted(Path("/usr/share").glob("cmake-*/Help"))), Path("/usr/share/cmake/Help"))
SPEED_CORPUS = Path("/usr/share/doc")
# Today's selection of suffixes, so both sides read the same files (equal work).
SPEED_INCLUDE = ["*.md", "*.markdown", "*.txt", "*.text", "*.rst", "*.jsonl"]
STDLIB = Path(sys.base_prefix) / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}"

# (question, files that answer it), labelled by hand.
NODE_QUESTIONS: list[tuple[str, list[str]]] = [
    ("How do I create an HTTP server?", ["http.md"]),
    ("read a file asynchronously with promises", ["fs.md"]),
    ("spawn a child process and capture its output", ["child_process.md"]),
    ("join two path segments into one path", ["path.md"]),
    ("generate a random UUID", ["crypto.md", "webcrypto.md"]),
    ("listen for an event only once", ["events.md"]),
    ("convert a buffer to a base64 string", ["buffer.md"]),
    ("run CPU-heavy JavaScript in parallel threads", ["worker_threads.md"]),
    ("parse a URL and read its query parameters", ["url.md", "querystring.md"]),
    ("get the number of CPUs on the machine", ["os.md"]),
    ("read environment variables", ["process.md", "cli.md"]),
    ("schedule a function to run after a delay", ["timers.md"]),
    ("create a TCP server", ["net.md"]),
    ("resolve a hostname to an IP address", ["dns.md"]),
    ("compress data with gzip", ["zlib.md"]),
    ("read a file line by line", ["readline.md"]),
    ("format a string like printf", ["util.md"]),
    ("assert that two objects are deeply equal", ["assert.md"]),
    ("share a port between several worker processes", ["cluster.md"]),
    ("create an HTTPS server with a certificate and key", ["https.md", "tls.md"]),
    ("run code in a sandboxed context", ["vm.md"]),
    ("write unit tests with the built-in test runner", ["test.md"]),
    ("use import.meta in an ES module", ["esm.md"]),
    ("what does the exports field in package.json do", ["packages.md"]),
    ("measure how long an operation takes with a high resolution timer", ["perf_hooks.md"]),
    ("keep context across asynchronous callbacks with AsyncLocalStorage", ["async_context.md"]),
    ("pipe a readable stream into a writable stream with backpressure", ["stream.md"]),
    ("write a native addon in C++", ["addons.md", "n-api.md"]),
    ("what does the --inspect flag do", ["cli.md", "debugger.md", "inspector.md"]),
    ("what does the error code ERR_INVALID_ARG_TYPE mean", ["errors.md"]),
    ("watch a file for changes", ["fs.md"]),
    ("sign data with a private key", ["crypto.md"]),
    ("start an interactive REPL programmatically", ["repl.md"]),
    ("send UDP datagrams", ["dgram.md"]),
    ("fsPromises.readFile", ["fs.md"]),
    ("http.createServer", ["http.md"]),
]
CMAKE_QUESTIONS: list[tuple[str, list[str]]] = [
    ("link a library to a target", ["command/target_link_libraries.rst"]),
    ("add an executable target built from source files", ["command/add_executable.rst"]),
    ("find an installed package and load its config file", ["command/find_package.rst"]),
    ("set the C++ standard a target is compiled with", ["prop_tgt/CXX_STANDARD.rst", "variable/CMAKE_CXX_STANDARD.rst"]),
    ("add include directories to a target", ["command/target_include_directories.rst"]),
    ("run a command at build time to generate a file", ["command/add_custom_command.rst"]),
    ("copy a file and replace @VAR@ placeholders in it", ["command/configure_file.rst"]),
    ("define a preprocessor macro for one target", ["command/target_compile_definitions.rst"]),
    ("loop over the items of a list", ["command/foreach.rst"]),
    ("print a warning while configuring", ["command/message.rst"]),
    ("install targets and header files", ["command/install.rst"]),
    ("download a dependency at configure time", ["module/FetchContent.rst"]),
    ("register a test to be run by ctest", ["command/add_test.rst", "command/enable_testing.rst"]),
    ("build a shared library", ["command/add_library.rst", "variable/BUILD_SHARED_LIBS.rst"]),
    ("require a minimum CMake version", ["command/cmake_minimum_required.rst"]),
    ("run an external process during configuration and capture its output", ["command/execute_process.rst"]),
    ("replace a substring of a string with a regular expression", ["command/string.rst"]),
    ("where does find_package look: CMAKE_PREFIX_PATH", ["variable/CMAKE_PREFIX_PATH.rst"]),
    ("choose a Debug or Release build type", ["variable/CMAKE_BUILD_TYPE.rst"]),
    ("target_link_libraries", ["command/target_link_libraries.rst"]),
    ("generate compile_commands.json for tools", ["variable/CMAKE_EXPORT_COMPILE_COMMANDS.rst"]),
    ("policy CMP0077: option honors normal variables", ["policy/CMP0077.rst"]),
]

# Runs inside a child process, with PYTHONPATH naming either package: index, then ask.
_CHILD = r"""
import json, os, sys, time
from pathlib import Path
# An editable install's import hook would win over PYTHONPATH: drop it, import the tree named.
sys.meta_path = [f for f in sys.meta_path if "editable" not in type(f).__module__]
sys.path.insert(0, os.environ["THRIFT_FP_TREE"])
job = json.load(sys.stdin)
if job.get("url"):  # the PostgreSQL source: the same calls on an open database
    from thrift_fp.sources import postgres
    db = postgres.open_database(job["url"], create=True).unwrap()
    index_paths, search_index = postgres.index_paths, postgres.search_index
else:
    from thrift_fp.sources import index_paths, search_index
    db = Path(job["db"])
assert Path(sys.modules["thrift_fp"].__file__).is_relative_to(os.environ["THRIFT_FP_TREE"])
options = {"include": job["include"]} if job.get("include") else {}
cpu, wall = time.process_time(), time.perf_counter()
report = index_paths(db, [Path(job["root"])], **options)
cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
if report.__class__.__name__ == "Failure":
    print(json.dumps({"error": report.failure().message})); sys.exit(0)
answers = []
for question in job["questions"]:
    hits = search_index(db, question, limit=10).unwrap()
    answers.append([[h.source, h.score] for h in hits])
print(json.dumps({"cpu": cpu, "wall": wall, "passages": report.unwrap().passages, "answers": answers}))
"""


def _baseline_tree(ref: str, into: Path) -> Path:
    archive = subprocess.run(["git", "-C", str(REPO), "archive", ref, "thrift_fp"], capture_output=True, check=True)
    with tarfile.open(fileobj=BytesIO(archive.stdout)) as tar:
        tar.extractall(into, filter="data")
    return into


def _child(
    package_root: Path, root: Path, questions: Sequence[str], include: Sequence[str] = (), url: str | None = None
) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as scratch:
        job = {"db": str(Path(scratch) / "index.db"), "root": str(root), "questions": list(questions),
               "include": list(include), "url": url}
        env = {**os.environ, "THRIFT_FP_TREE": str(package_root)}
        done = subprocess.run([sys.executable, "-c", _CHILD], input=json.dumps(job), env=env,
                              capture_output=True, text=True, check=True)
        result: dict[str, object] = json.loads(done.stdout)
        return result


def _relative(source: str, root: Path) -> str:
    # Labels are "<root name>/<path inside root>".
    return source.split("/", 1)[1] if source.startswith(root.name + "/") else source


def _bm25(root: Path, pattern: str, questions: Sequence[str]) -> list[list[str]]:
    from rank_bm25 import BM25Okapi  # untyped; mypy.ini ignores its missing types

    paragraphs: list[tuple[str, list[str]]] = []
    for path in sorted(root.rglob(pattern)):
        for paragraph in re.split(r"\n\s*\n", path.read_text(encoding="utf-8", errors="replace")):
            words = re.findall(r"\w+", paragraph.lower())
            if words:
                paragraphs.append((path.relative_to(root).as_posix(), words))
    model = BM25Okapi([words for _, words in paragraphs])
    ranked = []
    for question in questions:
        scores = model.get_scores(re.findall(r"\w+", question.lower()))
        best = sorted(range(len(scores)), key=lambda i: -scores[i])[:10]
        ranked.append([paragraphs[i][0] for i in best])
    return ranked


def _metrics(ranked: list[list[str]], relevant: list[list[str]]) -> dict[str, float]:
    firsts = [next((r for r, f in enumerate(files, start=1) if f in wanted), None)
              for files, wanted in zip(ranked, relevant, strict=True)]
    n = len(firsts)
    return {
        "hit@1": sum(1 for r in firsts if r is not None and r <= 1) / n,
        "hit@5": sum(1 for r in firsts if r is not None and r <= 5) / n,
        "MRR@10": sum(1 / r for r in firsts if r is not None) / n,
    }


@contextmanager
def _postgres_schema() -> Iterator[str]:
    """A fresh, empty schema's URL on the benchmark server (dropped afterwards)."""
    import psycopg

    from benchmarks.postgres import server

    with server() as base:
        schema = f"quality_{secrets.token_hex(4)}"
        with psycopg.connect(base, autocommit=True) as admin:
            admin.execute(f"CREATE SCHEMA {schema}")
        try:
            separator = "&" if "?" in base else "?"
            yield f"{base}{separator}options={quote(f'-csearch_path={schema}', safe='')}"
        finally:
            with psycopg.connect(base, autocommit=True) as admin:
                admin.execute(f"DROP SCHEMA {schema} CASCADE")


def _ranked_child(ranker: str, old: Path, root: Path, questions: Sequence[str]) -> dict[str, object]:
    # The same files on every side: today's suffixes (new would add Node's .html twins).
    if ranker == "today":
        return _child(old, root, questions)
    if ranker == "new":
        return _child(REPO, root, questions, SPEED_INCLUDE)
    with _postgres_schema() as url:
        return _child(REPO, root, questions, SPEED_INCLUDE, url)


def quality(baseline: str, postgres: bool = True) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        old = _baseline_tree(baseline, Path(scratch))
        rows = []
        rankers = ("today", "new", "postgres") if postgres else ("today", "new")
        for name, root, pattern, qa in (("node", NODE, "*.md", NODE_QUESTIONS), ("cmake", CMAKE, "*.rst", CMAKE_QUESTIONS)):
            questions, relevant = [q for q, _ in qa], [files for _, files in qa]
            for ranker in rankers:
                result = _ranked_child(ranker, old, root, questions)
                if "error" in result:
                    print(f"{name:6} {ranker:6} failed: {result['error']}")
                    continue
                answers = result["answers"]
                assert isinstance(answers, list)
                ranked = [[_relative(str(source), root) for source, _ in hits] for hits in answers]
                scores = [hits[0][1] for hits in answers if hits]
                rows.append((name, ranker, _metrics(ranked, relevant), result["passages"], scores))
                if ranker != "today":
                    misses = [q for q, files, wanted in zip(questions, ranked, relevant, strict=True)
                              if not set(files[:5]) & set(wanted)]
                    print(f"{name} {ranker} misses at 5: {misses}")
            rows.append((name, "bm25", _metrics(_bm25(root, pattern, questions), relevant), None, []))
        print(f"\n{'corpus':7}{'ranker':9}{'hit@1':>7}{'hit@5':>7}{'MRR@10':>8}{'passages':>10}  top-1 score min/median/max")
        for name, ranker, m, passages, scores in rows:
            spread = (f"{min(scores):.2f}/{statistics.median(scores):.2f}/{max(scores):.2f}" if scores else "-")
            print(f"{name:7}{ranker:9}{m['hit@1']:7.2f}{m['hit@5']:7.2f}{m['MRR@10']:8.3f}{passages or '-':>10}  {spread}")


def speed(baseline: str, rounds: int) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        old = _baseline_tree(baseline, Path(scratch))
        runs: dict[str, list[tuple[float, float]]] = {"today": [], "new": []}
        # A-B-B-A per round: equal work (today's suffixes), one process each, nothing cached between.
        for _ in range(rounds):
            for ranker in ("today", "new", "new", "today"):
                package = old if ranker == "today" else REPO
                include = SPEED_INCLUDE if ranker == "new" else ()
                result = _child(package, SPEED_CORPUS, [], include)
                if "error" in result:
                    print(f"{ranker} failed: {result['error']}")
                    return
                cpu, wall = float(str(result["cpu"])), float(str(result["wall"]))
                runs[ranker].append((cpu, wall))
                print(f"{ranker:6} cpu {cpu:6.2f} s  wall {wall:6.2f} s  passages {result['passages']}  "
                      f"load {os.getloadavg()[0]:.2f}", flush=True)
        for ranker, timings in runs.items():
            cpus, walls = [c for c, _ in timings], [w for _, w in timings]
            print(f"{ranker:6} cpu median {statistics.median(cpus):.2f} best {min(cpus):.2f}; "
                  f"wall median {statistics.median(walls):.2f} best {min(walls):.2f}")
        ratio = statistics.median(c for c, _ in runs["new"]) / statistics.median(c for c, _ in runs["today"])
        print(f"new / today CPU (medians): {ratio:.2f}x  (target <= 1.5x)")


def stdlib() -> None:
    from thrift_fp.sources import index_paths

    for title, options in (
        ("default selection", {}),
        ("every file but site-packages and __pycache__",
         {"include": ["*"], "exclude": ["site-packages/", "__pycache__/"]}),
    ):
        with tempfile.TemporaryDirectory() as scratch:
            cpu, wall = time.process_time(), time.perf_counter()
            report = index_paths(Path(scratch) / "i.db", [STDLIB], **options).unwrap()  # type: ignore[arg-type]  # keyword options
            cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        reasons: dict[str, int] = {}
        for skipped in report.skipped:
            reasons[type(skipped.error).__name__] = reasons.get(type(skipped.error).__name__, 0) + 1
        print(f"{STDLIB} ({title}): {len(report.chunked)} files, {report.passages} passages, "
              f"{len(report.skipped)} skipped {reasons}; cpu {cpu:.1f} s, wall {wall:.1f} s")
        for skipped in report.skipped:
            if type(skipped.error).__name__ != "BinaryFile":
                print("   ", skipped.message)


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.retrieval_quality")
    parser.add_argument("--baseline", default=BASELINE, help="git ref of today's ranking")
    parser.add_argument("--speed", action="store_true", help="indexing speed, today vs new")
    parser.add_argument("--rounds", type=int, default=1, help="A-B-B-A rounds for --speed")
    parser.add_argument("--stdlib", action="store_true", help="index the Python standard library folder")
    parser.add_argument("--no-postgres", dest="postgres", action="store_false",
                        help="quality without the PostgreSQL source's rows (no server needed)")
    args = parser.parse_args(argv)
    print(f"load average {os.getloadavg()}")
    if args.speed:
        speed(args.baseline, args.rounds)
    elif args.stdlib:
        stdlib()
    else:
        quality(args.baseline, args.postgres)
    print(f"load average {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
