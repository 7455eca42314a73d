"""The second fresh answer-quality set (benchmarks/eval/<corpus>.fresh2.jsonl) parses, is labelled
with files that exist in the corpus selection, and shares no question or id with the tune/report
halves or the first fresh set, all of which had been run and seen when it was written.

These tests read files only: no ranking runs on the fresh2 questions here. Where a corpus's
Debian package is not installed, the label check is skipped with the reason.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from benchmarks import answer_quality
from benchmarks._eval_set import CORPORA, EVAL, FRESH, FRESH2, HALVES, SETS, Corpus, Half, Question, corpora, load
from thrift_fp.sources import select_files

# How many questions each corpus's fresh2 list holds; none was dropped at labelling.
WRITTEN = {"cmake": 40, "node": 40, "postgresql": 20, "python": 20, "git": 20}


def _normal(text: str) -> str:
    # Case, punctuation and spacing must not hide a repeated question.
    return " ".join(re.findall(r"\w+", text.lower()))


def test_fresh2_is_a_set_after_the_halves_and_the_first_fresh_set() -> None:
    assert FRESH2 == "fresh2" and SETS == (*HALVES, FRESH, FRESH2)


def test_the_harness_accepts_fresh2_but_refuses_to_list_its_misses() -> None:
    # --misses would print the questions a ranking missed and let the set be tuned on; the
    # refusal comes before any system runs, so nothing is ranked here.
    assert answer_quality.main(["--half", "fresh2", "--misses"]) == 2


@pytest.mark.parametrize("corpus", CORPORA)
def test_every_fresh2_record_is_the_line_of_its_written_list_with_relative_files(corpus: str) -> None:
    written = (EVAL / "questions" / f"{corpus}.fresh2.txt").read_text(encoding="utf-8").splitlines()
    records = load(corpus, "fresh2")
    assert len(written) == WRITTEN[corpus]
    assert len(records) == len(written)
    for record in records:
        match = re.fullmatch(rf"{corpus}-fresh2-(\d+)", record.id)
        assert match is not None, record
        assert written[int(match.group(1)) - 1] == record.question, record
        assert record.question.strip() and record.files, record
        assert len(set(record.files)) == len(record.files), record
        for file in record.files:
            assert file and not file.startswith("/") and ".." not in Path(file).parts, record
    assert len({record.id for record in records}) == len(records)
    assert len({_normal(record.question) for record in records}) == len(records)


@pytest.mark.parametrize("corpus", CORPORA)
def test_no_fresh2_question_or_id_is_in_an_earlier_set(corpus: str) -> None:
    fresh2 = load(corpus, "fresh2")
    earlier: tuple[Half, ...] = ("tune", "report", "fresh")
    assert earlier == (*HALVES, FRESH)
    seen: list[Question] = [record for half in earlier for other in CORPORA for record in load(other, half)]
    assert not {_normal(r.question) for r in fresh2} & {_normal(r.question) for r in seen}
    assert not {r.id for r in fresh2} & {r.id for r in seen}


def _installed(corpus: Corpus) -> Corpus:
    if not corpus.root.is_dir():
        pytest.skip(f"{corpus.root} is missing: install the Debian package {corpus.package} to check the labels")
    return corpus


@pytest.mark.parametrize("name", CORPORA)
def test_every_fresh2_label_exists_and_is_in_the_corpus_selection(name: str) -> None:
    corpus = _installed(corpora()[name])
    selection = select_files([corpus.root], include=list(corpus.include), exclude=list(corpus.exclude)).unwrap()
    root = corpus.root.resolve()
    selected = {found.path.resolve().relative_to(root).as_posix() for found in selection.files}
    for record in load(name, "fresh2"):
        for file in record.files:
            assert (corpus.root / file).is_file(), f"{record.id}: {corpus.root / file} is missing"
            assert file in selected, f"{record.id}: {file} is outside the selection {corpus.include}"
