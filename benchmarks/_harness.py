"""What every workload shares: interleaved best-of-N timing, versions, the machine, the report."""

from __future__ import annotations

import gc
import importlib.metadata
import os
import platform
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass


def best_of(contenders: Mapping[str, Callable[[], object]], repeats: int) -> dict[str, float]:
    """The best wall time (``time.perf_counter``) of each contender over ``repeats`` rounds.

    Rounds interleave the contenders (A, B, A, B, ...) so a burst of load on a shared machine hits
    all of them alike; that is what keeps the ratios meaningful when absolute times are noise.
    The garbage collector runs before each call, not during it.
    """
    best = {name: float("inf") for name in contenders}
    for _ in range(repeats):
        for name, run in contenders.items():
            gc.collect()
            started = time.perf_counter()
            run()
            best[name] = min(best[name], time.perf_counter() - started)
    return best


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


@dataclass(frozen=True, slots=True)
class Report:
    """One workload's outcome: its headline ratio against its target, with inputs and figures."""

    workload: str
    headline: str
    value: float
    target: str
    met: bool
    inputs: tuple[tuple[str, str], ...]
    figures: tuple[tuple[str, str], ...]
    notes: tuple[str, ...] = ()

    def text(self) -> str:
        """The report as the block a script prints."""
        lines = [f"== {self.workload} =="]
        lines += [f"  input    {name}: {value}" for name, value in self.inputs]
        lines += [f"  version  {name}: {value}" for name, value in versions().items()]
        lines += [f"  figure   {name}: {value}" for name, value in self.figures]
        lines += [f"  note     {note}" for note in self.notes]
        verdict = "MET" if self.met else "MISSED"
        lines.append(f"  RESULT   {self.headline} = {figure(self.value)} (target {self.target}): {verdict}")
        return "\n".join(lines)


def figure(value: float) -> str:
    """A headline number: three decimals when small, whole otherwise."""
    return f"{value:.3f}" if abs(value) < 10 else f"{value:,.0f}"


def seconds(value: float) -> str:
    """A duration for a report line."""
    return f"{value * 1000:.1f} ms" if value < 10 else f"{value:.1f} s"


def run_and_print(run: Callable[[], Report]) -> Report:
    """Run a workload, print its machine line and report, and hand the report back."""
    print("machine: " + ", ".join(f"{name} {value}" for name, value in machine().items()), flush=True)
    report = run()
    print(report.text(), flush=True)
    return report
