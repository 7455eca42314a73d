"""Workload 2, algorithm: measure-once against re-measure-after-every-shed (the source package).

Both fits use the same estimator: cl100k_base through tiktoken on one thread, wrapped to count
its calls, registered with thrift_fp so the fit calls it once per text. The baseline
(benchmarks/baseline.py) keeps exactly what the fit keeps (tests/test_benchmarks_baseline.py).
At 100, 1,000 and 5,000 retrievables (plus 40 messages) into a 16k window; target: >= 100x
faster at 1,000. A baseline run that would take longer than its time limit is stopped and its
time extrapolated from the exact number of estimator calls a finished run makes; such figures
are labelled "extrapolated".

    python -m benchmarks.algorithm
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass

from benchmarks._data import SEED, passages
from benchmarks._harness import Report, best_of, run_and_print, seconds
from benchmarks._sets import rag_set, raw_tiktoken
from benchmarks.baseline import planned_calls, remeasure_fit
from thrift_fp.thrift import resolve_budget, subtract_to_fit
from thrift_fp.tokens import register_token_estimator, unregister_token_estimator

SIZES = (100, 1_000, 5_000)
TURNS = 40
WINDOW = 16_000
ESTIMATOR = "bench-cl100k-counted"
TARGET_SIZE = 1_000
TARGET = 100.0
# Seconds each baseline run may take before it is stopped and extrapolated.
TIME_LIMITS = {100: 60.0, 1_000: 90.0, 5_000: 20.0}
REPEATS = 3


class CountedEstimator:
    """cl100k_base token counts on one thread, counting how often it is called."""

    def __init__(self) -> None:
        self.calls = 0
        self._encode: Callable[[str], list[int]] = raw_tiktoken().encode_ordinary

    def __call__(self, text: str) -> int:
        self.calls += 1
        return len(self._encode(text))


@dataclass(frozen=True, slots=True)
class SizeResult:
    """One size's figures."""

    items: int
    thrift_seconds: float
    thrift_calls: int
    baseline_seconds: float
    baseline_calls: int
    extrapolated: bool
    kept: int

    @property
    def speedup(self) -> float:
        return self.baseline_seconds / self.thrift_seconds


def measure_size(items: int, estimator: CountedEstimator, repeats: int) -> SizeResult:
    """Time both fits of ``items`` retrievables with the counting estimator."""
    ws = rag_set(passages(items), turns=TURNS)
    fixed = [ws.system_prompt, *(str(message.content) for message in ws.messages)]
    budget = resolve_budget(WINDOW).unwrap().budget

    before = estimator.calls
    fitted = subtract_to_fit(ws, WINDOW, encoding=ESTIMATOR).unwrap()
    thrift_calls = estimator.calls - before
    kept = tuple(str(getattr(item, "id", "")) for item in fitted.working_set.retrievables)
    thrift_seconds = best_of({"thrift": lambda: subtract_to_fit(ws, WINDOW, encoding=ESTIMATOR)}, repeats)["thrift"]

    baseline = remeasure_fit(fixed, passages(items), budget, estimator, time_limit=TIME_LIMITS[items])
    if baseline.finished:
        if baseline.kept != kept:
            raise AssertionError(f"baseline kept {len(baseline.kept)} retrievables, thrift {len(kept)}")
        return SizeResult(items, thrift_seconds, thrift_calls, baseline.seconds, baseline.estimator_calls, False,
                          len(kept))
    # Stopped early: a finished run makes exactly planned_calls(...) calls of the same estimator
    # over passages drawn from the same distribution, so time scales with calls.
    planned = planned_calls(len(fixed), items, len(kept))
    projected = baseline.seconds * planned / baseline.estimator_calls
    return SizeResult(items, thrift_seconds, thrift_calls, projected, planned, True, len(kept))


def run(repeats: int = REPEATS) -> Report:
    """Both fits at every size; the headline is the speed-up at 1,000 retrievables."""
    estimator = CountedEstimator()
    register_token_estimator(ESTIMATOR, estimator, precision="exact").unwrap()
    try:
        results = [measure_size(items, estimator, repeats) for items in SIZES]
    finally:
        unregister_token_estimator(ESTIMATOR)
    figures: list[tuple[str, str]] = []
    for result in results:
        label = " (extrapolated)" if result.extrapolated else ""
        figures += [
            (f"{result.items:,} items: thrift fit", f"{seconds(result.thrift_seconds)}, "
             f"{result.thrift_calls:,} estimator calls ({result.thrift_calls / (result.items + TURNS + 1):.2f} per item)"),
            (f"{result.items:,} items: re-measure baseline{label}", f"{seconds(result.baseline_seconds)}, "
             f"{result.baseline_calls:,} estimator calls{label}"),
            (f"{result.items:,} items: speed-up{label}", f"{result.speedup:,.0f}x (kept {result.kept} retrievables)"),
        ]
    headline = next(result for result in results if result.items == TARGET_SIZE)
    return Report(
        workload="workload 2: algorithm",
        headline=f"re-measure baseline time / thrift time at {TARGET_SIZE:,} items"
                 + (" (extrapolated)" if headline.extrapolated else ""),
        value=headline.speedup,
        target=f">= {TARGET:.0f}x",
        met=headline.speedup >= TARGET,
        inputs=(
            ("retrievables", f"{', '.join(f'{n:,}' for n in SIZES)} passages of 50-400 words (seed {SEED})"),
            ("messages", f"{TURNS} chat turns + system prompt (kept; re-measured by the baseline)"),
            ("window", f"{WINDOW:,} (budget {resolve_budget(WINDOW).unwrap().budget:,})"),
            ("estimator", "cl100k_base via tiktoken encode_ordinary, one thread, call-counted, both sides"),
            ("repeats", f"thrift best of {repeats}; baseline once, time limits "
                        + ", ".join(f"{n:,}: {limit:.0f} s" for n, limit in TIME_LIMITS.items())),
        ),
        figures=tuple(figures),
    )


def main() -> int:
    """Run the workload."""
    return 0 if run_and_print(run).met else 1


if __name__ == "__main__":
    sys.exit(main())
