"""What every workload shares: the timing method, versions, the machine, load, the report.

The method, for every workload:

- every contender runs the same number of times (a baseline is never run once and extrapolated
  while its contender gets best-of-N);
- runs are interleaved A-B-B-A (round r runs the contenders in order, round r+1 in reverse), so a
  burst of load or a warming cache hits every contender alike;
- each run records **CPU time** (``time.process_time``: this process, all its threads) and wall
  time (``time.perf_counter``); CPU time is the primary measure, since the machine is shared and
  wall time mostly measures the neighbours; medians are reported beside bests, and a target is met
  only when its **median** is;
- both sides of a ratio do equal work with the same number of threads (1-thread rows always);
- the load average is read before and after every workload and printed with it.
The garbage collector runs before each call, not during it.
"""

from __future__ import annotations

import gc
import importlib.metadata
import os
import platform
import statistics
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import TypedDict


@dataclass(frozen=True, slots=True)
class Timing:
    """Every run of one contender: CPU and wall seconds, in run order."""

    cpu: tuple[float, ...]
    wall: tuple[float, ...]

    @property
    def median_cpu(self) -> float:
        return statistics.median(self.cpu)

    @property
    def best_cpu(self) -> float:
        return min(self.cpu)

    @property
    def median_wall(self) -> float:
        return statistics.median(self.wall)

    @property
    def best_wall(self) -> float:
        return min(self.wall)

    def text(self) -> str:
        """``CPU median (best) / wall median (best)`` for a report line."""
        return (f"CPU {seconds(self.median_cpu)} median ({seconds(self.best_cpu)} best), "
                f"wall {seconds(self.median_wall)} median ({seconds(self.best_wall)} best), {len(self.cpu)} runs")


def interleaved(contenders: Mapping[str, Callable[[], object]], repeats: int) -> dict[str, Timing]:
    """Run each contender ``repeats`` times, A-B-B-A, recording CPU and wall time per run.

    >>> timings = interleaved({"a": lambda: sum(range(100)), "b": lambda: None}, 2)
    >>> [len(timings[name].cpu) for name in ("a", "b")]
    [2, 2]
    """
    cpu: dict[str, list[float]] = {name: [] for name in contenders}
    wall: dict[str, list[float]] = {name: [] for name in contenders}
    names = list(contenders)
    for round_ in range(repeats):
        for name in names if round_ % 2 == 0 else reversed(names):
            gc.collect()
            started_cpu, started_wall = time.process_time(), time.perf_counter()
            contenders[name]()
            cpu[name].append(time.process_time() - started_cpu)
            wall[name].append(time.perf_counter() - started_wall)
    return {name: Timing(tuple(cpu[name]), tuple(wall[name])) for name in names}


def ratio_text(top: Timing, bottom: Timing) -> str:
    """The CPU and wall ratios of two timings, median and best."""
    return (f"CPU {top.median_cpu / bottom.median_cpu:.3f}x median ({top.best_cpu / bottom.best_cpu:.3f}x best), "
            f"wall {top.median_wall / bottom.median_wall:.3f}x median ({top.best_wall / bottom.best_wall:.3f}x best)")


def best_of(contenders: Mapping[str, Callable[[], object]], repeats: int) -> dict[str, float]:
    """The best wall time of each contender over ``repeats`` A-B-B-A rounds (`interleaved`).

    Kept for workloads that report best wall times only; new figures should use `interleaved`
    and report CPU medians.
    """
    return {name: timing.best_wall for name, timing in interleaved(contenders, repeats).items()}


def load_average() -> str:
    """The 1, 5 and 15 minute load averages, as printed in every report."""
    try:
        one, five, fifteen = os.getloadavg()
    except OSError:
        return "unavailable"
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


def _version(distribution: str) -> str:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def versions() -> dict[str, str]:
    """Versions of what the figures depend on."""
    return {
        "python": platform.python_version(),
        "tiktoken": _version("tiktoken"),
        "thrift_fp": _version("thrift_fp"),
        "langchain-core": _version("langchain-core"),
    }


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _ram_gib() -> str:
    try:
        with open("/proc/meminfo", encoding="utf-8") as meminfo:
            for line in meminfo:
                if line.startswith("MemTotal:"):
                    return f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
    except OSError:
        pass
    return "unknown"


def machine() -> dict[str, str]:
    """The machine the figures come from."""
    return {
        "nproc": str(len(os.sched_getaffinity(0))),
        "cpu": _cpu_model(),
        "ram": _ram_gib(),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
    }


class Verdict(TypedDict):
    """A figure, its target as printed and whether it meets it, for `Row` and `Report` (``**``):
    the target's text and the check come from one number, so they cannot disagree."""

    value: float
    target: str
    met: bool


def at_most(value: float, limit: float, unit: str = "", spec: str = "") -> Verdict:
    """``value`` against the ceiling ``limit`` (printed with the format ``spec``, then ``unit``).

    >>> at_most(1.25, 1.2, "x")
    {'value': 1.25, 'target': '<= 1.2x', 'met': False}
    """
    return Verdict(value=value, target=f"<= {limit:{spec}}{unit}", met=value <= limit)


def at_least(value: float, limit: float, unit: str = "", spec: str = "") -> Verdict:
    """``value`` against the floor ``limit`` (printed with the format ``spec``, then ``unit``).

    >>> at_least(12.0, 10, "x", ".0f")
    {'value': 12.0, 'target': '>= 10x', 'met': True}
    """
    return Verdict(value=value, target=f">= {limit:{spec}}{unit}", met=value >= limit)


def none_of(count: float) -> Verdict:
    """``count`` (of failures) against the target of none.

    >>> none_of(0.0)
    {'value': 0.0, 'target': '0', 'met': True}
    """
    return Verdict(value=count, target="0", met=count == 0)


@dataclass(frozen=True, slots=True)
class Row:
    """One more target a workload checks beside its headline (same rule: met only by its median)."""

    headline: str
    value: float
    target: str
    met: bool

    def text(self) -> str:
        verdict = "MET" if self.met else "MISSED"
        return f"{self.headline} = {figure(self.value)} (target {self.target}): {verdict}"


@dataclass(frozen=True, slots=True)
class Report:
    """One workload's outcome: its headline ratio against its target, any further target rows,
    inputs, figures, and the load average before and after it ran."""

    workload: str
    headline: str
    value: float
    target: str
    met: bool
    inputs: tuple[tuple[str, str], ...]
    figures: tuple[tuple[str, str], ...]
    notes: tuple[str, ...] = ()
    rows: tuple[Row, ...] = ()
    load: str = ""

    @property
    def all_met(self) -> bool:
        return self.met and all(row.met for row in self.rows)

    def text(self) -> str:
        """The report as the block a script prints."""
        lines = [f"== {self.workload} =="]
        lines += [f"  input    {name}: {value}" for name, value in self.inputs]
        lines += [f"  version  {name}: {value}" for name, value in versions().items()]
        lines += [f"  figure   {name}: {value}" for name, value in self.figures]
        lines += [f"  note     {note}" for note in self.notes]
        if self.load:
            lines.append(f"  load     {self.load}")
        verdict = "MET" if self.met else "MISSED"
        lines.append(f"  RESULT   {self.headline} = {figure(self.value)} (target {self.target}): {verdict}")
        lines += [f"  RESULT   {row.text()}" for row in self.rows]
        return "\n".join(lines)


def figure(value: float) -> str:
    """A headline number: three decimals when small, whole otherwise."""
    return f"{value:.3f}" if abs(value) < 10 else f"{value:,.0f}"


def seconds(value: float) -> str:
    """A duration for a report line."""
    return f"{value * 1000:.1f} ms" if value < 10 else f"{value:.1f} s"


def run_and_print(run: Callable[[], Report]) -> Report:
    """Run a workload, print its machine line and report (with the load average before and after
    it), and hand the report back."""
    print("machine: " + ", ".join(f"{name} {value}" for name, value in machine().items()), flush=True)
    before = load_average()
    report = run()
    report = replace(report, load=f"load average (1/5/15 min) before {before}, after {load_average()}"
                                  f" on {machine()['nproc']} CPUs")
    print(report.text(), flush=True)
    return report
