"""Near-duplicate passages in answers: twin pairs in the top 8 of the git questions over Debian's git manual.

    thrift-fp index --db /tmp/git-doc.db /usr/share/doc/git-doc      # the index a user builds (vectors too)
    nice python -m benchmarks.near_duplicates --index /tmp/git-doc.db                    # its default ranking
    nice python -m benchmarks.near_duplicates --index /tmp/git-doc.db --lexical          # lexical only
    PYTHONPATH=<a main checkout> nice python benchmarks/near_duplicates.py --index /tmp/git-doc.db --label main
    nice python -m benchmarks.near_duplicates                       # no --index: index lexically first

Debian's git-doc ships every manual page twice, as ``.html`` and as its AsciiDoc ``.txt``
source: different markup and indentation, the same words. An index of the whole folder (the
default selection takes both) used to answer many questions with the same text twice. The
workload reads an index of ``/usr/share/doc/git-doc`` (both renderings), built by ``thrift-fp
index`` (``--index``; with vectors where the ``[dense]`` extra is installed) or, without
``--index``, lexically by ``index_paths``, and asks every git question of ``benchmarks/eval``
(tune, report, fresh, fresh2: 81) for 8 passages, as ``search_index`` answers them (its
default ranking: hybrid where the index holds vectors; ``--lexical`` for lexical only).

A **twin pair** is two passages of one answer from the two renderings of one page (the same
path without its suffix) whose words are nearly the same: ``difflib``'s ratio of their
lower-cased word sequences at least 0.8 — a measure independent of the shingle rule
(`thrift_fp.sources.ranking._duplicates`) that collapses them. Also counted: pairs from the two
renderings of one page whatever their words (a different section of the page may rightly be
there), and the copies the answers name.

Standalone (only ``thrift_fp`` imported), so the same file measures another checkout.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import sys
import tempfile
import time
from collections.abc import Sequence
from itertools import combinations
from pathlib import Path

ROOT = Path("/usr/share/doc/git-doc")
EVAL = Path(__file__).resolve().parent / "eval"
SETS = ("tune", "report", "fresh", "fresh2")
LIMIT = 8
SIMILAR = 0.8
_WORD = re.compile(r"[^\W_]+")


def _words(text: str) -> list[str]:
    return _WORD.findall(text.casefold())


def twins(first: tuple[str, str], second: tuple[str, str]) -> tuple[bool, bool]:
    """Whether two ``(path, text)`` passages come from the two renderings of one page, and whether
    they are also near-duplicates (word sequences at least ``SIMILAR`` alike).

    >>> twins(("/d/git-log.html", "Show commit logs."), ("/d/git-log.txt", "  Show  commit logs."))
    (True, True)
    >>> twins(("/d/git-log.html", "Show commit logs."), ("/d/git-log.txt", "Limit the number of commits."))
    (True, False)
    """
    (path_a, text_a), (path_b, text_b) = first, second
    same_page = path_a != path_b and os.path.splitext(path_a)[0] == os.path.splitext(path_b)[0]
    if not same_page:
        return False, False
    return True, difflib.SequenceMatcher(None, _words(text_a), _words(text_b), autojunk=False).ratio() >= SIMILAR


def _questions() -> list[str]:
    asked = []
    for half in SETS:
        for line in (EVAL / f"git.{half}.jsonl").read_text(encoding="utf-8").splitlines():
            if line.strip():
                asked.append(json.loads(line)["question"])
    return asked


def main(argv: Sequence[str]) -> int:
    from thrift_fp.sources import index_paths, search_index

    parser = argparse.ArgumentParser(prog="python -m benchmarks.near_duplicates")
    parser.add_argument("--label", default="this checkout")
    parser.add_argument("--db", type=Path, default=Path(tempfile.gettempdir()) / "thrift-fp-near-duplicates")
    parser.add_argument("--index", type=Path, help="an index of the git manual built by thrift-fp index")
    parser.add_argument("--lexical", action="store_true", help="rank lexically even where the index holds vectors")
    args = parser.parse_args(argv)
    if not ROOT.is_dir():
        print(f"{ROOT} is not installed (apt-get install git-doc)", file=sys.stderr)
        return 1
    if args.index is not None:
        database = args.index
        print(f"{args.label}: the index {database} ({'lexical' if args.lexical else 'default'} ranking)")
    else:
        args.db.mkdir(parents=True, exist_ok=True)
        database = args.db / f"git-doc-{args.label.replace(' ', '-')}.db"
        started = time.perf_counter()
        report = index_paths(database, [ROOT], dense=False).unwrap()
        print(f"{args.label}: {ROOT} indexed lexically: {report.passages} passages "
              f"({len(report.chunked) + len(report.touched) + len(report.unchanged)} files) in {time.perf_counter() - started:.0f} s")
    questions = _questions()
    answers_with_twin = pairs = same_page_pairs = named = 0
    worst: list[tuple[int, str]] = []
    for question in questions:
        hits = search_index(database, question, limit=LIMIT, dense=not (args.lexical or args.index is None)).unwrap()
        found = [twins((a.path, a.text), (b.path, b.text)) for a, b in combinations(hits, 2)]
        near = sum(1 for _, alike in found if alike)
        pairs += near
        same_page_pairs += sum(1 for page, _ in found if page)
        answers_with_twin += near > 0
        named += sum(len(getattr(hit, "copies", ())) for hit in hits)
        if near:
            worst.append((near, question))
    print(f"{len(questions)} git questions (tune, report, fresh, fresh2), top {LIMIT}:")
    print(f"  answers holding a twin pair: {answers_with_twin} of {len(questions)}; twin pairs: {pairs}")
    print(f"  pairs from the two renderings of one page, whatever their words: {same_page_pairs}")
    print(f"  copies named by the answers (collapsed twins): {named}")
    for count, question in sorted(worst, reverse=True)[:5]:
        print(f"    {count} twin pairs: {question!r}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
