"""Workload 2, algorithm: measure-once against re-measure-after-every-shed (the source package).

Both fits use the same estimator: cl100k_base through tiktoken on one thread, wrapped to count
its calls, registered with thrift_fp so the fit calls it once per text. The baseline
(benchmarks/baseline.py) keeps exactly what the fit keeps (tests/test_benchmarks_baseline.py).
At 100 and 1,000 retrievables (plus 40 messages) into a 16k window; target: >= 100x faster at
1,000, by CPU time (median). Both sides run the same number of times, interleaved A-B-B-A (the
baseline is never run once and extrapolated): at 1,000 items a baseline run takes ~20 s, which
bounds the repeats.

    python -m benchmarks.algorithm
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass

from benchmarks._data import SEED, passages
from benchmarks._harness import Report, Timing, at_least, interleaved, run_and_print
from benchmarks._sets import rag_set, raw_tiktoken
from benchmarks.baseline import remeasure_fit
from thrift_fp.thrift import ThriftOptions, resolve_budget, subtract_to_fit
from thrift_fp.tokens import register_token_estimator, unregister_token_estimator

SIZES = (100, 1_000)
TURNS = 40
WINDOW = 16_000
ESTIMATOR = "bench-cl100k-counted"
TARGET_SIZE = 1_000
TARGET = 100.0
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
    thrift: Timing
    thrift_calls: int
    baseline: Timing
    baseline_calls: int
    kept: int

    @property
    def speedup(self) -> float:
        return self.baseline.median_cpu / self.thrift.median_cpu


def measure_size(items: int, estimator: CountedEstimator, repeats: int) -> SizeResult:
    """Time both fits of ``items`` retrievables with the counting estimator, ``repeats`` each."""
    ws = rag_set(passages(items), turns=TURNS)
    fixed = [ws.system_prompt, *(str(message.content) for message in ws.messages)]
    budget = resolve_budget(WINDOW).unwrap().budget
    options = ThriftOptions(counting_threads=1)

    before = estimator.calls
    fitted = subtract_to_fit(ws, WINDOW, None, options, encoding=ESTIMATOR).unwrap()
    thrift_calls = estimator.calls - before
    kept = tuple(str(getattr(item, "id", "")) for item in fitted.working_set.retrievables)
    baseline = remeasure_fit(fixed, passages(items), budget, estimator)
    if baseline.kept != kept:
        raise AssertionError(f"baseline kept {len(baseline.kept)} retrievables, thrift {len(kept)}")
    timings = interleaved(
        {
            "thrift": lambda: subtract_to_fit(ws, WINDOW, None, options, encoding=ESTIMATOR),
            "baseline": lambda: remeasure_fit(fixed, passages(items), budget, estimator),
        },
        repeats,
    )
    return SizeResult(items, timings["thrift"], thrift_calls, timings["baseline"], baseline.estimator_calls, len(kept))


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
        figures += [
            (f"{result.items:,} items: thrift fit", f"{result.thrift.text()}, "
             f"{result.thrift_calls:,} estimator calls ({result.thrift_calls / (result.items + TURNS + 1):.2f} per item)"),
            (f"{result.items:,} items: re-measure baseline", f"{result.baseline.text()}, "
             f"{result.baseline_calls:,} estimator calls"),
            (f"{result.items:,} items: speed-up", f"{result.speedup:,.0f}x CPU median, "
             f"{result.baseline.median_wall / result.thrift.median_wall:,.0f}x wall median (kept {result.kept} retrievables)"),
        ]
    headline = next(result for result in results if result.items == TARGET_SIZE)
    return Report(
        workload="workload 2: algorithm",
        headline=f"re-measure baseline CPU / thrift CPU at {TARGET_SIZE:,} items (median)",
        **at_least(headline.speedup, TARGET, "x", ".0f"),
        inputs=(
            ("retrievables", f"{', '.join(f'{n:,}' for n in SIZES)} passages of 50-400 words (seed {SEED})"),
            ("messages", f"{TURNS} chat turns + system prompt (kept; re-measured by the baseline)"),
            ("window", f"{WINDOW:,} (budget {resolve_budget(WINDOW).unwrap().budget:,})"),
            ("estimator", "cl100k_base via tiktoken encode_ordinary, one thread, call-counted, both sides"),
            ("repeats", f"{repeats} runs per contender, A-B-B-A, both sides"),
        ),
        figures=tuple(figures),
    )


def main() -> int:
    """Run the workload."""
    return 0 if run_and_print(run).met else 1


if __name__ == "__main__":
    sys.exit(main())
