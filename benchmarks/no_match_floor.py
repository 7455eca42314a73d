"""The hybrid ranking's "no passage matched" floor: chosen on tuning questions, measured on held-out ones.

    nice python -m benchmarks.no_match_floor --choose                 # tuning questions only: the curve and the floor
    nice python -m benchmarks.no_match_floor --report                 # held-out: offtopic*.txt and the fresh sets
    nice python -m benchmarks.no_match_floor --report --corpora git,node --cache /tmp/aq
    nice python -m benchmarks.no_match_floor --choose-calibration --corpora cmake,node,postgresql,python,git
    nice python -m benchmarks.no_match_floor --choose-rule --corpora cmake,node,postgresql,python,git --cache /tmp/aq
    nice python -m benchmarks.no_match_floor --small --cache /tmp/aq

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

``--choose-rule`` reads tuning data only — each corpus's ``tune`` half, ``offtopic.tune.txt``,
the spent held-out sets ``offtopic.txt`` and ``offtopic2.txt`` (their results were reported
before this rule), and the library's probes — and prints, per weight of the share of a question
no passage holds (`thrift_fp.sources.dense.UNKNOWN_WEIGHT`, on a 0.05 grid), each index's floor
calibrated on the probes' match scores, the tune hits at 5 lost and the off-topic asks turned
away per corpus; the weight chosen is the least with no tune hit lost on any corpus and every
corpus turning away ``--offtopic-target`` (0.95) of its off-topic tuning asks.

``--small`` reads the same tuning data as ``--choose-rule`` and measures the rule on small
indexes (`SMALL`: 150 to 950 passages, subsets of the corpora holding the files labelled for
several ``tune`` questions), each indexed and calibrated by the library's own index run: per index
the tune questions whose labels it holds, hit@5 with the floor off, the hits the rule loses and
the spent off-topic sets answered "no passage matched", with `unknown_share` scaled as the
library does (`absence_weight`: nothing below `FADE_FROM` passages, in proportion up to
`KNOWN_AT`), scaled in proportion below other sizes (1: no scaling) and with no unknown share at
all (the rule before it). Each alternative recalibrates the index's floor on the probes' match
scores, as an index run would. (Its first run, with the library scaling in proportion below 1,000
passages, chose the library's `FADE_FROM`; BENCHMARKS.md §23.)

``--report`` reads the held-out sets with the rule in the library (each index's calibrated
floor, else ``MATCH_FLOOR``): the share of ``questions/offtopic.txt``, ``offtopic2.txt`` and
``offtopic3.txt`` (asked of every corpus) answered "no passage matched", and hit@5 of the
``fresh`` and ``fresh2`` sets with the floor off (the same search, ``match_floor=0``), with the
previous rule (computed from the same run's scores) and with the library's. It never chooses
anything: run it once the rule is fixed.

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
from typing import TYPE_CHECKING, Final

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
# Written after offtopic2.txt had been reported and before any run read it (56e845b): the
# held-out set for the rule that weighs the share of a question no passage holds.
HELD_OUT_OFFTOPIC3 = EVAL / "questions" / "offtopic3.txt"
GRID = 0.005
LIMIT = 10


@dataclass(frozen=True, slots=True)
class Asked:
    """One question asked of one corpus: its best fused score with the floor off (0 when nothing
    was found), whether a labelled file is within rank 5 (``None``: off-topic, no labels),
    whether the search with the library's floor answered at all, and the share of the question
    no passage holds (`thrift_fp.sources.ranking.unknown_share`, as the search computes it)."""

    corpus: str
    question: str
    best: float
    hit: bool | None
    answered: bool
    unknown: float = 0.0


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
        asked.append(Asked(corpus.name, question, open_hits[0].score if open_hits else 0.0, hit, bool(floored),
                           _unknown(database, question)))
    return asked


def _unknown(database: Path, question: str) -> float:
    """The share of ``question`` no passage of the index holds, read the way a search reads it."""
    from thrift_fp.sources.contract import ALL_TIERS
    from thrift_fp.sources.ranking import SNOWBALL, query_words
    from thrift_fp.sources.sqlite._search import _ranked
    from thrift_fp.sources.sqlite._store import open_index

    connection = open_index(database).unwrap()
    try:
        row = connection.execute("SELECT value FROM meta WHERE key = 'analyzer'").fetchone()
        terms = query_words(question, str(row[0]) if row else SNOWBALL)
        # No lexical top is asked for (limit 0): only the term counts, read over every tier.
        return _ranked(connection, terms, sorted(ALL_TIERS), 0)[2] if terms else 0.0
    finally:
        connection.close()


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


SPENT_OFFTOPIC = (("offtopic.tune", TUNE_OFFTOPIC), ("offtopic", HELD_OUT_OFFTOPIC), ("offtopic2", HELD_OUT_OFFTOPIC2))
"""The off-topic sets `--choose-rule` may read: the tuning set, and the two held-out sets whose
results have been reported (spent: no longer held out)."""
WEIGHT_GRID = tuple(round(step * 0.05, 2) for step in range(0, 21))


def _matched(asked: Asked, weight: float) -> float:
    # `match_score` with another weight: the best fused score less weight x the unknown share.
    return asked.best - weight * asked.unknown


def _choose_rule(names: Sequence[str], cache: Path, target: float) -> None:
    """The weight of the share of a question no passage holds (`UNKNOWN_WEIGHT`), chosen on
    tuning data only: per corpus its ``tune`` half, the spent off-topic sets, and the library's
    probes (which calibrate each index's floor on the match score, as an index run does)."""
    from thrift_fp.sources.dense import MATCH_FLOOR, UNKNOWN_WEIGHT, calibrated_floor, probe_questions

    offtopic = {name: [(question, None) for question in _lines(path)] for name, path in SPENT_OFFTOPIC}
    probes = [(question, None) for question in probe_questions()]
    measured: dict[str, tuple[list[Asked], dict[str, list[Asked]], list[Asked]]] = {}
    for name in names:
        tune = [(q.question, q.files) for q in load(name, "tune")]
        asked = ask(corpora()[name], cache, [*tune, *[q for qs in offtopic.values() for q in qs], *probes])
        rest = asked[len(tune):]
        by_set: dict[str, list[Asked]] = {}
        for set_name, questions in offtopic.items():
            by_set[set_name], rest = rest[: len(questions)], rest[len(questions):]
        measured[name] = (asked[: len(tune)], by_set, rest)
    print(f"tuning data: the tune halves of {', '.join(names)} ({sum(len(t) for t, _, _ in measured.values())} "
          f"questions, {sum(1 for t, _, _ in measured.values() for a in t if a.hit)} with a hit at 5 with no floor); "
          + ", ".join(f"{set_name} ({len(qs)} questions)" for set_name, qs in offtopic.items())
          + f" asked of each; {len(probes)} probes calibrating each index's floor")
    print("\nweight  floors (" + ", ".join(names) + ")  tune hits lost  off-topic no match per corpus "
          "(offtopic.tune / offtopic / offtopic2 / pooled)  closest tune hit above its floor")
    chosen: float | None = None
    for weight in WEIGHT_GRID:
        floors = {n: calibrated_floor([_matched(a, weight) for a in p], MATCH_FLOOR) for n, (_, _, p) in measured.items()}
        lost = {n: sum(1 for a in t if a.hit and _matched(a, weight) < floors[n]) for n, (t, _, _) in measured.items()}
        turned = {n: {set_name: _share([_matched(a, weight) < floors[n] for a in group]) for set_name, group in sets.items()}
                  for n, (_, sets, _) in measured.items()}
        pooled = {n: _share([_matched(a, weight) < floors[n] for group in sets.values() for a in group])
                  for n, (_, sets, _) in measured.items()}
        closest = min((_matched(a, weight) - floors[n], n, a.question) for n, (t, _, _) in measured.items()
                      for a in t if a.hit)
        print(f"{weight:5.2f}  {' '.join(f'{f:.3f}' for f in floors.values())}  {sum(lost.values())} "
              f"({' '.join(str(v) for v in lost.values())})  "
              + "  ".join(f"{n} {' / '.join(f'{v:.3f}' for v in turned[n].values())} / {pooled[n]:.3f}" for n in names)
              + f"  {closest[0]:+.3f} ({closest[1]}: {closest[2]!r})")
        if chosen is None and not any(lost.values()) and min(pooled.values()) >= target:
            chosen = weight
    print(f"\nchosen (the least weight with no tune hit at 5 lost on any corpus and every corpus turning away "
          f">= {target} of its off-topic tuning asks): {chosen}; the library's UNKNOWN_WEIGHT: {UNKNOWN_WEIGHT}")


SMALL: dict[str, tuple[str, tuple[str, ...]]] = {
    # name: (corpus, include patterns relative to its root). Chosen by the tune halves' labels and
    # the full indexes' passage counts per file, before any small index ran.
    "git-150": ("git", tuple(f"/{page}.html" for page in (
        "git-reset", "git-bisect", "git-cherry-pick", "gitignore", "git-tag", "git-clone", "git-rm", "git-add",
        "git-sparse-checkout"))),
    "git-400": ("git", tuple(f"/{page}.html" for page in (
        "git-reset", "git-bisect", "git-cherry-pick", "gitignore", "git-tag", "git-clone", "git-rm", "git-add",
        "git-sparse-checkout", "git-log", "git-diff", "git-rebase", "git-merge"))),
    "python-150": ("python", tuple(f"/library/{page}.html" for page in (
        "tempfile", "shutil", "subprocess", "timeit", "functools", "copy"))),
    "python-400": ("python", tuple(f"/library/{page}.html" for page in (
        "tempfile", "shutil", "subprocess", "timeit", "functools", "copy", "re", "profile", "configparser",
        "dataclasses", "pathlib"))),
    "python-900": ("python", ("/tutorial/*.html", "/howto/logging.html", *(f"/library/{page}.html" for page in (
        "tempfile", "shutil", "subprocess", "timeit", "functools", "copy", "re", "profile", "configparser",
        "dataclasses", "pathlib", "threading", "contextlib", "venv", "logging")))),
    "node-150": ("node", ("/process.md",)),
    "node-400": ("node", ("/process.md", "/cli.md")),
    "node-900": ("node", tuple(f"/{page}.md" for page in (
        "process", "cli", "events", "util", "readline", "timers", "worker_threads", "v8"))),
    "cmake-900": ("cmake", ("/command/*.rst", "/cpack_gen/*.rst")),
}
"""The small indexes `--small` measures: subsets of the evaluation corpora, each holding the files
labelled for several ``tune`` questions (names give the size aimed at, in passages)."""
KNOWN_AT_GRID: tuple[int | None, ...] = (1, 100, 250, 500, 1000, 2000, 4000, None)
"""The sizes `--small` scales `unknown_share` below in proportion (1: no scaling; None: no unknown
share at all), beside the library's own scaling (`absence_weight`: none below `FADE_FROM`, in
proportion up to `KNOWN_AT`)."""
LIBRARY: Final = "library"
"""The row of the library's own scaling in `--small`'s tables."""


def _small(names: Sequence[str], cache: Path) -> None:
    """The rule on small indexes, from tuning data only (see the module's docstring)."""
    import sqlite3

    import thrift_fp.sources.ranking._score as score
    from thrift_fp.sources import search_ranking
    from thrift_fp.sources.dense import MATCH_FLOOR, UNKNOWN_WEIGHT, calibrated_floor, probe_questions

    offtopic = {name: [(question, None) for question in _lines(path)] for name, path in SPENT_OFFTOPIC}
    probes = probe_questions()
    print("tuning data: tune halves (questions with a labelled file in the index), "
          + ", ".join(f"{set_name} ({len(qs)})" for set_name, qs in offtopic.items())
          + f"; {len(probes)} probes; UNKNOWN_WEIGHT {UNKNOWN_WEIGHT}, the library's FADE_FROM {score.FADE_FROM} and KNOWN_AT {score.KNOWN_AT}")
    # Per size on the grid, over every small index: tune hits at 5 lost, off-topic asks answered.
    scales: tuple[int | str | None, ...] = (*KNOWN_AT_GRID[:-1], LIBRARY, None)
    totals: dict[int | str | None, tuple[int, int]] = {known_at: (0, 0) for known_at in scales}
    hits = asks = 0
    for name in names:
        corpus_name, include = SMALL[name]
        whole = corpora()[corpus_name]
        corpus = Corpus(name, whole.root, include, (), whole.package, whole.version)
        database, embedder = _index(corpus, cache)
        with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as connection:
            passages = int(connection.execute("SELECT count(*) FROM passages").fetchone()[0])
            held = {relative(str(path), whole.root) for (path,) in connection.execute("SELECT path FROM files")}
        tune = [(q.question, q.files) for q in load(corpus_name, "tune") if set(q.files) & held]
        questions = [*tune, *[q for qs in offtopic.values() for q in qs], *[(p, None) for p in probes]]
        asked = ask(corpus, cache, questions)
        # The share no passage holds, unscaled, read by the library's own code with its scaling
        # set aside for the call (setattr: a measurement of what another scaling would do), then
        # rescaled for each row of the table.
        library_weight = score.absence_weight
        setattr(score, "absence_weight", lambda _passages: 1.0)
        try:
            raw = [_unknown(database, one.question) for one in asked]
        finally:
            setattr(score, "absence_weight", library_weight)
        scaled_ok = all(abs(one.unknown - share * library_weight(passages)) < 1e-9 for one, share in zip(asked, raw))
        on, rest = asked[: len(tune)], asked[len(tune):]
        by_set: dict[str, list[Asked]] = {}
        for set_name, qs in offtopic.items():
            by_set[set_name], rest = rest[: len(qs)], rest[len(qs):]
        stored = search_ranking(database, dense=embedder).unwrap().match_floor
        print(f"\n{name}: {passages} passages, {len(held)} files ({', '.join(include)}); {len(on)} tune questions, "
              f"{sum(1 for a in on if a.hit)} with a hit at 5 with the floor off; stored floor {stored}; "
              f"library's scaling reproduced: {scaled_ok}")
        print("  KNOWN_AT  floor  tune hits lost  off-topic no match (offtopic.tune / offtopic / offtopic2 / pooled)"
              "  closest tune hit above its floor")
        index_of = {id(one): at for at, one in enumerate(asked)}
        for known_at in scales:
            def matched(one: Asked) -> float:
                if known_at is None:
                    return one.best
                weight = library_weight(passages) if known_at == LIBRARY else min(1.0, passages / int(known_at))
                share = raw[index_of[id(one)]] * weight
                return one.best - UNKNOWN_WEIGHT * min(max(share, 0.0), 1.0)
            floor = calibrated_floor([matched(a) for a in rest], MATCH_FLOOR)
            lost = [a.question for a in on if a.hit and matched(a) < floor]
            turned = {s: _share([matched(a) < floor for a in g]) for s, g in by_set.items()}
            pooled = _share([matched(a) < floor for g in by_set.values() for a in g])
            closest = min(((matched(a) - floor, a.question) for a in on if a.hit), default=(float("nan"), ""))
            answered = sum(1 for g in by_set.values() for a in g if matched(a) >= floor)
            totals[known_at] = (totals[known_at][0] + len(lost), totals[known_at][1] + answered)
            label = "none" if known_at is None else str(known_at)
            print(f"  {label:>8}  {floor:.3f}  {len(lost)} {lost if lost else ''}  "
                  f"{' / '.join(f'{v:.3f}' for v in turned.values())} / {pooled:.3f}  {closest[0]:+.3f} ({closest[1]!r})")
        library = [a for a in asked[len(tune): len(tune) + sum(len(qs) for qs in offtopic.values())]]
        print(f"  the library's own searches: tune hits lost {sum(1 for a in on if a.hit and not a.answered)}, "
              f"off-topic no match {_share([not a.answered for a in library]):.3f}")
        print("  tune hits under 0.30 + 0.25 x their unscaled unknown share: " + "; ".join(
            f"{a.question!r} fused {a.best:.3f}, unknown {raw[index_of[id(a)]]:.3f}" for a in on
            if a.hit and a.best - UNKNOWN_WEIGHT * raw[index_of[id(a)]] < MATCH_FLOOR))
        hits += sum(1 for a in on if a.hit)
        asks += sum(len(g) for g in by_set.values())
    print(f"\nover the {len(names)} indexes ({hits} tune hits at 5 with the floor off, {asks} off-topic asks): "
          "KNOWN_AT: tune hits lost, off-topic asks answered")
    for known_at, (lost_total, answered_total) in totals.items():
        print(f"  {'none' if known_at is None else known_at:>8}: {lost_total} lost, {answered_total} answered "
              f"(no match {1 - answered_total / max(asks, 1):.3f})")


def _report(names: Sequence[str], cache: Path) -> None:
    """The held-out figures, read once the rule is fixed: per corpus the share of each off-topic
    set answered "no passage matched", and hit@5 of the fresh sets with the floor off, with the
    previous rule (the best fused score against a floor calibrated on the probes' best fused
    scores, from this run's scores) and with the library's rule (the searches' own answers)."""
    from thrift_fp.sources import search_ranking
    from thrift_fp.sources.dense import MATCH_FLOOR, MATCH_RULE, calibrated_floor, probe_questions

    print(f"MATCH_FLOOR = {MATCH_FLOOR}; the library's rule: {MATCH_RULE} >= the index's floor")
    off_sets = {"offtopic": HELD_OUT_OFFTOPIC, "offtopic2": HELD_OUT_OFFTOPIC2, "offtopic3": HELD_OUT_OFFTOPIC3}
    off_questions = {name: [(question, None) for question in _lines(path)] for name, path in off_sets.items()}
    probes = [(question, None) for question in probe_questions()]
    rows: list[str] = []
    pooled_off: dict[str, tuple[list[bool], list[bool]]] = {name: ([], []) for name in off_sets}
    pooled: dict[Half, tuple[list[bool], list[bool], list[bool]]] = {"fresh": ([], [], []), "fresh2": ([], [], [])}
    for name in names:
        corpus = corpora()[name]
        sets: dict[Half, list[tuple[str, tuple[str, ...] | None]]] = {
            half: [(q.question, q.files) for q in load(name, half)] for half in ("fresh", "fresh2")
        }
        asked = ask(corpus, cache, [*sets["fresh"], *sets["fresh2"], *[q for qs in off_questions.values() for q in qs],
                                    *probes])
        fresh, rest = asked[: len(sets["fresh"])], asked[len(sets["fresh"]):]
        fresh2, rest = rest[: len(sets["fresh2"])], rest[len(sets["fresh2"]):]
        off: dict[str, list[Asked]] = {}
        for set_name, questions in off_questions.items():
            off[set_name], rest = rest[: len(questions)], rest[len(questions):]
        previous = calibrated_floor([a.best for a in rest], MATCH_FLOOR)
        database, embedder = _index(corpus, cache)  # nothing to do: ask made it
        floor = search_ranking(database, dense=embedder).unwrap().match_floor
        cells = [f"{name:10} floor {floor} (previous rule {previous})"]
        for set_name, group in off.items():
            before = [a.best < previous for a in group]
            after = [not a.answered for a in group]
            pooled_off[set_name][0].extend(before)
            pooled_off[set_name][1].extend(after)
            cells.append(f"{set_name} no match {_share(before):.3f} -> {_share(after):.3f} ({sum(after)}/{len(after)})")
        groups: tuple[tuple[Half, list[Asked]], ...] = (("fresh", fresh), ("fresh2", fresh2))
        for half, group in groups:
            without = [bool(a.hit) for a in group]
            with_previous = [bool(a.hit) and a.best >= previous for a in group]
            with_rule = [bool(a.hit) and a.answered for a in group]
            for kept, values in zip(pooled[half], (without, with_previous, with_rule)):
                kept.extend(values)
            cells.append(f"{half} hit@5 off {_share(without):.3f}, previous {_share(with_previous):.3f}, "
                         f"rule {_share(with_rule):.3f} (n={len(group)})")
            lost = [a.question for a in group if a.hit and not a.answered]
            if lost:
                cells.append(f"{half} hits lost to the rule: {lost}")
        rows.append("\n    ".join(cells))
        missed = {set_name: [a.question for a in group if a.answered] for set_name, group in off.items()}
        rows.append(f"    off-topic answered anyway: {missed}")
    print("\nper corpus: off-topic no match, previous rule -> the library's rule; fresh sets hit@5")
    print("\n".join(rows))
    print("\npooled: " + "; ".join(f"{set_name} no match {_share(b):.3f} -> {_share(a):.3f}"
                                   for set_name, (b, a) in pooled_off.items())
          + "; " + "; ".join(f"{half} hit@5 off {_share(w):.3f}, previous {_share(p):.3f}, rule {_share(r):.3f}"
                             for half, (w, p, r) in pooled.items()))


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.no_match_floor", description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--choose", action="store_true", help="tuning questions only: print the curve and the floor")
    mode.add_argument("--report", action="store_true", help="held-out sets with the library's floor")
    mode.add_argument("--choose-calibration", action="store_true",
                      help="tuning questions and the probes only: the rule each index calibrates its floor by")
    mode.add_argument("--choose-rule", action="store_true",
                      help="tuning data only (tune halves, spent off-topic sets, probes): the unknown-share weight")
    mode.add_argument("--small", action="store_true",
                      help="tuning data only: the rule and KNOWN_AT on small indexes (subsets of the corpora)")
    parser.add_argument("--indexes", default=",".join(SMALL), help="--small: comma-separated small indexes")
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
    elif args.choose_rule:
        _choose_rule(names, args.cache, args.offtopic_target)
    elif args.small:
        _small([name for name in args.indexes.split(",") if name], args.cache)
    else:
        _report(names, args.cache)
    print(f"load average (1/5/15 min) before {before}, after {load_average()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
