"""Cold start: ``thrift-fp --help`` and ``import thrift_fp`` in fresh interpreters.

    python -m benchmarks.cold_start [ROUNDS] [--against CHECKOUT]

Targets: ``thrift-fp --help`` ≤ 0.25 s wall (and, held to the same bound, every
subcommand's ``--help`` and ``--version``), and ``import thrift_fp`` ≤ 2× importing its runtime
dependencies (returns, beartype, tiktoken). Each contender is a new subprocess; rounds run the
contenders forward then backward (A-B-B-A), so load bursts hit all alike. Medians and bests of
wall time and of the child's CPU time (user + sys, from ``wait4``). Also shown, not targets:
importing every curated top-level name (which loads every layer), and the bare interpreter start.

Every child runs with this checkout first on ``PYTHONPATH``: the console script of an editable
install in a shared virtual environment otherwise imports whichever checkout was installed.
``--against CHECKOUT`` (e.g. ``git archive <commit> | tar -x -C /tmp/before``) adds that tree's
``import thrift_fp``, ``--help`` and ``ask --help`` to the same interleaved rounds: a before/after
in one run, shown, not targets.
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

import thrift_fp
from benchmarks._harness import Report, run_and_print, seconds

_HELP_TARGET_S = 0.25
_IMPORT_RATIO_TARGET = 2.0
# The checkout whose thrift_fp this process imported: every child imports the same one.
_CHECKOUT = os.path.dirname(os.path.dirname(os.path.abspath(thrift_fp.__file__)))


def _cli(*argv: str) -> list[str]:
    script = shutil.which("thrift-fp", path=os.path.dirname(sys.executable))
    return [script, *argv] if script else [sys.executable, "-m", "thrift_fp", *argv]


CONTENDERS: dict[str, list[str]] = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "import returns.result, beartype, tiktoken": [sys.executable, "-c", "import returns.result, beartype, tiktoken"],
    "import thrift_fp": [sys.executable, "-c", "import thrift_fp"],
    "from thrift_fp import * (every layer)": [sys.executable, "-c", "from thrift_fp import *"],
    "thrift-fp --help": _cli("--help"),
    **{f"thrift-fp {command} --help": _cli(command, "--help") for command in ("index", "ask", "serve", "fit", "schema", "count")},
    "thrift-fp --version": _cli("--version"),
}
# Held to the --help bound: the top-level help (the target), each subcommand's, --version.
_FAST = tuple(name for name in CONTENDERS if name.startswith("thrift-fp"))


def _env(checkout: str) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (checkout, os.environ.get("PYTHONPATH"))))}


# Run with the --against checkout first on PYTHONPATH instead.
BEFORE: dict[str, list[str]] = {
    "import thrift_fp [before]": [sys.executable, "-c", "import thrift_fp"],
    "thrift-fp --help [before]": _cli("--help"),
    "thrift-fp ask --help [before]": _cli("ask", "--help"),
}


@dataclass(frozen=True, slots=True)
class Timing:
    """One contender's wall and CPU seconds over every round."""

    wall: tuple[float, ...]
    cpu: tuple[float, ...]


def _once(command: Sequence[str], env: dict[str, str]) -> tuple[float, float]:
    started = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} exited {child.returncode}")
    return wall, usage.ru_utime + usage.ru_stime


def measure(rounds: int, against: str | None = None) -> dict[str, Timing]:
    """Every contender ``rounds * 2`` times, interleaved A-B-...-B-A."""
    ours, theirs = _env(_CHECKOUT), _env(against) if against else {}
    commands = {name: (command, ours) for name, command in CONTENDERS.items()}
    if against:
        commands |= {name: (command, theirs) for name, command in BEFORE.items()}
    names = list(commands)
    for name in names:  # warm the bytecode caches once; not counted
        _once(*commands[name])
    walls: dict[str, list[float]] = {name: [] for name in names}
    cpus: dict[str, list[float]] = {name: [] for name in names}
    for _ in range(rounds):
        for name in [*names, *reversed(names)]:
            wall, cpu = _once(*commands[name])
            walls[name].append(wall)
            cpus[name].append(cpu)
    return {name: Timing(tuple(walls[name]), tuple(cpus[name])) for name in names}


def run(rounds: int = 10, against: str | None = None) -> Report:
    """The cold-start workload as a report."""
    load_before = os.getloadavg()
    timings = measure(rounds, against)
    load_after = os.getloadavg()
    median = {name: statistics.median(t.wall) for name, t in timings.items()}
    median_cpu = {name: statistics.median(t.cpu) for name, t in timings.items()}
    deps, ours, help_ = "import returns.result, beartype, tiktoken", "import thrift_fp", "thrift-fp --help"
    import_ratio = median[ours] / median[deps]
    help_met = median[help_] <= _HELP_TARGET_S
    slowest = max(_FAST, key=lambda name: median[name])
    all_fast_met = median[slowest] <= _HELP_TARGET_S
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
        ("slowest --help/--version wall median", f"{slowest}: {seconds(median[slowest])} (same bound: "
                                                 f"{'met' if all_fast_met else 'missed'})"),
        ("slowest --help/--version cpu median", seconds(max(median_cpu[name] for name in _FAST))),
    ]
    return Report(
        workload="cold_start",
        headline="import thrift_fp / import its dependencies (wall medians)",
        value=import_ratio,
        target=f"≤ {_IMPORT_RATIO_TARGET}, and every --help and --version ≤ {seconds(_HELP_TARGET_S)} wall",
        met=import_ratio <= _IMPORT_RATIO_TARGET and help_met and all_fast_met,
        inputs=(
            ("rounds", f"{rounds} (each contender {2 * rounds} runs, A-B-B-A)"),
            ("checkout", f"{_CHECKOUT} (first on every child's PYTHONPATH)"),
            *((("[before] checkout", against),) if against else ()),
            ("load average before", " ".join(f"{value:.2f}" for value in load_before)),
            ("load average after", " ".join(f"{value:.2f}" for value in load_after)),
        ),
        figures=tuple(figures),
        notes=(
            "wall time on a loaded shared machine is inflated; cpu time is the steadier figure",
        ),
    )


def _arguments(argv: Sequence[str]) -> tuple[int, str | None]:
    rest = list(argv)
    against = None
    if "--against" in rest:
        at = rest.index("--against")
        against = os.path.abspath(rest[at + 1])
        del rest[at : at + 2]
    return (int(rest[0]) if rest else 10), against


if __name__ == "__main__":
    rounds, against = _arguments(sys.argv[1:])
    report = run_and_print(lambda: run(rounds, against))
    sys.exit(0 if report.met else 1)
