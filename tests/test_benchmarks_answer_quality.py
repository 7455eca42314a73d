"""The answer-quality harness scores what the systems return, on a tiny set it writes itself.

It pins the definition (a question is answered at rank r when the r-th passage returned, counting
repeats, comes from a labelled file), that every system maps its passages back to files relative
to the corpus root, and that a system or corpus that cannot run is skipped with a reason.
"""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path

import pytest

from benchmarks._eval_set import Question
from benchmarks.answer_quality import SYSTEMS, System, evaluate, first_answer, metrics, run

_DOCS = {
    "guide/cache.md": "# Caching\n\nRemember the results of an expensive call so the next call is free.\n",
    "guide/threads.md": "# Locks\n\nA mutex keeps two threads from writing the same counter at once.\n",
    "ref/archive.md": "# Zip archives\n\nUnpack every member of a compressed archive into a folder.\n",
}
_QUESTIONS = [
    ("tiny-1", "remember results of an expensive call", ["guide/cache.md"]),
    ("tiny-2", "mutex for threads writing a counter", ["guide/threads.md"]),
    ("tiny-3", "unpack a compressed zip archive", ["ref/archive.md"]),
    ("tiny-4", "mutex threads counter", ["ref/archive.md"]),  # labelled with a file that never answers it
]


def _tiny_set(tmp_path: Path, root: Path) -> Path:
    for name, text in _DOCS.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
        os.utime(root / name, (1e9, 1e9))  # old files: not modified while being indexed
    folder = tmp_path / "eval"
    folder.mkdir()
    spec = {"root": str(root), "include": ["*.md"], "exclude": [], "package": "none", "version": "0"}
    missing = {**spec, "root": str(tmp_path / "not-installed")}
    (folder / "corpora.json").write_text(json.dumps({"corpora": {"tiny": spec, "gone": missing}}), encoding="utf-8")
    lines = "".join(json.dumps({"id": i, "question": q, "files": f}) + "\n" for i, q, f in _QUESTIONS)
    for corpus in ("tiny", "gone"):
        (folder / f"{corpus}.tune.jsonl").write_text(lines, encoding="utf-8")
    return folder


def test_a_repeated_file_spends_a_rank_and_only_the_first_ten_count() -> None:
    assert first_answer(["a.md", "a.md", "b.md"], ["b.md"]) == 3
    assert first_answer([*(["a.md"] * 10), "b.md"], ["b.md"]) is None
    questions = [Question("q-1", "?", ("b.md",))] * 2
    assert metrics([["a.md"] * 5 + ["b.md"], ["b.md"]], questions) == {"hit@1": 0.5, "hit@5": 0.5, "MRR@10": (1 / 6 + 1) / 2}


def test_sqlite_answers_the_tiny_set_by_file_and_reuses_its_cached_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _tiny_set(tmp_path, tmp_path / "docs")
    lines: list[str] = []
    cache = tmp_path / "cache"
    # A system this machine cannot run (as dense is without its extra) is reported and skipped.
    monkeypatch.setitem(SYSTEMS, "absent", System("absent", "a system whose extra is missing",
                                                  SYSTEMS["sqlite"].rank, lambda: "its extra is not installed"))
    first = evaluate("tune", ["tiny", "gone"], ["sqlite", "absent"], cache, lines.append, folder)
    again = evaluate("tune", ["tiny"], ["sqlite"], cache, lines.append, folder)
    assert [(r.corpus, r.system) for r in first] == [("tiny", "sqlite")]
    assert first[0].scores == again[0].scores == {"hit@1": 0.75, "hit@5": 0.75, "MRR@10": 0.75}
    assert first[0].misses == ("tiny-4",)
    assert first[0].passages == 3 and len(list(cache.glob("tiny-*.sqlite"))) == 1
    assert any(line.startswith("gone:") and "skipped" in line for line in lines)
    assert any(line.startswith("tiny absent: unavailable (its extra is not installed)") for line in lines)


@pytest.mark.skipif(importlib.util.find_spec("rank_bm25") is None or importlib.util.find_spec("bm25s") is None
                    or importlib.util.find_spec("snowballstemmer") is None, reason="the bench extra is not installed")
def test_bm25_answers_the_tiny_set_by_file(tmp_path: Path) -> None:
    folder = _tiny_set(tmp_path, tmp_path / "docs")
    (result,) = evaluate("tune", ["tiny"], ["bm25"], tmp_path / "cache", folder=folder)
    assert result.scores["hit@1"] == 0.75 and result.misses == ("tiny-4",)


def test_every_registered_system_names_itself_and_says_whether_it_can_run() -> None:
    for name, system in SYSTEMS.items():
        assert system.name == name and system.about
        reason = system.unavailable()
        assert reason is None or reason.strip()
    assert SYSTEMS["sqlite"].unavailable() is None


def test_the_suite_workload_reports_each_system_and_the_stores_and_latency_rows(tmp_path: Path) -> None:
    folder = _tiny_set(tmp_path, tmp_path / "docs")
    report = run(folder, ["tiny"], ["sqlite"], tmp_path / "cache")
    assert report.workload == "answer_quality"
    assert [name for name, _ in report.figures] == ["tiny sqlite"]
    assert [row.headline for row in report.rows] == ["sqlite query p95 ms (worst corpus)"]
    assert not report.met  # no BM25 row to compare with: the headline is not a number
