"""Stratified mutation testing: score a random sample of mutants per package.

mutmut generates every mutant of the packages named in ``[tool.mutmut]``; running all of
them takes hours on a small machine, so this draws ``--per-package`` mutants at random from
each package (a stratum), runs only those, and prints each package's score with a Wilson 95%
interval and the surviving mutants. The sample is reproducible from ``--seed``.

Usage (from a checkout with the dev extra and ``mutmut`` installed)::

    pip install -e '.[dev,mutation]'
    python -m tools.mutation_sample --per-package 200 --seed 1

Mutants inside ``message``/``__str__``/``__repr__`` methods are left out: they rewrite
human wording only (the issue's "message-only mutants excluded").
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import shutil
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

PACKAGES: Final = ("thrift", "retrieval", "render", "records")
_WORDING_ONLY: Final = frozenset({"message", "__str__", "__repr__"})
# mutmut's exit codes (mutmut/stats.py): 1 and 3 are kills, 0 a survivor; timeouts and
# segfaults count as detected, as mutmut's own score does; "no tests" counts as a survivor.
_KILLED: Final = frozenset({1, 3, -24, 24, 152, 255, 36, -11, -9, 37})
_SURVIVED: Final = frozenset({0, 5, 33})


@dataclass(frozen=True, slots=True)
class Score:
    """A package's sampled mutation score: counts, the score and its Wilson 95% interval."""

    package: str
    killed: int
    survived: tuple[str, ...]
    unchecked: int

    @property
    def checked(self) -> int:
        return self.killed + len(self.survived)

    @property
    def score(self) -> float:
        return self.killed / self.checked if self.checked else math.nan

    def interval(self, z: float = 1.959964) -> tuple[float, float]:
        """Wilson score interval (it behaves at scores near 100%, unlike the normal one).

        >>> [round(x, 3) for x in Score("p", 95, ("a",) * 5, 0).interval()]
        [0.888, 0.978]
        """
        n = self.checked
        if n == 0:
            return (math.nan, math.nan)
        p = self.killed / n
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return (centre - half, centre + half)


def package_of(mutant: str) -> str | None:
    """The thrift_fp subpackage a mutant name belongs to.

    >>> package_of("thrift_fp.thrift._budget.x_resolve_budget__mutmut_3")
    'thrift'
    >>> package_of("thrift_fp.cli._app.x_main__mutmut_1") is None
    True
    """
    parts = mutant.split(".")
    if len(parts) > 2 and parts[0] == "thrift_fp" and parts[1] in PACKAGES:
        return parts[1]
    return None


def wording_only(mutant: str) -> bool:
    """Whether a mutant sits in a method that only builds human wording.

    >>> wording_only("thrift_fp.thrift._errors.xǁInvalidBudgetǁmessage__mutmut_2")
    True
    >>> wording_only("thrift_fp.thrift._budget.x_resolve_budget__mutmut_3")
    False
    """
    function = mutant.partition("__mutmut_")[0].rpartition(".")[2]
    return function.rpartition("ǁ")[2] in _WORDING_ONLY


def draw(mutants: Iterable[str], per_package: int, seed: int) -> dict[str, list[str]]:
    """``per_package`` mutants drawn at random (reproducibly) from each package.

    >>> names = [f"thrift_fp.render._x.x_f__mutmut_{i}" for i in range(10)]
    >>> draw(names, 3, seed=1) == draw(names, 3, seed=1), len(draw(names, 3, seed=1)["render"])
    (True, 3)
    """
    strata: dict[str, list[str]] = {}
    for name in sorted(mutants):
        package = package_of(name)
        if package is not None and not wording_only(name):
            strata.setdefault(package, []).append(name)
    rng = random.Random(seed)
    return {p: sorted(rng.sample(names, min(per_package, len(names)))) for p, names in strata.items()}


def exit_codes(mutants_dir: Path) -> dict[str, int | None]:
    """Every generated mutant's recorded exit code (None: not run yet), from mutmut's .meta files."""
    codes: dict[str, int | None] = {}
    for meta in mutants_dir.rglob("*.py.meta"):
        data = json.loads(meta.read_text("utf-8"))
        codes.update(data["exit_code_by_key"])
    return codes


def scores(sample: Mapping[str, Sequence[str]], codes: Mapping[str, int | None]) -> list[Score]:
    """Score each package's sample from the recorded exit codes.

    >>> scores({"render": ["a", "b", "c"]}, {"a": 1, "b": 0, "c": None})
    [Score(package='render', killed=1, survived=('b',), unchecked=1)]
    """
    result = []
    for package, names in sorted(sample.items()):
        killed = sum(1 for n in names if codes.get(n) in _KILLED)
        survived = tuple(n for n in names if codes.get(n) in _SURVIVED)
        result.append(Score(package, killed, survived, len(names) - killed - len(survived)))
    return result


def _mutmut(*args: str, tests: Sequence[str] = ()) -> int:
    env = {**os.environ, "HYPOTHESIS_PROFILE": os.environ.get("HYPOTHESIS_PROFILE", "ci")}
    if tests:
        env["THRIFT_FP_MUTMUT_TESTS"] = os.pathsep.join(tests)
    return subprocess.call([sys.executable, "-m", "tools._mutmut_run", *args], env=env)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--per-package", type=int, default=200, help="mutants drawn per package")
    parser.add_argument("--seed", type=int, default=1, help="seed of the draw (reproducible)")
    parser.add_argument("--keep", action="store_true", help="reuse an existing mutants/ folder")
    parser.add_argument("--show", action="store_true", help="print the diff of each survivor")
    parser.add_argument("--no-run", action="store_true",
                        help="with --keep: report the recorded results, run nothing")
    parser.add_argument("--package", action="append", choices=PACKAGES,
                        help="score only this package (repeatable; default: all four)")
    parser.add_argument("--tests", action="append", default=[],
                        help="narrow [tool.mutmut]'s test selection to this path (repeatable);"
                             " fewer tests kill fewer mutants, so the score is a lower bound")
    parser.add_argument("--max-children", type=int, default=1,
                        help="mutmut worker processes (default 1: a shared machine)")
    args = parser.parse_args(argv)
    mutants_dir = Path("mutants")
    if not args.keep and mutants_dir.exists():
        shutil.rmtree(mutants_dir)
    if not mutants_dir.exists():
        # A filter that matches nothing makes mutmut generate every mutant and collect the
        # per-test coverage stats, then stop (its "nothing matches" assertion) before running any.
        _mutmut("run", "--max-children", str(args.max_children), "thrift_fp.no-such-function__mutmut_0",
                tests=args.tests)
    codes = exit_codes(mutants_dir)
    if not codes:
        print("mutmut generated no mutants; see its output above", file=sys.stderr)
        return 2
    sample = draw(codes, args.per_package, args.seed)
    if args.package:
        sample = {p: names for p, names in sample.items() if p in args.package}
    wanted = [name for names in sample.values() for name in names if codes.get(name) is None]
    if wanted and not args.no_run:
        _mutmut("run", "--max-children", str(args.max_children), *wanted, tests=args.tests)
        codes = exit_codes(mutants_dir)
    print(f"{'package':<10} {'sampled':>7} {'killed':>6} {'survived':>8} {'score':>7}  95% interval")
    for s in scores(sample, codes):
        low, high = s.interval()
        print(f"{s.package:<10} {s.checked:>7} {s.killed:>6} {len(s.survived):>8} {s.score:>7.1%}"
              f"  {low:.1%}–{high:.1%}" + (f"  ({s.unchecked} not run)" if s.unchecked else ""))
    for s in scores(sample, codes):
        for name in s.survived:
            print(f"survived: {name}")
            if args.show:
                _mutmut("show", name)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
