"""The fresh answer-quality sets (benchmarks/eval/<corpus>.fresh.jsonl, then .fresh2.jsonl) parse,
are labelled with files that exist in the corpus selection, and share no question or id with any
set written before them (each was written after the earlier ones had been run and seen).

These tests read files only: no ranking runs on the fresh questions here. Where a corpus's
Debian package is not installed, the label check is skipped with the reason.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from benchmarks import answer_quality
from benchmarks._eval_set import CORPORA, EVAL, FRESH, FRESH2, HALVES, SETS, Corpus, Half, Question, corpora, load
from thrift_fp.sources import select_files

# How many questions each corpus's list holds in each fresh set; none was dropped at labelling.
WRITTEN = {"cmake": 40, "node": 40, "postgresql": 20, "python": 20, "git": 20}
FRESH_SETS: tuple[Half, ...] = ("fresh", "fresh2")


def _normal(text: str) -> str:
    # Case, punctuation and spacing must not hide a repeated question.
    return " ".join(re.findall(r"\w+", text.lower()))


def test_the_fresh_sets_follow_the_two_halves_in_the_order_they_were_written() -> None:
    assert SETS == (*HALVES, FRESH, FRESH2) and (FRESH, FRESH2) == FRESH_SETS


@pytest.mark.parametrize("fresh", FRESH_SETS)
def test_the_harness_accepts_a_fresh_set_but_refuses_to_list_its_misses(fresh: Half) -> None:
    # argparse rejects an unknown --half by raising SystemExit; a fresh set gets past it to the
    # refusal of --misses, which comes before any system runs: printing the questions a
    # ranking missed would let the fresh set be tuned on.
    assert answer_quality.main(["--half", fresh, "--misses"]) == 2
    with pytest.raises(SystemExit):
        answer_quality.main(["--half", "stale"])


@pytest.mark.parametrize("fresh", FRESH_SETS)
@pytest.mark.parametrize("corpus", CORPORA)
def test_every_fresh_record_is_the_line_of_its_written_list_with_relative_files(corpus: str, fresh: Half) -> None:
    written = (EVAL / "questions" / f"{corpus}.{fresh}.txt").read_text(encoding="utf-8").splitlines()
    records = load(corpus, fresh)
    assert len(written) == WRITTEN[corpus]
    assert len(records) == len(written)
    for record in records:
        match = re.fullmatch(rf"{corpus}-{fresh}-(\d+)", record.id)
        assert match is not None, record
        assert written[int(match.group(1)) - 1] == record.question, record
        assert record.question.strip() and record.files, record
        assert len(set(record.files)) == len(record.files), record
        for file in record.files:
            assert file and not file.startswith("/") and ".." not in Path(file).parts, record
    assert len({record.id for record in records}) == len(records)
    assert len({_normal(record.question) for record in records}) == len(records)


@pytest.mark.parametrize("fresh", FRESH_SETS)
@pytest.mark.parametrize("corpus", CORPORA)
def test_no_fresh_question_or_id_is_in_a_set_written_before_it(corpus: str, fresh: Half) -> None:
    every: tuple[Half, ...] = ("tune", "report", "fresh", "fresh2")
    assert every == SETS
    earlier = every[: every.index(fresh)]
    records = load(corpus, fresh)
    seen: list[Question] = [record for half in earlier for other in CORPORA for record in load(other, half)]
    assert not {_normal(r.question) for r in records} & {_normal(r.question) for r in seen}
    assert not {r.id for r in records} & {r.id for r in seen}


def _installed(corpus: Corpus) -> Corpus:
    if not corpus.root.is_dir():
        pytest.skip(f"{corpus.root} is missing: install the Debian package {corpus.package} to check the labels")
    return corpus


@pytest.mark.parametrize("fresh", FRESH_SETS)
@pytest.mark.parametrize("name", CORPORA)
def test_every_fresh_label_exists_and_is_in_the_corpus_selection(name: str, fresh: Half) -> None:
    corpus = _installed(corpora()[name])
    selection = select_files([corpus.root], include=list(corpus.include), exclude=list(corpus.exclude)).unwrap()
    root = corpus.root.resolve()
    selected = {found.path.resolve().relative_to(root).as_posix() for found in selection.files}
    for record in load(name, fresh):
        for file in record.files:
            assert (corpus.root / file).is_file(), f"{record.id}: {corpus.root / file} is missing"
            assert file in selected, f"{record.id}: {file} is outside the selection {corpus.include}"
