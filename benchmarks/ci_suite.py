"""The test suite's wall and CPU time, run in one process against ``-n WORKERS`` (pytest-xdist).

    python -m benchmarks.ci_suite [--rounds R] [--workers N] [-- PYTEST_ARGS...]

Each round runs the two contenders forward then backward (A-B-B-A), so load bursts on a shared
machine hit both alike. Each run is a fresh ``python -m pytest -q`` child (the environment is
passed through: set ``HYPOTHESIS_PROFILE``, ``THRIFT_FP_TEST_PG_URL`` as CI does). Reported per
contender: median and best wall time, median CPU time (user + sys of the child and every process
it waited for, from ``getrusage(RUSAGE_CHILDREN)``), the load average at the start, and pytest's
closing line, so both did the same work. Not part of ``python -m benchmarks``: one round of the
whole suite takes many minutes. Figures in BENCHMARKS.md ("CI time").
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Run:
    """One pytest run: its wall and CPU seconds and pytest's closing line."""

    wall: float
    cpu: float
    summary: str


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_suite(pytest_args: Sequence[str], workers: int) -> Run:
    """Run the suite once in a child process; ``workers`` 0 means no xdist.

    >>> run = run_suite(["--version"], 0)
    >>> run.summary.startswith("pytest "), run.wall > 0, run.cpu >= 0
    (True, True, True)
    """
    parallel = ["-n", str(workers), "--dist", "loadfile"] if workers else []
    cpu_before, started = _children_cpu(), time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", *parallel, *pytest_args], capture_output=True, text=True, check=False
    )
    wall, cpu = time.perf_counter() - started, _children_cpu() - cpu_before
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    return Run(wall, cpu, lines[-1] if lines else f"exit {done.returncode}: {done.stderr.strip()[-200:]}")


def main(argv: Sequence[str]) -> int:
    """Run the A-B-B-A rounds and print one line per run and a summary per contender."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.ci_suite")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("pytest_args", nargs="*")
    options = parser.parse_args(argv)
    names = {0: "serial", options.workers: f"-n {options.workers}"}
    runs: dict[int, list[Run]] = {0: [], options.workers: []}
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; {os.cpu_count()} CPUs", flush=True)
    for _ in range(options.rounds):
        for workers in (0, options.workers, options.workers, 0):
            run = run_suite(options.pytest_args, workers)
            runs[workers].append(run)
            load = os.getloadavg()[0]
            print(f"{names[workers]:>8}: wall {run.wall:7.1f} s  cpu {run.cpu:7.1f} s  load {load:.2f}  | {run.summary}", flush=True)
    for workers, done in runs.items():
        walls, cpus = [r.wall for r in done], [r.cpu for r in done]
        print(
            f"{names[workers]:>8}: wall median {statistics.median(walls):.1f} s (best {min(walls):.1f} s), "
            f"cpu median {statistics.median(cpus):.1f} s"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
