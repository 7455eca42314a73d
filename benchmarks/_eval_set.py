"""The held-out evaluation set for answer quality: questions, labels, corpora and the split.

The set lives in ``benchmarks/eval/`` (see its README.md): per corpus, ``<corpus>.tune.jsonl``
and ``<corpus>.report.jsonl`` (one ``{"id", "question", "files"}`` record a line, ``files``
relative to the corpus root) and ``corpora.json`` (root folder, include/exclude patterns,
Debian package and version). The questions were written before the corpus was browsed and
labelled before any ranking ran; ``questions/<corpus>.txt`` keeps the list as first written
(a record's id is ``<corpus>-<line number>`` in that list).

The split is a pure function of the question texts, so anyone can check it: within a corpus,
order the questions by the SHA-256 of their UTF-8 text; the first half (rounded up) is
``tune``, the rest ``report``.

A third set, ``<corpus>.fresh.jsonl`` (questions first written in ``questions/<corpus>.fresh.txt``,
ids ``<corpus>-fresh-<line number>``), was written after the ranking engineers had seen both
halves: it is not split, and it is run once, on a frozen ranking, to check that a ranking tuned
on the halves carries over. A fourth, ``<corpus>.fresh2.jsonl`` (``questions/<corpus>.fresh2.txt``,
ids ``<corpus>-fresh2-<line number>``), was written the same way after the fresh set had been run
and seen, to judge a later ranking change once more.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

EVAL = Path(__file__).resolve().parent / "eval"
CORPORA = ("cmake", "node", "postgresql", "python", "git")
HALVES = ("tune", "report")
FRESH = "fresh"
FRESH2 = "fresh2"
SETS = (*HALVES, FRESH, FRESH2)
Half = Literal["tune", "report", "fresh", "fresh2"]


@dataclass(frozen=True, slots=True)
class Question:
    """One labelled question: ``files`` (relative to the corpus root) each answer it."""

    id: str
    question: str
    files: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Corpus:
    """A documentation folder from a Debian package and the files of it that are indexed.

    ``include``/``exclude`` are gitignore-style patterns relative to ``root`` (the same
    patterns ``thrift_fp.sources.index_paths`` takes).
    """

    name: str
    root: Path
    include: tuple[str, ...]
    exclude: tuple[str, ...]
    package: str
    version: str


def split(questions: list[str]) -> dict[str, Half]:
    """Each question's half: by SHA-256 order of the text, the first half (rounded up) tunes.

    >>> split(["a", "b", "c"]) == {"a": "report", "b": "tune", "c": "tune"}
    True
    """
    ordered = sorted(questions, key=lambda text: hashlib.sha256(text.encode("utf-8")).hexdigest())
    cut = (len(ordered) + 1) // 2
    return {text: ("tune" if i < cut else "report") for i, text in enumerate(ordered)}


def corpora(folder: Path = EVAL) -> dict[str, Corpus]:
    """The corpora of ``corpora.json`` by name."""
    raw = json.loads((folder / "corpora.json").read_text(encoding="utf-8"))
    return {
        name: Corpus(name, Path(spec["root"]), tuple(spec["include"]), tuple(spec.get("exclude", [])),
                     spec["package"], spec["version"])
        for name, spec in raw["corpora"].items()
    }


def load(corpus: str, half: Half, folder: Path = EVAL) -> list[Question]:
    """The questions of one half (or of the ``fresh`` or ``fresh2`` set) of one corpus, in file order."""
    records = []
    for line in (folder / f"{corpus}.{half}.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            raw = json.loads(line)
            records.append(Question(raw["id"], raw["question"], tuple(raw["files"])))
    return records


def relative(path: str, root: Path) -> str:
    """``path`` as the eval set names files: relative to the corpus ``root``, or as given when it
    lies outside it.

    >>> relative("/corpus/docs/a.md", Path("/corpus")), relative("/elsewhere/b.md", Path("/corpus"))
    ('docs/a.md', '/elsewhere/b.md')
    """
    try:
        return Path(path).resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path
