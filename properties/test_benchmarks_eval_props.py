"""Properties of the held-out set's split and of the answer-quality metrics (benchmarks/)."""

from __future__ import annotations

from random import Random

from hypothesis import given
from hypothesis import strategies as st

from benchmarks._eval_set import Question, split
from benchmarks.answer_quality import first_answer, metrics

texts = st.lists(st.text(min_size=1, max_size=20), max_size=40, unique=True)


@given(texts, st.randoms(use_true_random=False))
def test_split_halves_every_set_whatever_its_order(questions: list[str], random: Random) -> None:
    halves = split(questions)
    shuffled = list(questions)
    random.shuffle(shuffled)
    assert split(shuffled) == halves
    assert set(halves) == set(questions)
    tune = sum(1 for half in halves.values() if half == "tune")
    assert 0 <= tune - (len(questions) - tune) <= 1


files = st.sampled_from(("a.md", "b.md", "c.md", "d.md"))
rankings = st.lists(st.lists(files, max_size=14), min_size=1, max_size=8)


@given(rankings, st.data())
def test_metrics_are_shares_ordered_hit1_mrr_and_follow_the_first_labelled_rank(
    ranked: list[list[str]], data: st.DataObject
) -> None:
    questions = [Question(f"q-{i}", "?", tuple(data.draw(st.lists(files, min_size=1, max_size=2, unique=True))))
                 for i in range(len(ranked))]
    scores = metrics(ranked, questions)
    assert 0.0 <= scores["hit@1"] <= scores["MRR@10"] <= 1.0
    assert scores["hit@1"] <= scores["hit@5"]
    firsts = [first_answer(r, q.files) for r, q in zip(ranked, questions, strict=True)]
    for rank, files_returned, question in zip(firsts, ranked, questions, strict=True):
        if rank is None:
            assert not set(files_returned[:10]) & set(question.files)
        else:
            assert files_returned[rank - 1] in question.files
            assert not set(files_returned[: rank - 1]) & set(question.files)
    assert scores["hit@5"] == sum(1 for r in firsts if r is not None and r <= 5) / len(ranked)
