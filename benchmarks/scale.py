"""Workload 5, scale: fit time for 1k, 10k and 100k retrievables, and its growth exponent.

Each size is 50-400-word passages plus 40 messages into a 16k window, the fit on one thread. The
exponent is the slope of a least-squares line through (log items, log CPU seconds, medians); 1.0
is linear. Target: <= 1.15. The same slope for tokenizing the same texts once (tiktoken, one
thread) is reported as the floor a fit cannot beat. Runs interleaved A-B-B-A.

    python -m benchmarks.scale
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence

from benchmarks._data import SEED, passages
from benchmarks._harness import Report, at_most, interleaved, run_and_print, seconds
from benchmarks._sets import rag_set, texts_of, tokenize_once
from thrift_fp.thrift import ThriftOptions, subtract_to_fit

SIZES = (1_000, 10_000, 100_000)
REPEATS = {1_000: 15, 10_000: 5, 100_000: 3}
TURNS = 40
WINDOW = 16_000
TARGET = 1.15


def growth_exponent(sizes: Sequence[int], times: Sequence[float]) -> float:
    """Slope of the least-squares line through ``(log size, log time)``.

    >>> round(growth_exponent([1, 10, 100], [2.0, 20.0, 200.0]), 6)
    1.0
    """
    xs = [math.log(size) for size in sizes]
    ys = [math.log(time) for time in times]
    mean_x, mean_y = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True)) / sum(
        (x - mean_x) ** 2 for x in xs
    )


def run() -> Report:
    """Time the fit and a plain tokenization at every size."""
    one = ThriftOptions(counting_threads=1)
    everything = passages(max(SIZES))
    fit_times: list[float] = []
    token_times: list[float] = []
    figures: list[tuple[str, str]] = []
    for size in SIZES:
        ws = rag_set(everything[:size], turns=TURNS)
        texts = texts_of(ws)
        timed = interleaved(
            {
                "fit": lambda: subtract_to_fit(ws, WINDOW, None, one).unwrap(),
                "tokenize": lambda: tokenize_once(texts),
            },
            REPEATS[size],
        )
        fit, tokenize = timed["fit"].median_cpu, timed["tokenize"].median_cpu
        fit_times.append(fit)
        token_times.append(tokenize)
        figures.append(
            (f"{size:,} retrievables", f"fit CPU {seconds(fit)} median ({fit / size * 1e6:.1f} us/item), "
             f"tokenize once CPU {seconds(tokenize)} median, fit/tokenize {fit / tokenize:.2f}x; "
             f"wall medians {seconds(timed['fit'].median_wall)} / {seconds(timed['tokenize'].median_wall)} "
             f"({REPEATS[size]} runs each)")
        )
    exponent = growth_exponent(SIZES, fit_times)
    figures.append(("tokenize-once growth exponent", f"{growth_exponent(SIZES, token_times):.3f}"))
    return Report(
        workload="workload 5: scale",
        headline="fit CPU-time growth exponent (log-log slope of medians over 1k, 10k, 100k)",
        **at_most(exponent, TARGET),
        inputs=(
            ("retrievables", f"{', '.join(f'{n:,}' for n in SIZES)} passages of 50-400 words (seed {SEED}; "
                             "each size a prefix of the largest)"),
            ("messages", f"{TURNS} chat turns + system prompt; window {WINDOW:,}"),
            ("repeats", "runs per contender " + ", ".join(f"{n:,}: {r}" for n, r in REPEATS.items())
                        + ", A-B-B-A; fit on 1 thread"),
        ),
        figures=tuple(figures),
    )


def main() -> int:
    """Run the workload."""
    return 0 if run_and_print(run).met else 1


if __name__ == "__main__":
    sys.exit(main())
