"""Run every workload in one process (memory spawns its own children) and print a summary.

    python -m benchmarks            # or: python -m benchmarks.run_all
    python -m benchmarks counting peer   # only the named workloads

Exit status 0 when every target is met, 1 otherwise.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence

from benchmarks import adapters, algorithm, answer_quality, cold_start, counting, envelope, memory, peer, refit, scale
from benchmarks._harness import Report, figure, machine, run_and_print, seconds, versions


def _pydantic_ai_loop() -> Report:
    # Imported here: the workload needs the [pydantic-ai] extra, the others do not.
    from benchmarks import pydantic_ai_loop

    return pydantic_ai_loop.run()


WORKLOADS: dict[str, Callable[[], Report]] = {
    "counting": counting.run,
    "refit": refit.run,
    "algorithm": algorithm.run,
    "peer": peer.run,
    "memory": memory.run,
    "scale": scale.run,
    "cold_start": cold_start.run,
    "envelope": envelope.run,
    "answer_quality": answer_quality.run,
    "serve_load": lambda: _serve_load(),
    "serve_resources": lambda: _serve_resources(),
    "pydantic_ai_loop": _pydantic_ai_loop,
    "adapters": adapters.run,
}


def _serve_load() -> Report:
    # Imported on use: it needs the mcp extra, which the other workloads do not.
    from benchmarks import serve_load  # noqa: PLC0415

    return serve_load.run()


def _serve_resources() -> Report:
    # Imported on use, like serve_load: the mcp extra.
    from benchmarks import serve_resources  # noqa: PLC0415

    return serve_resources.run()


def main(argv: Sequence[str]) -> int:
    """Run the named workloads (all when none is named) and summarise them."""
    unknown = [name for name in argv if name not in WORKLOADS]
    if unknown:
        print(f"unknown workload(s) {', '.join(unknown)}; choose from {', '.join(WORKLOADS)}", file=sys.stderr)
        return 2
    chosen = list(argv) or list(WORKLOADS)
    started = time.perf_counter()
    reports = [run_and_print(WORKLOADS[name]) for name in chosen]
    print("\n== summary ==")
    print("machine: " + ", ".join(f"{key} {value}" for key, value in machine().items()))
    print("versions: " + ", ".join(f"{key} {value}" for key, value in versions().items()))
    for report in reports:
        verdict = "MET" if report.met else "MISSED"
        print(f"  {verdict:6s} {report.workload}: {report.headline} = {figure(report.value)} (target {report.target})")
        for row in report.rows:
            print(f"  {'MET' if row.met else 'MISSED':6s} {report.workload}: {row.headline} = {figure(row.value)}"
                  f" (target {row.target})")
        print(f"         {report.load}")
    print(f"  total wall time {seconds(time.perf_counter() - started)}")
    return 0 if all(report.all_met for report in reports) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
