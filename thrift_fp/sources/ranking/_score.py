"""The one scoring formula every store ranks with, and the exact top passages it picks.

Each passage is kept as three analyzed fields (see `analyze`): its **body**, its **own
heading** (the last title of its heading path, ``fsPromises.readFile``) and the **headings
above it** (``fs › Promises API``), which every passage of the same family shares. For each
term of the question the fields are mixed into one evidence count (BM25F):

    evidence = Σ_field weight_field × tf_field / (1 − b_field + b_field × len_field / avg_len_field)
    term     = idf × evidence / (K1 + evidence)
    idf      = ln(1 + (N − df + 0.5) / (df + 0.5))

and a passage's score is the sum of its terms divided by the sum of the question's idfs (the
most any passage could reach), a share in [0, 1] that does not depend on the other hits.

Why this shape, in plain words:
- **Saturation.** The tenth mention of a word adds far less than the first; heading and
  body mentions feed the *same* saturating count, so a heading can make a term count fully
  but never more than fully.
- **Length normalisation.** A mention in a short passage is stronger evidence than one in a
  long passage (``b``); both stores use the same lengths, so neither favours long passages.
- **Specific headings help, shared headings do not dominate.** The passage's own heading
  weighs ``HEADING_WEIGHT`` times the body; the headings above it weigh ``TRAIL_WEIGHT``
  (no more than a body word), because a whole family of passages shares them: the word
  ``ctest`` above every section of the ctest(1) manual says little about which section, or
  which file, answers "register a test program so that ctest runs it".
- **Rare words decide.** ``idf`` is the word's rarity over the collection's passages; a
  word in every passage adds almost nothing.

`top_passages` finds the exact best passages without scoring every candidate: each
candidate's score is below the sum of the idfs of the question words it holds, so candidates
are scored in that bound's order and the search stops once no unscored one can enter the top.
Stores supply only what they index — each term's passages (`Postings`), the collection's
sizes (`CollectionStats`), and the analyzed fields of the candidates asked for — and the
ordering is this module's, so SQLite and PostgreSQL return the same passages in the same
order for the same collection.

**Fusion seam.** `top_passages` returns `Scored` candidates (row key, passage id, content
hash, score); a dense ranking joins here by taking a deeper lexical list (``limit``) with
its scores and returning the final order (see `order_scored` for the tie rule every order
keeps: higher score first, then passage id).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence

from typing import Final

from thrift_fp._value import value

K1: Final = 2.0
B_BODY: Final = 0.75
HEADING_WEIGHT: Final = 3.0
"""How much more a word in a passage's heading path counts than one in its body (BM25F)."""
B_HEADING: Final = 0.5
TRAIL_WEIGHT: Final = 0.5
B_TRAIL: Final = 0.5
# Candidates scored per fetch from the store: the first fetch is usually enough to prove the
# top; each later one doubles what was fetched.
FIRST_BATCH = 48  # not Final: the exact-top property shrinks it to one


@value
class CollectionStats:
    """How many passages a collection holds and the total length of each analyzed field."""

    passages: int
    body_terms: int
    heading_terms: int
    trail_terms: int


@value
class Postings:
    """One term's passages: how many hold it (``df``, over every tier) and the row keys of
    those the search may return."""

    df: int
    keys: tuple[int, ...]


@value
class Candidate:
    """A passage's analyzed fields as the store keeps them (terms joined by two spaces)."""

    key: int
    passage_id: str
    content_hash: str
    body: str
    heading: str
    trail: str
    lengths: tuple[int, int, int]


@value
class Scored:
    """A ranked passage: its row ``key``, id, content hash, ``score`` in [0, 1] and ``raw`` sum."""

    key: int
    passage_id: str
    content_hash: str
    score: float
    raw: float


# How much a word no passage holds says depends on the index's size. Every corpus the no-match
# rule was chosen on (BENCHMARKS.md §23) has 3,700 to 9,000 passages: there nearly every word of
# an on-topic question is held somewhere, and an absent one marks another subject. A small folder
# lacks most words of any question, on-topic or not: on nine indexes of 157 to 950 passages
# (tuning data only, `benchmarks.no_match_floor --small`) any weight on absent words lost tune
# hits (4 of 95 with a linear scale to 1,000 passages, 8 unscaled), while the floor alone already
# turned away 98% of the off-topic asks. So an absent word weighs nothing below FADE_FROM, fully
# from KNOWN_AT, and in proportion between (no corpus measured there).
FADE_FROM: Final = 1000
"""Passages below which a word no passage holds weighs nothing in `unknown_share`."""
KNOWN_AT: Final = 3000
"""Passages from which a word no passage holds counts fully in `unknown_share` (between `FADE_FROM` and it: in proportion)."""


def absence_weight(passages: int) -> float:
    """How much the share of a question no passage holds counts in an index of ``passages``:
    0 below `FADE_FROM`, 1 from `KNOWN_AT`, in proportion between.

    >>> absence_weight(FADE_FROM - 1), absence_weight((FADE_FROM + KNOWN_AT) // 2), absence_weight(KNOWN_AT)
    (0.0, 0.5, 1.0)
    """
    return min(1.0, max(0.0, (passages - FADE_FROM) / (KNOWN_AT - FADE_FROM)))


def idf(passages: int, df: int) -> float:
    """The rarity of a term held by ``df`` of ``passages`` passages: positive, near 0 for a
    term in every passage, largest for a term in none.

    >>> round(idf(1000, 10), 3), round(idf(1000, 1000), 5), idf(10, 0) > idf(10, 1)
    (4.557, 0.0005, True)
    """
    return math.log(1.0 + (passages - df + 0.5) / (df + 0.5))


def _norm(length: int, average: float, b: float) -> float:
    return 1.0 - b + b * (length / average if average > 0 else 0.0)


def term_score(
    idf_value: float, tf: tuple[int, int, int], lengths: tuple[int, int, int], averages: tuple[float, float, float]
) -> float:
    """One term's share of a passage's score: ``idf`` times the saturated evidence of its
    frequencies in (body, own heading, headings above), each normalised by its field's length.

    >>> averages = (100.0, 3.0, 6.0)
    >>> once = term_score(2.0, (1, 0, 0), (100, 3, 6), averages)
    >>> twice = term_score(2.0, (2, 0, 0), (100, 3, 6), averages)
    >>> once < twice < 2.0, term_score(2.0, (1, 0, 0), (50, 3, 6), averages) > once
    (True, True)
    >>> term_score(2.0, (0, 0, 0), (100, 3, 6), averages)
    0.0
    """
    evidence = math.fsum(
        weight * count / _norm(length, average, b)
        for weight, b, count, length, average in zip(
            (1.0, HEADING_WEIGHT, TRAIL_WEIGHT), (B_BODY, B_HEADING, B_TRAIL), tf, lengths, averages, strict=True
        )
        if count > 0  # a field holding the term has a length of at least its count, so a norm above 0
    )
    return idf_value * evidence / (K1 + evidence) if evidence > 0 else 0.0


def _averages(stats: CollectionStats) -> tuple[float, float, float]:
    n = max(stats.passages, 1)
    return (stats.body_terms / n, stats.heading_terms / n, stats.trail_terms / n)


def passage_score(terms: Sequence[str], idfs: Mapping[str, float], candidate: Candidate, stats: CollectionStats) -> float:
    """The raw score of one passage for the question's ``terms``: the sum of `term_score`.

    >>> stats = CollectionStats(2, 6, 2, 0)
    >>> c = Candidate(1, "a#1", "h", "shed  budget  token", "shed", "", (3, 1, 0))
    >>> round(passage_score(["shed"], {"shed": 1.0}, c, stats), 4)
    0.6667
    """
    # Counting " term " in the space-padded fields counts whole terms without splitting them.
    # This is `term_score` for every term, inlined: it runs for every candidate of every search.
    body, heading, trail = f" {candidate.body} ", f" {candidate.heading} ", f" {candidate.trail} "
    average_body, average_heading, average_trail = _averages(stats)
    length_body, length_heading, length_trail = candidate.lengths
    norm_body = _norm(length_body, average_body, B_BODY)
    norm_heading = _norm(length_heading, average_heading, B_HEADING) / HEADING_WEIGHT
    norm_trail = _norm(length_trail, average_trail, B_TRAIL) / TRAIL_WEIGHT
    total = 0.0
    for term in terms:
        spaced = " " + term + " "
        evidence = 0.0
        # A field holding the term has a length of at least its count, so each norm is above 0.
        if count := body.count(spaced):
            evidence += count / norm_body
        if count := heading.count(spaced):
            evidence += count / norm_heading
        if count := trail.count(spaced):
            evidence += count / norm_trail
        if evidence > 0:
            total += idfs[term] * evidence / (K1 + evidence)
    return total


def order_scored(scored: Sequence[Scored]) -> tuple[Scored, ...]:
    """Best first: higher score, then the smaller passage id (a store-independent tie rule).

    >>> [s.passage_id for s in order_scored([Scored(2, "b#1", "x", 0.5, 1.0), Scored(1, "a#1", "y", 0.5, 1.0),
    ...                                       Scored(3, "c#1", "z", 0.9, 2.0)])]
    ['c#1', 'a#1', 'b#1']
    """
    return tuple(sorted(scored, key=lambda s: (-s.raw, s.passage_id)))


def term_idfs(terms: Sequence[str], stats: CollectionStats, df: Mapping[str, int]) -> dict[str, float]:
    """Each question term's `idf` from how many passages hold it (absent: none).

    >>> term_idfs(["shed", "x"], CollectionStats(3, 9, 3, 0), {"shed": 1}) == {"shed": idf(3, 1), "x": idf(3, 0)}
    True
    """
    return {term: idf(stats.passages, df.get(term, 0)) for term in terms}


def unknown_share(terms: Sequence[str], stats: CollectionStats, df: Mapping[str, int]) -> float:
    """The share of the most ``terms`` could score (the sum of their `idf`) that is carried by
    terms no passage holds, in [0, 1]: 1 for a question made only of words the index never uses.
    It is scaled by `absence_weight`: nothing in an index of fewer than `FADE_FROM` passages, where
    most words of even an on-topic question are absent and their absence says little; fully from
    `KNOWN_AT`.

    Every store computes it from the same term counts its lexical ranking reads, so it is the same
    on each. (The dense side cannot see it: a model maps "webpack" near "module" whether or not
    a passage says "webpack".)

    >>> stats = CollectionStats(KNOWN_AT, 9 * KNOWN_AT, KNOWN_AT, 0)
    >>> unknown_share(["shed"], stats, {"shed": 1}), unknown_share(["zzqxv"], stats, {})
    (0.0, 1.0)
    >>> round(unknown_share(["shed", "x"], stats, {"shed": 1}), 3) == round(
    ...     idf(KNOWN_AT, 0) / (idf(KNOWN_AT, 0) + idf(KNOWN_AT, 1)), 3)
    True
    >>> unknown_share(["zzqxv"], CollectionStats((FADE_FROM + KNOWN_AT) // 2, 9, 3, 0), {})
    0.5
    >>> unknown_share(["zzqxv"], CollectionStats(FADE_FROM // 2, 9, 3, 0), {})
    0.0
    """
    idfs = term_idfs(terms, stats, df)
    ideal = math.fsum(idfs.values())
    if ideal <= 0.0:
        return 0.0
    share = min(1.0, math.fsum(weight for term, weight in idfs.items() if df.get(term, 0) <= 0) / ideal)
    return share * absence_weight(stats.passages)


def bounded(postings: Mapping[str, Postings], idfs: Mapping[str, float]) -> list[tuple[int, float]]:
    """Candidates with their bound (the sum of the idfs of the terms they hold), highest first,
    then by key: what a store's query computes, written out (for stores without one, and tests).

    >>> bounded({"a": Postings(2, (1, 2)), "b": Postings(1, (2,))}, {"a": 1.0, "b": 2.0})
    [(2, 3.0), (1, 1.0)]
    """
    bounds: dict[int, float] = {}
    for term, found in postings.items():
        for key in found.keys:
            bounds[key] = bounds.get(key, 0.0) + idfs[term]
    return sorted(bounds.items(), key=lambda item: (-item[1], item[0]))


# A store's phase of `by_rarity`: the candidates holding any of the given terms whose bound is
# above the first number and at most the second (no limit for None), highest first, then by key.
Phase = Callable[[Sequence[str], float, float | None], Iterable[tuple[int, float]]]
# Bounds that differ only by the order a store sums them in stay on one side of a phase's edge.
_EDGE = 1.0 + 1e-12


def by_rarity(terms: Sequence[str], idfs: Mapping[str, float], phase: Phase) -> Iterator[tuple[int | None, float]]:
    """Candidates in `bounded` order, found rarest terms first, for `top_passages`.

    With the terms sorted by idf, ``P_j`` the sum of the ``j`` commonest ones' idfs: a candidate
    whose bound is above ``P_j`` holds one of the other terms. So phase ``j`` (from the rarest
    alone down to every term) asks ``phase(those terms, P_j, P_j+1)`` for the candidates bounded
    in that range, and before each phase but the first a marker ``(None, P_j+1)`` says no later
    candidate is bounded above it: `top_passages` stops there when its k-th score is proven, so
    the postings of the common terms are read only when the rare ones cannot decide the top.

    >>> postings = {"shed": [1], "the": [1, 2, 3]}
    >>> idfs = {"shed": 2.0, "the": 0.5}
    >>> def phase(essential, lower, upper):
    ...     keys = sorted({k for t in essential for k in postings[t]})
    ...     bounds = [(k, sum(idfs[t] for t in postings if k in postings[t])) for k in keys]
    ...     return sorted(((k, b) for k, b in bounds if b > lower and (upper is None or b <= upper)),
    ...                   key=lambda kb: (-kb[1], kb[0]))
    >>> [(key, round(bound, 2)) for key, bound in by_rarity(["the", "shed"], idfs, phase)]
    [(1, 2.5), (None, 0.5), (2, 0.5), (3, 0.5)]
    """
    order = sorted(terms, key=lambda term: (idfs[term], term))
    prefix = [0.0]
    for term in order:
        prefix.append(prefix[-1] + idfs[term])
    upper: float | None = None
    for j in range(len(order) - 1, -1, -1):
        lower = prefix[j] * _EDGE
        if upper is not None:
            yield (None, upper)
        yield from phase(order[j:], lower, upper)
        upper = lower


def top_passages(
    terms: Sequence[str],
    stats: CollectionStats,
    idfs: Mapping[str, float],
    ordered: Iterable[tuple[int | None, float]],
    fetch: Callable[[Sequence[int]], Sequence[Candidate]],
    limit: int,
) -> tuple[Scored, ...]:
    """The ``limit`` best passages for ``terms``, one per distinct content, best first.

    ``ordered`` yields each candidate's key and bound (the sum of ``idfs`` of the question
    terms it holds), highest bound first; it is read only as far as needed, and a ``None`` key
    is a marker: no later candidate is bounded above its number (see `by_rarity`). ``fetch(keys)``
    returns those passages' analyzed fields. Only candidates that could still enter the top
    are fetched and scored.

    >>> stats = CollectionStats(3, 9, 3, 0)
    >>> rows = {1: Candidate(1, "a#1", "h1", "shed  budget  token", "shed", "", (3, 1, 0)),
    ...         2: Candidate(2, "b#1", "h2", "budget  token  token", "budget", "", (3, 1, 0)),
    ...         3: Candidate(3, "c#1", "h3", "token  token  token", "token", "", (3, 1, 0))}
    >>> postings = {"shed": Postings(1, (1,)), "budget": Postings(2, (1, 2))}
    >>> idfs = term_idfs(["shed", "budget"], stats, {t: p.df for t, p in postings.items()})
    >>> fetch = lambda keys: [rows[k] for k in keys]
    >>> top = top_passages(["shed", "budget"], stats, idfs, bounded(postings, idfs), fetch, 5)
    >>> [(s.passage_id, round(s.score, 3)) for s in top]
    [('a#1', 0.559), ('b#1', 0.216)]
    """
    if limit <= 0:
        return ()  # nothing is read from ``ordered``: a store's query behind it never runs
    ideal = math.fsum(idfs[term] for term in terms)
    pending = iter(ordered)
    best: dict[str, Scored] = {}
    fetched = 0
    following = next(pending, None)
    while following is not None and limit > 0:
        if len(best) >= limit:
            kth = heapq.nlargest(limit, (s.raw for s in best.values()))[-1]
            # Every term scores below its idf: a candidate whose bound is at most the k-th
            # score cannot enter the top, and neither can any after it. (A store may sum the
            # bound in another order: the margin covers its rounding.)
            if following[1] * (1.0 + 1e-9) <= kth:
                break
        if following[0] is None:  # a marker that did not stop the search: read on
            following = next(pending, None)
            continue
        size = max(FIRST_BATCH, limit) if fetched == 0 else fetched
        batch = [following[0]]
        following = next(pending, None)
        # A batch ends at a marker: past it, the store may have to read what the marker spares.
        while following is not None and following[0] is not None and len(batch) < size:
            batch.append(following[0])
            following = next(pending, None)
        fetched += len(batch)
        for candidate in fetch(batch):
            raw = passage_score(terms, idfs, candidate, stats)
            share = min(1.0, raw / ideal) if ideal > 0 else 0.0
            scored = Scored(candidate.key, candidate.passage_id, candidate.content_hash, share, raw)
            kept = best.get(candidate.content_hash)
            if kept is None or (scored.raw, kept.passage_id) > (kept.raw, scored.passage_id):
                best[candidate.content_hash] = scored
    return order_scored(list(best.values()))[: max(limit, 0)]


def shares(
    terms: Sequence[str], stats: CollectionStats, idfs: Mapping[str, float], candidates: Iterable[Candidate]
) -> dict[int, float]:
    """Each candidate's exact score as `top_passages` gives it (a share in [0, 1]), by row key:
    how a fusion scores lexically the passages another ranking offered.

    >>> stats = CollectionStats(3, 9, 3, 0)
    >>> c = Candidate(1, "a#1", "h1", "shed  budget  token", "shed", "", (3, 1, 0))
    >>> idfs = term_idfs(["shed", "budget"], stats, {"shed": 1, "budget": 2})
    >>> {key: round(share, 3) for key, share in shares(["shed", "budget"], stats, idfs, [c]).items()}
    {1: 0.559}
    """
    ideal = math.fsum(idfs[term] for term in terms)
    return {
        candidate.key: min(1.0, passage_score(terms, idfs, candidate, stats) / ideal) if ideal > 0 else 0.0
        for candidate in candidates
    }
