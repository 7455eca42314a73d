"""The baseline fit: re-measure the whole working set after every single shed.

This is the algorithm of the package the seeds come from (DESIGN.md §6): sort the retrievables by
score, then, while the total is over budget, shed the lowest-scored one and measure everything
again. It keeps exactly what thrift_fp keeps (tests/test_benchmarks_baseline.py checks that) at
O(n²) estimator calls where thrift_fp makes n.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from benchmarks._data import Passage


@dataclass(frozen=True, slots=True)
class BaselineFit:
    """What the baseline kept (ids, highest score first) and what it cost.

    ``finished`` is False when the time limit stopped the run before it fit; ``kept`` and
    ``total`` are then those of the last measurement.
    """

    kept: tuple[str, ...]
    total: int
    estimator_calls: int
    sheds: int
    finished: bool
    seconds: float


def remeasure_fit(
    fixed: Sequence[str],
    passages: Sequence[Passage],
    budget: int,
    estimate: Callable[[str], int],
    *,
    time_limit: float | None = None,
) -> BaselineFit:
    """Fit ``passages`` next to the always-kept ``fixed`` texts, re-measuring after every shed.

    Ties in score keep input order, so among equal scores the later passage sheds first.

    >>> from benchmarks._data import Passage
    >>> fit = remeasure_fit(["sys"], [Passage("a", "xx", 0.9), Passage("b", "xxx", 0.1)], 5, len)
    >>> fit.kept, fit.total, fit.estimator_calls, fit.sheds
    (('a',), 5, 5, 1)
    """
    started = time.perf_counter()
    kept = sorted(passages, key=lambda passage: -passage.score)
    calls = 0

    def measure_all() -> int:
        nonlocal calls
        calls += len(fixed) + len(kept)
        return sum(estimate(text) for text in fixed) + sum(estimate(passage.text) for passage in kept)

    total = measure_all()
    sheds = 0
    finished = True
    while total > budget and kept:
        if time_limit is not None and time.perf_counter() - started > time_limit:
            finished = False
            break
        kept.pop()
        sheds += 1
        total = measure_all()
    return BaselineFit(
        tuple(passage.id for passage in kept), total, calls, sheds, finished, time.perf_counter() - started
    )


def planned_calls(fixed: int, items: int, kept: int) -> int:
    """Estimator calls of a finished baseline run that sheds ``items`` down to ``kept``.

    One measurement of everything, then one per shed of what is left.

    >>> planned_calls(fixed=1, items=2, kept=1)
    5
    """
    return (fixed + items) + sum(fixed + left for left in range(kept, items))
