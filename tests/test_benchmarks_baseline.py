"""The benchmark's re-measure baseline keeps exactly what `subtract_to_fit` keeps.

Workload 2 (benchmarks/algorithm.py) times the two against each other; the comparison only means
something if both fits agree, so this runs in CI on small inputs.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from benchmarks._data import Passage, chat, passages
from benchmarks.baseline import planned_calls, remeasure_fit
from thrift_fp.thrift import Message, WorkingRetrievable, WorkingSet, resolve_budget, subtract_to_fit
from thrift_fp.tokens import get_encoding

_AT = datetime(2026, 1, 1, tzinfo=timezone.utc)
_SYSTEM = "You answer from the retrieved passages only."


def _count(text: str) -> int:
    return get_encoding("cl100k_base").unwrap().count(text).unwrap()


def _working_set(items: tuple[Passage, ...], turns: int, seed: int) -> WorkingSet:
    messages = tuple(
        Message(turn.id, turn.text, _AT + timedelta(seconds=turn.second), role=turn.role)
        for turn in chat(turns, seed=seed, max_words=30)
    )
    retrievables = tuple(WorkingRetrievable(item.text, id=item.id, score=item.score) for item in items)
    return WorkingSet(system_prompt=_SYSTEM, messages=messages, retrievables=retrievables)


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("window", [0, 600, 2_000, 5_000, 100_000])
def test_baseline_keeps_what_thrift_keeps(seed: int, window: int) -> None:
    # Few words per passage and coarse scores: many ties, so the stable shed order is exercised.
    items = tuple(
        Passage(item.id, item.text, round(item.score, 1))
        for item in passages(60, seed=seed, min_words=5, max_words=60)
    )
    ws = _working_set(items, turns=4, seed=seed)
    fitted = subtract_to_fit(ws, window).unwrap()
    fixed = [_SYSTEM, *(str(message.content) for message in ws.messages)]
    budget = resolve_budget(window).unwrap().budget
    baseline = remeasure_fit(fixed, items, budget, _count)

    assert baseline.kept == tuple(str(getattr(item, "id", "")) for item in fitted.working_set.retrievables)
    # The fixed texts fit whenever something is kept; with nothing kept thrift goes on to shed
    # messages, which the baseline (retrievables only) does not model.
    if baseline.kept:
        assert baseline.total == fitted.trace.total_after
    assert baseline.estimator_calls == planned_calls(len(fixed), len(items), len(baseline.kept))


def test_baseline_makes_quadratic_estimator_calls() -> None:
    items = passages(40, seed=9, min_words=5, max_words=20)
    baseline = remeasure_fit([], items, 0, _count)
    assert (baseline.kept, baseline.sheds) == ((), 40)
    assert baseline.estimator_calls == 40 + sum(range(40)) == 820


def test_time_limit_stops_the_baseline_early() -> None:
    items = passages(30, seed=4, min_words=5, max_words=20)
    stopped = remeasure_fit([], items, 0, _count, time_limit=0.0)
    assert (stopped.finished, stopped.sheds, stopped.estimator_calls) == (False, 0, 30)
