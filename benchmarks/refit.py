"""Workload 6, re-fit: the next turn's fit with the previous fit's counts.

A working set of 500 chat messages and 50 passages is fitted (turn N); then one message is
appended (turn N+1) and fitted twice: cold (no counts) and with turn N's `Fitted.counts`. The
re-fit must keep exactly the cold fit's set (checked before timing), and cost, by CPU time
(median), at most 0.1x the cold fit. Rows for 1 thread (the target) and for n threads.

    python -m benchmarks.refit
"""

from __future__ import annotations

import sys
from dataclasses import replace
from datetime import timedelta

from benchmarks._data import SEED, passages
from benchmarks._harness import Report, at_most, interleaved, ratio_text, run_and_print
from benchmarks._sets import rag_set
from thrift_fp.thrift import Fitted, Message, ThriftOptions, WorkingSet, subtract_to_fit
from thrift_fp.tokens import TokenCounts

MESSAGES = 500
PASSAGES = 50
WINDOW = 16_000
THREADS = 2
REPEATS = 21
TARGET = 0.1


def _turns() -> tuple[WorkingSet, WorkingSet]:
    turn = rag_set(passages(PASSAGES), turns=MESSAGES)
    last = turn.messages[-1]
    appended = Message("appended", "And what about the second passage you cited?",
                       last.created_at + timedelta(seconds=1), role="user")
    return turn, replace(turn, messages=(*turn.messages, appended))


def _fit(ws: WorkingSet, threads: int, counts: TokenCounts = TokenCounts()) -> Fitted:
    return subtract_to_fit(ws, WINDOW, None, ThriftOptions(counting_threads=threads), counts=counts).unwrap()


def run(repeats: int = REPEATS) -> Report:
    """The cold fit of turn N+1 against its re-fit with turn N's counts, on 1 and n threads."""
    previous, current = _turns()
    rows = {}
    for threads in (1, THREADS):
        counts = _fit(previous, threads).counts
        cold, warm = _fit(current, threads), _fit(current, threads, counts)
        if (warm.working_set, warm.trace) != (cold.working_set, cold.trace):
            raise AssertionError("the re-fit kept a different set than the cold fit")
        rows[threads] = interleaved(
            {"cold": lambda: _fit(current, threads), "refit": lambda: _fit(current, threads, counts)}, repeats
        )
    one = rows[1]
    ratio = one["refit"].median_cpu / one["cold"].median_cpu
    fitted = _fit(current, 1)
    figures: list[tuple[str, str]] = []
    for threads, timing in rows.items():
        figures += [
            (f"cold fit of turn N+1, {threads} thread(s)", timing["cold"].text()),
            (f"re-fit with turn N's counts, {threads} thread(s)", timing["refit"].text()),
            (f"re-fit / cold, {threads} thread(s)", ratio_text(timing["refit"], timing["cold"])),
        ]
    return Report(
        workload="workload 6: re-fit with the previous counts",
        headline="re-fit CPU / cold fit CPU after one appended message, 1 thread (median)",
        **at_most(ratio, TARGET, "x, same kept set"),
        inputs=(
            ("working set", f"{MESSAGES} chat messages of 5-120 words + {PASSAGES} passages of 50-400 words "
                            f"(seed {SEED}), then one message appended"),
            ("window", f"{WINDOW:,} (budget {fitted.trace.budget:,}; kept {len(fitted.working_set.messages)} "
                       f"messages, {len(fitted.working_set.retrievables)} passages)"),
            ("kept set", "re-fit == cold fit (working set and trace), checked before timing"),
            ("repeats", f"{repeats} runs per contender, A-B-B-A; CPU = time.process_time"),
        ),
        figures=tuple(figures),
    )


def main() -> int:
    """Run the workload."""
    return 0 if run_and_print(run).all_met else 1


if __name__ == "__main__":
    sys.exit(main())
