"""The held-out answer-quality set (benchmarks/eval/) keeps its shape, its split and its labels.

The labelled files are checked against the documentation installed on this machine; where a
corpus's Debian package is not installed (CI need not have the docs), that check is skipped
with the reason.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks._eval_set import CORPORA, EVAL, HALVES, SETS, Corpus, Question, corpora, load, split
from thrift_fp.sources import select_files


def _all(corpus: str) -> dict[str, list[Question]]:
    return {half: load(corpus, half) for half in ("tune", "report")}


def test_corpora_json_names_every_corpus_with_root_selection_package_and_version() -> None:
    known = corpora()
    assert sorted(known) == sorted(CORPORA)
    for name, corpus in known.items():
        assert corpus.root.is_absolute(), name
        assert corpus.include, name
        assert corpus.package and corpus.version, name


@pytest.mark.parametrize("corpus", CORPORA)
def test_every_record_has_an_id_a_question_and_at_least_one_relative_file(corpus: str) -> None:
    for half, records in _all(corpus).items():
        assert records, f"{corpus}.{half}.jsonl is empty"
        for record in records:
            assert record.id.startswith(f"{corpus}-"), record
            assert record.question.strip(), record
            assert record.files, record
            assert len(set(record.files)) == len(record.files), record
            for file in record.files:
                assert file and not file.startswith("/") and ".." not in Path(file).parts, record


def test_ids_are_unique_across_every_corpus_and_half() -> None:
    ids = [record.id for corpus in CORPORA for records in _all(corpus).values() for record in records]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("corpus", CORPORA)
def test_halves_are_disjoint_and_follow_the_sha256_split(corpus: str) -> None:
    halves = _all(corpus)
    tune = {record.question for record in halves["tune"]}
    report = {record.question for record in halves["report"]}
    assert not tune & report
    assert not {r.id for r in halves["tune"]} & {r.id for r in halves["report"]}
    expected = split(sorted(tune | report))
    assert {question: "tune" for question in tune} | {question: "report" for question in report} == expected
    assert abs(len(tune) - len(report)) <= 1
    assert len(tune) + len(report) >= 30


@pytest.mark.parametrize("corpus", CORPORA)
def test_each_question_is_the_line_of_the_first_written_list_its_id_names(corpus: str) -> None:
    written = (EVAL / "questions" / f"{corpus}.txt").read_text(encoding="utf-8").splitlines()
    for records in _all(corpus).values():
        for record in records:
            line = int(record.id.rsplit("-", 1)[1])
            assert written[line - 1] == record.question, record


def test_split_depends_only_on_the_texts_and_halves_them() -> None:
    texts = [f"question {i}" for i in range(41)]
    halves = split(texts)
    assert halves == split(list(reversed(texts)))
    assert sorted(halves.values()).count("tune") == 21
    assert set(HALVES) == set(halves.values())


def _installed(corpus: Corpus) -> Corpus:
    if not corpus.root.is_dir():
        pytest.skip(f"{corpus.root} is missing: install the Debian package {corpus.package} to check the labels")
    return corpus


@pytest.mark.parametrize("name", CORPORA)
def test_every_labelled_file_exists_and_is_in_the_corpus_selection(name: str) -> None:
    corpus = _installed(corpora()[name])
    selection = select_files([corpus.root], include=list(corpus.include), exclude=list(corpus.exclude)).unwrap()
    root = corpus.root.resolve()
    selected = {found.path.resolve().relative_to(root).as_posix() for found in selection.files}
    for records in _all(name).values():
        for record in records:
            for file in record.files:
                assert (corpus.root / file).is_file(), f"{record.id}: {corpus.root / file} is missing"
                assert file in selected, f"{record.id}: {file} is outside the selection {corpus.include}"


def test_the_frozen_set_matches_its_recorded_digests() -> None:
    # The set is frozen: a change to a question, a label or the split must also change
    # SHA256SUMS, in the same commit, where a reviewer sees it.
    import hashlib

    recorded = {}
    for line in (EVAL / "SHA256SUMS").read_text(encoding="utf-8").splitlines():
        digest, name = line.split(maxsplit=1)
        recorded[name] = digest
    expected = {f"{corpus}.{half}.jsonl" for corpus in CORPORA for half in SETS} | {"corpora.json"}
    assert set(recorded) == expected
    for name, digest in recorded.items():
        assert hashlib.sha256((EVAL / name).read_bytes()).hexdigest() == digest, f"{name} changed"
