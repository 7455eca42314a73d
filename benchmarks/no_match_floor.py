"""The hybrid ranking's "no passage matched" floor: chosen on tuning questions, measured on held-out ones.

    nice python -m benchmarks.no_match_floor --choose                 # tuning questions only: the curve and the floor
    nice python -m benchmarks.no_match_floor --report                 # held-out: offtopic.txt and the fresh sets
    nice python -m benchmarks.no_match_floor --report --corpora git,node --cache /tmp/aq
    nice python -m benchmarks.no_match_floor --choose-calibration --corpora cmake,node,postgresql,python,git

A hybrid search always finds a nearest passage, so a question about nothing in the corpus gets
the least unrelated ones. ``thrift_fp.sources.dense._hybrid.MATCH_FLOOR`` is the fused score the
best passage must reach for a hybrid search to answer at all (`fuse_scored`).

``--choose`` reads only tuning questions: each corpus's ``tune`` half (on-topic, labelled) and
``questions/offtopic.tune.txt`` (forty off-topic and nonsense questions written for tuning,
asked of every corpus). Per question it records the best fused score with the floor off
(``match_floor=0``) and whether a labelled file is within the first 5 passages. A floor turns
away every question whose best score is below it; the floor chosen is the lowest (on a 0.005
grid) that turns away ``--offtopic-target`` (default 0.95, above the 0.90 the held-out set must
reach) of the off-topic tuning asks while turning away at most ``--tune-loss`` (default 0.005,
half of the 0.01 the held-out figure may move) of the pooled tune questions' hits at 5 — the
lowest, so on-topic questions keep the widest margin. It is printed beside the curve.

``--choose-calibration`` reads tuning questions and the library's probes only and prints the grid
of rules by which an index calibrates its own floor (`calibrated_floor`), and the rule chosen.

``--report`` reads the held-out sets with the floor in the library (each index's calibrated one,
else ``MATCH_FLOOR``): the share of ``questions/offtopic.txt`` and ``questions/offtopic2.txt``
(asked of every corpus) answered "no passage matched", and hit@5 of
the ``fresh`` and ``fresh2`` sets with the floor and with it off (the same search, ``match_floor=0``).
It never chooses anything: run it once the floor is fixed.

Index databases and the model's vectors are cached under ``--cache`` as
``benchmarks/dense_systems.py`` keeps them (a corpus already embedded there is not embedded again).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from benchmarks._eval_set import EVAL, Corpus, Half, corpora, load, relative
from benchmarks._harness import load_average, machine
from benchmarks.answer_quality import default_cache, first_answer

if TYPE_CHECKING:
    from benchmarks.dense_systems import RememberingEmbedder

TUNE_OFFTOPIC = EVAL / "questions" / "offtopic.tune.txt"
HELD_OUT_OFFTOPIC = EVAL / "questions" / "offtopic.txt"
# Written after the first report (which read offtopic.txt) and before any run read it: the
# held-out set for the floor each index calibrates on its own probes.
HELD_OUT_OFFTOPIC2 = EVAL / "questions" / "offtopic2.txt"
GRID = 0.005
LIMIT = 10


@dataclass(frozen=True, slots=True)
class Asked:
    """One question asked of one corpus: its best fused score with the floor off (0 when nothing
    was found), whether a labelled file is within rank 5 (``None``: off-topic, no labels), and
    whether the search with the library's floor answered at all."""

    corpus: str
    question: str
    best: float
    hit: bool | None
    answered: bool


def _lines(path: Path) -> list[str]:
    return [line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _index(corpus: Corpus, cache: Path) -> tuple[Path, RememberingEmbedder]:
    from benchmarks.dense_systems import _fingerprint, remembering_embedder
    from thrift_fp.sources import index_paths

    embedder = remembering_embedder(cache)
    database = cache / f"{corpus.root.name}-{_fingerprint(corpus.root, corpus.include, corpus.exclude)}-dense.sqlite"
    started = time.perf_counter()
    index_paths(database, [corpus.root], include=list(corpus.include), exclude=list(corpus.exclude),
                dense=embedder).unwrap()
    print(f"# {corpus.name}: index ready in {time.perf_counter() - started:.1f} s ({embedder.embedded} texts embedded)",
          file=sys.stderr, flush=True)
    return database, embedder


def ask(corpus: Corpus, cache: Path, questions: Sequence[tuple[str, tuple[str, ...] | None]]) -> list[Asked]:
    """Each ``(question, labels)`` asked of ``corpus``, hybrid, with the floor off and with the library's."""
    from thrift_fp.sources import search_index

    database, embedder = _index(corpus, cache)
    asked = []
    for question, labels in questions:
        open_hits = search_index(database, question, limit=LIMIT, dense=embedder, match_floor=0.0).unwrap()
        floored = search_index(database, question, limit=LIMIT, dense=embedder).unwrap()
        files = [relative(hit.path, corpus.root) for hit in open_hits]
        rank = first_answer(files, labels) if labels is not None else None
        hit = None if labels is None else rank is not None and rank <= 5
        asked.append(Asked(corpus.name, question, open_hits[0].score if open_hits else 0.0, hit, bool(floored)))
    return asked


def _hits_kept(asked: Sequence[Asked], floor: float) -> int:
    return sum(1 for one in asked if one.hit and one.best >= floor)


def choose(on_topic: Sequence[Asked], off_topic: Sequence[Asked], tune_loss: float, target: float) -> float:
    """The lowest floor on the grid that turns away at least ``target`` of the off-topic tuning
    asks while turning away at most ``tune_loss`` of the on-topic questions (as a share of all of
    them) that had a hit at 5; the lowest, so that on-topic questions keep the widest margin.
    When no floor reaches ``target`` within the loss, the highest floor within the loss.

    >>> on = [Asked("c", "q1", 0.5, True, True), Asked("c", "q2", 0.3, True, True), Asked("c", "q3", 0.2, False, True)]
    >>> off = [Asked("c", "x", 0.1, None, True), Asked("c", "y", 0.25, None, True)]
    >>> choose(on, off, 0.0, 0.5), choose(on, off, 0.0, 1.0), choose(on, [Asked("c", "z", 0.4, None, True)], 0.0, 1.0)
    (0.105, 0.255, 0.3)
    """
    base = _hits_kept(on_topic, 0.0)
    within = 0.0
    for step in range(1, int(1 / GRID) + 1):
        floor = round(step * GRID, 3)
        if (base - _hits_kept(on_topic, floor)) / max(len(on_topic), 1) > tune_loss:
            break
        within = floor
        if _share([one.best < floor for one in off_topic]) >= target:
            return floor
    return within


def _share(values: Sequence[bool]) -> float:
    return sum(values) / len(values) if values else float("nan")


def _choose(names: Sequence[str], cache: Path, tune_loss: float, target: float) -> None:
    on_topic: list[Asked] = []
    off_topic: list[Asked] = []
    offtopic_questions = [(question, None) for question in _lines(TUNE_OFFTOPIC)]
    for name in names:
        corpus = corpora()[name]
        tune = [(q.question, q.files) for q in load(name, "tune")]
        asked = ask(corpus, cache, [*tune, *offtopic_questions])
        on_topic += asked[: len(tune)]
        off_topic += asked[len(tune):]
    print(f"tuning questions: {len(on_topic)} on-topic (tune halves of {', '.join(names)}), "
          f"{len(off_topic)} off-topic asks ({len(offtopic_questions)} questions of offtopic.tune.txt x {len(names)} corpora)")
    print(f"best fused score, on-topic with a hit at 5: median {statistics.median([a.best for a in on_topic if a.hit]):.3f}, "
          f"min {min([a.best for a in on_topic if a.hit], default=float('nan')):.3f}; "
          f"off-topic: median {statistics.median([a.best for a in off_topic]):.3f}, max {max(a.best for a in off_topic):.3f}")
    print("\nfloor  tune hit@5  off-topic no match")
    base = _hits_kept(on_topic, 0.0) / len(on_topic)
    for step in range(0, 121):
        floor = round(step * GRID, 3)
        hit5 = _hits_kept(on_topic, floor) / len(on_topic)
        refused = _share([a.best < floor for a in off_topic])
        print(f"{floor:5.3f}  {hit5:.3f} ({hit5 - base:+.3f})  {refused:.3f}")
    chosen = choose(on_topic, off_topic, tune_loss, target)
    print(f"\nchosen floor (the lowest turning away >= {target} of the off-topic tuning asks, tune hit@5 loss <= "
          f"{tune_loss}): {chosen:.3f}: tune hit@5 "
          f"{_hits_kept(on_topic, chosen) / len(on_topic):.3f} (from {base:.3f}), off-topic tuning no-match "
          f"{_share([a.best < chosen for a in off_topic]):.3f}")


def _choose_calibration(names: Sequence[str], cache: Path, tune_loss: float, target: float) -> None:
    """The rule of `calibrated_floor` (quantile of the index's probes, margin, cap), chosen on tuning
    questions only: per corpus, the probes' best scores, the tune half and offtopic.tune.txt."""
    import math

    from thrift_fp.sources.dense import MATCH_FLOOR, probe_questions

    offtopic = [(question, None) for question in _lines(TUNE_OFFTOPIC)]
    probes = [(question, None) for question in probe_questions()]
    measured: dict[str, tuple[list[Asked], list[float], list[float]]] = {}
    for name in names:
        tune = [(q.question, q.files) for q in load(name, "tune")]
        asked = ask(corpora()[name], cache, [*tune, *offtopic, *probes])
        measured[name] = (asked[: len(tune)], [a.best for a in asked[len(tune): len(tune) + len(offtopic)]],
                          [a.best for a in asked[len(tune) + len(offtopic):]])

    def nearest_rank(values: Sequence[float], share: float) -> float:
        ordered = sorted(values)
        return ordered[min(len(ordered) - 1, max(0, math.ceil(share * len(ordered)) - 1))]

    rows = []
    for quantile in (0.8, 0.85, 0.9, 0.95):
        for margin in (0.0, 0.005, 0.01, 0.015, 0.02):
            for cap in (0.35, 0.4):
                floors = {n: round(min(max(nearest_rank(p, quantile) + margin, MATCH_FLOOR), cap), 3)
                          for n, (_, _, p) in measured.items()}
                tuned = [a for n, (t, _, _) in measured.items() for a in t]
                lost = sum(1 for n, (t, _, _) in measured.items() for a in t if a.hit and a.best < floors[n])
                refused = [b < floors[n] for n, (_, o, _) in measured.items() for b in o]
                rows.append((quantile, margin, cap, lost / len(tuned), _share(refused), floors))
    print("quantile margin cap  tune hit@5 loss  off-topic tuning no match  floors")
    for quantile, margin, cap, loss, turned_away, floors in rows:
        print(f"{quantile:8} {margin:6} {cap:4}  {loss:15.3f}  {turned_away:25.3f}  {floors}")
    # The least aggressive rule (lowest quantile, then margin, then cap) reaching the target within the loss.
    within = [row for row in rows if row[3] <= tune_loss and row[4] >= target]
    print("\nchosen:", "none" if not within else f"quantile {within[0][0]}, margin {within[0][1]}, cap {within[0][2]}")


def _report(names: Sequence[str], cache: Path) -> None:
    from thrift_fp.sources import search_ranking
    from thrift_fp.sources.dense._hybrid import MATCH_FLOOR

    print(f"MATCH_FLOOR = {MATCH_FLOOR}")
    held_out = [(question, None) for question in _lines(HELD_OUT_OFFTOPIC)]
    held_out2 = [(question, None) for question in _lines(HELD_OUT_OFFTOPIC2)]
    rows: list[str] = []
    pooled_off: list[bool] = []
    pooled_off2: list[bool] = []
    pooled: dict[Half, tuple[list[bool], list[bool]]] = {"fresh": ([], []), "fresh2": ([], [])}
    for name in names:
        corpus = corpora()[name]
        sets: dict[Half, list[tuple[str, tuple[str, ...] | None]]] = {
            half: [(q.question, q.files) for q in load(name, half)] for half in ("fresh", "fresh2")
        }
        asked = ask(corpus, cache, [*sets["fresh"], *sets["fresh2"], *held_out, *held_out2])
        on_topic = len(sets["fresh"]) + len(sets["fresh2"])
        fresh, fresh2 = asked[: len(sets["fresh"])], asked[len(sets["fresh"]): on_topic]
        off, off2 = asked[on_topic: on_topic + len(held_out)], asked[on_topic + len(held_out):]
        refused = [not a.answered for a in off]
        refused2 = [not a.answered for a in off2]
        pooled_off += refused
        pooled_off2 += refused2
        database, embedder = _index(corpus, cache)  # nothing to do: ask made it
        floor = search_ranking(database, dense=embedder).unwrap().match_floor
        cells = [f"{name:10} floor {floor} {_share(refused):.3f} ({sum(refused)}/{len(refused)})"
                 f" {_share(refused2):.3f} ({sum(refused2)}/{len(refused2)})"]
        groups: tuple[tuple[Half, list[Asked]], ...] = (("fresh", fresh), ("fresh2", fresh2))
        for half, group in groups:
            without = [bool(a.hit) for a in group]
            with_floor = [bool(a.hit) and a.answered for a in group]
            pooled[half][0].extend(without)
            pooled[half][1].extend(with_floor)
            cells.append(f"{half} hit@5 {_share(without):.3f} -> {_share(with_floor):.3f} (n={len(group)})")
        rows.append("   ".join(cells))
        missed = [a.question for a in (*off, *off2) if a.answered]
        if missed:
            rows.append(f"{'':10} off-topic answered anyway: {missed}")
    print("\ncorpus     floor  offtopic.txt no match  offtopic2.txt no match  fresh sets: hit@5 floor off -> with the floor")
    print("\n".join(rows))
    print(f"\npooled: offtopic.txt no match {_share(pooled_off):.3f} ({sum(pooled_off)}/{len(pooled_off)}), "
          f"offtopic2.txt {_share(pooled_off2):.3f} ({sum(pooled_off2)}/{len(pooled_off2)}); "
          + "; ".join(f"{half} hit@5 {_share(a):.3f} -> {_share(b):.3f} ({_share(b) - _share(a):+.3f})"
                      for half, (a, b) in pooled.items()))


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.no_match_floor", description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--choose", action="store_true", help="tuning questions only: print the curve and the floor")
    mode.add_argument("--report", action="store_true", help="held-out sets with the library's floor")
    mode.add_argument("--choose-calibration", action="store_true",
                      help="tuning questions and the probes only: the rule each index calibrates its floor by")
    parser.add_argument("--corpora", default="git,node", help="comma-separated corpora (default: git,node)")
    parser.add_argument("--cache", type=Path, default=default_cache())
    parser.add_argument("--tune-loss", type=float, default=0.005)
    parser.add_argument("--offtopic-target", type=float, default=0.95)
    args = parser.parse_args(argv)
    names = [name for name in args.corpora.split(",") if name]
    unknown = [name for name in names if name not in corpora()]
    if unknown:
        parser.error(f"unknown corpora {unknown}; known: {sorted(corpora())}")
    print("machine: " + ", ".join(f"{k} {v}" for k, v in machine().items()))
    before = load_average()
    if args.choose:
        _choose(names, args.cache, args.tune_loss, args.offtopic_target)
    elif args.choose_calibration:
        _choose_calibration(names, args.cache, args.tune_loss, args.offtopic_target)
    else:
        _report(names, args.cache)
    print(f"load average (1/5/15 min) before {before}, after {load_average()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
