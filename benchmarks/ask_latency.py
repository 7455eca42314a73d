"""One `thrift-fp ask` process, and `serve` answering `initialize`, at 10,000 passages.

    python -m benchmarks.ask_latency [ROUNDS] [--against CHECKOUT] [--work DIR]

Targets (issue 35): ``thrift-fp ask`` ≤ 300 ms per process on a 10,000-passage lexical index
and ≤ 500 ms on a hybrid one; ``thrift-fp serve`` answers ``initialize`` within 300 ms.

The corpus: 1,000 generated Markdown files of ten headed sections (60-140 words from
``benchmarks._data``'s vocabulary), 10,000 passages. The lexical index is indexed with
``dense=False``. The hybrid index is the same index plus one vector per passage under the
installed default model's id and width: the vectors are deterministic stand-ins (a hash of the
passage key spread over the width, unit length), because embedding 10,000 passages for real
costs ~15 minutes of this CPU and a query's cost does not depend on the stored values — the
question is still embedded by the real model in every ``ask`` process. The passages that hold
the question's word "duck" get a stand-in near the question's real vector, so that the hybrid
``ask`` answers (fits and renders passages, as a real one does) instead of finding no match; the
benchmark checks that it does, for every checkout, before timing.

Each contender is a fresh process with the measured checkout first on ``PYTHONPATH`` (as in
``benchmarks.cold_start``); rounds run the contenders forward then backward (A-B-B-A). Wall
medians beside bests; CPU = the child's user + sys time from ``wait4``. For ``serve`` the wall
figure is the time from spawning the process to reading its answer to ``initialize`` (stdio);
its CPU is the whole process's, which then exits as its standard input closes.
``--against CHECKOUT`` (a worktree of the commit before the change) runs the same commands with
that tree first on ``PYTHONPATH``, interleaved in the same rounds. Children run with bytecode
caches on and the command's cache folder (``THRIFT_FP_CACHE_DIR``, in ``--work``) filled by an
uncounted warm-up run, as an installed package has them after its first command.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import thrift_fp
from benchmarks._data import words
from benchmarks._harness import load_average

_CHECKOUT = os.path.dirname(os.path.dirname(os.path.abspath(thrift_fp.__file__)))
QUESTION = "slave duck instant market"
# Passages holding this word of the question get stand-in vectors near the question's.
NEAR_WORD = "duck"
_INITIALIZE = json.dumps({
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "ask-latency", "version": "1"}},
}) + "\n"


class StandInVectors:
    """The installed default model's id and width, with deterministic unit vectors (see above)."""

    def __init__(self, model_id: str, dimensions: int, near: bytes | None = None) -> None:
        self.model_id, self.dimensions = model_id, dimensions
        self.near = None if near is None else struct.unpack(f"<{dimensions}f", near)

    def embed(self, texts: Sequence[str]) -> list[bytes]:
        vectors = []
        for text in texts:
            seed = random.Random(hashlib.sha256(text.encode()).digest())
            values = [seed.gauss(0.0, 1.0) for _ in range(self.dimensions)]
            norm = sum(v * v for v in values) ** 0.5
            values = [v / norm for v in values]
            if self.near is not None and NEAR_WORD in text.lower():
                values = [0.9 * q + 0.1 * v for q, v in zip(self.near, values)]
                norm = sum(v * v for v in values) ** 0.5
                values = [v / norm for v in values]
            vectors.append(struct.pack(f"<{self.dimensions}f", *values))
        return vectors


def build(work: Path) -> tuple[Path, Path, int]:
    """The corpus and both indexes in ``work`` (kept between runs); their paths and passage count."""
    from thrift_fp.sources import index_paths
    from thrift_fp.sources.dense import default_embedder

    corpus, lexical, hybrid = work / "corpus", work / "lexical.db", work / "hybrid-answering.db"
    if not corpus.exists():
        rng = random.Random(35)
        corpus.mkdir(parents=True)
        for number in range(1000):
            sections = [f"# Topic {number}\n"]
            for section in range(10):
                sections.append(f"## Section {number}.{section} {words(rng, 3)}\n\n{words(rng, rng.randint(60, 140))}\n")
            (corpus / f"doc{number:04d}.md").write_text("\n".join(sections))
    passages = index_paths(lexical, [corpus], dense=False).unwrap().passages
    if not hybrid.exists():
        model = default_embedder().unwrap()
        (question,) = model.embed([QUESTION])
        index_paths(hybrid, [corpus], dense=StandInVectors(model.model_id, model.dimensions, question)).unwrap()
    return lexical, hybrid, passages


def _env(checkout: str, work: Path) -> dict[str, str]:
    # Bytecode caches on, as an installed package has them (this workplace sets
    # PYTHONDONTWRITEBYTECODE, which made every process compile every module: a third of its CPU).
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    return {
        **env, "PYTHONPATH": os.pathsep.join(filter(None, (checkout, os.environ.get("PYTHONPATH")))),
        # The command's cache folder (the parsed vocabulary, written by the uncounted warm-up run)
        # inside the work folder, not the user's.
        "THRIFT_FP_CACHE_DIR": str(work / "cache"),
    }


def _cli(*argv: str) -> list[str]:
    # `python -m thrift_fp`, not the installed script: the script names one entry function, which
    # an older checkout may not have (`thrift_fp.cli.entry` is new); each checkout's own
    # `__main__` runs its own entry, and both pay the same few milliseconds of `runpy`.
    return [sys.executable, "-m", "thrift_fp", *argv]


def _ask(command: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    started = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=cwd)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{' '.join(command)} exited {os.waitstatus_to_exitcode(status)}")
    return wall, usage.ru_utime + usage.ru_stime


def _serve(command: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    started = time.perf_counter()
    child = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=cwd,
    )
    assert child.stdin is not None and child.stdout is not None
    child.stdin.write(_INITIALIZE.encode())
    child.stdin.flush()
    answer = child.stdout.readline()
    wall = time.perf_counter() - started
    if b'"result"' not in answer:
        child.kill()
        raise RuntimeError(f"{' '.join(command)} answered {answer[:200]!r}")
    child.stdin.close()
    _, _, usage = os.wait4(child.pid, 0)
    child.stdout.close()
    return wall, usage.ru_utime + usage.ru_stime


def _check_answers(hybrid: Path, env: dict[str, str], cwd: Path, tag: str) -> None:
    """The hybrid ``ask`` timed ranks hybrid and keeps passages (else it would time less work)."""
    shown = json.loads(subprocess.run(
        _cli("ask", QUESTION, "--db", str(hybrid), "--json"), env=env, cwd=cwd, capture_output=True, check=True,
    ).stdout)
    kept = sum(1 for decision in shown["decisions"] if decision["kept"])
    if shown.get("ranking") != "hybrid" or kept == 0:
        raise RuntimeError(f"the hybrid ask{tag} ranked {shown.get('ranking')} and kept {kept} passages")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("rounds", nargs="?", type=int, default=5, help="A-B-B-A rounds")
    parser.add_argument("--against", default=None, help="a checkout of the commit before the change")
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "thrift-fp-ask-latency")
    args = parser.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    lexical, hybrid, passages = build(args.work)
    # A folder holding no thrift-fp.db, so that no default index is found above it.
    quiet = args.work / "cwd"
    quiet.mkdir(exist_ok=True)
    commands = {
        "ask, lexical index": (_ask, _cli("ask", QUESTION, "--db", str(lexical))),
        "ask, hybrid index": (_ask, _cli("ask", QUESTION, "--db", str(hybrid))),
        "serve initialize": (_serve, _cli("serve", "--db", str(lexical))),
    }
    checkouts = {"": _env(_CHECKOUT, args.work), **({" [before]": _env(args.against, args.work)} if args.against else {})}
    runs = {name + tag: (how, command, env) for name, (how, command) in commands.items() for tag, env in checkouts.items()}
    load_before = load_average()
    for how, command, env in runs.values():  # bytecode caches and the page cache; not counted
        how(command, env, quiet)
    for tag, env in checkouts.items():
        _check_answers(hybrid, env, quiet, tag)
    walls: dict[str, list[float]] = {name: [] for name in runs}
    cpus: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(args.rounds):
        for name in [*runs, *reversed(runs)]:
            how, command, env = runs[name]
            wall, cpu = how(command, env, quiet)
            walls[name].append(wall)
            cpus[name].append(cpu)
    load_after = load_average()
    print(f"{passages} passages; {2 * args.rounds} runs per contender, interleaved; {os.cpu_count()} CPUs; "
          f"load average before {load_before}, after {load_after}")
    print(f"{'contender':32} {'wall median':>12} {'wall best':>10} {'CPU median':>11} {'CPU best':>9}")
    for name in runs:
        print(f"{name:32} {1000 * statistics.median(walls[name]):9.0f} ms {1000 * min(walls[name]):7.0f} ms"
              f" {1000 * statistics.median(cpus[name]):8.0f} ms {1000 * min(cpus[name]):6.0f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
