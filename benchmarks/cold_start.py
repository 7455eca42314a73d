"""Cold start: ``thrift-fp --help`` and ``import thrift_fp`` in fresh interpreters.

    python -m benchmarks.cold_start [ROUNDS]

Targets (issue 14): ``thrift-fp --help`` ≤ 0.25 s wall, and ``import thrift_fp`` ≤ 2× importing
its runtime dependencies (returns, beartype, tiktoken). Each contender is a new subprocess;
rounds run the contenders forward then backward (A-B-B-A), so load bursts hit all alike.
Medians and bests of wall time and of the child's CPU time (user + sys, from ``wait4``).
Also shown, not targets: importing every curated top-level name (which loads every layer),
and the bare interpreter start.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass

from benchmarks._harness import Report, run_and_print, seconds

_HELP_TARGET_S = 0.25
_IMPORT_RATIO_TARGET = 2.0


def _help_command() -> list[str]:
    script = shutil.which("thrift-fp", path=os.path.dirname(sys.executable))
    return [script, "--help"] if script else [sys.executable, "-m", "thrift_fp", "--help"]


CONTENDERS: dict[str, list[str]] = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "import returns.result, beartype, tiktoken": [sys.executable, "-c", "import returns.result, beartype, tiktoken"],
    "import thrift_fp": [sys.executable, "-c", "import thrift_fp"],
    "from thrift_fp import * (every layer)": [sys.executable, "-c", "from thrift_fp import *"],
    "thrift-fp --help": _help_command(),
}


@dataclass(frozen=True, slots=True)
class Timing:
    """One contender's wall and CPU seconds over every round."""

    wall: tuple[float, ...]
    cpu: tuple[float, ...]


def _once(command: Sequence[str]) -> tuple[float, float]:
    started = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} exited {child.returncode}")
    return wall, usage.ru_utime + usage.ru_stime


def measure(rounds: int) -> dict[str, Timing]:
    """Every contender ``rounds * 2`` times, interleaved A-B-...-B-A."""
    names = list(CONTENDERS)
    for name in names:  # warm the bytecode caches once; not counted
        _once(CONTENDERS[name])
    walls: dict[str, list[float]] = {name: [] for name in names}
    cpus: dict[str, list[float]] = {name: [] for name in names}
    for _ in range(rounds):
        for name in [*names, *reversed(names)]:
            wall, cpu = _once(CONTENDERS[name])
            walls[name].append(wall)
            cpus[name].append(cpu)
    return {name: Timing(tuple(walls[name]), tuple(cpus[name])) for name in names}


def run(rounds: int = 10) -> Report:
    """The cold-start workload as a report."""
    load_before = os.getloadavg()
    timings = measure(rounds)
    load_after = os.getloadavg()
    median = {name: statistics.median(t.wall) for name, t in timings.items()}
    median_cpu = {name: statistics.median(t.cpu) for name, t in timings.items()}
    deps, ours, help_ = "import returns.result, beartype, tiktoken", "import thrift_fp", "thrift-fp --help"
    import_ratio = median[ours] / median[deps]
    help_met = median[help_] <= _HELP_TARGET_S
    figures = [
        (name, f"wall median {seconds(median[name])} best {seconds(min(t.wall))}; "
               f"cpu median {seconds(median_cpu[name])} best {seconds(min(t.cpu))}")
        for name, t in timings.items()
    ]
    figures += [
        ("import ratio (wall medians)", f"{import_ratio:.2f}"),
        ("import ratio (cpu medians)", f"{median_cpu[ours] / median_cpu[deps]:.2f}"),
        ("--help wall median", f"{seconds(median[help_])} (target {seconds(_HELP_TARGET_S)}: "
                               f"{'met' if help_met else 'missed'})"),
        ("--help cpu median", seconds(median_cpu[help_])),
    ]
    return Report(
        workload="cold_start",
        headline="import thrift_fp / import its dependencies (wall medians)",
        value=import_ratio,
        target=f"≤ {_IMPORT_RATIO_TARGET} and --help ≤ {seconds(_HELP_TARGET_S)} wall",
        met=import_ratio <= _IMPORT_RATIO_TARGET and help_met,
        inputs=(
            ("rounds", f"{rounds} (each contender {2 * rounds} runs, A-B-B-A)"),
            ("load average before", " ".join(f"{value:.2f}" for value in load_before)),
            ("load average after", " ".join(f"{value:.2f}" for value in load_after)),
        ),
        figures=tuple(figures),
        notes=(
            "wall time on a loaded shared machine is inflated; cpu time is the steadier figure",
        ),
    )


if __name__ == "__main__":
    report = run_and_print(lambda: run(int(sys.argv[1]) if len(sys.argv) > 1 else 10))
    sys.exit(0 if report.met else 1)
