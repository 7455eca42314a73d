"""A question's dense candidates over one index, ranked ahead by ``thrift-fp ask``'s child (issue 35).

A hybrid search needs, from the dense side, the passages nearest the question and the question's
cosine with each passage of the lexical pool. Both come from one product of the question's vector
with every passage's: numpy's import and the vectors' load are ~110 ms of ``ask``'s own path.
The child that embeds the question has numpy loaded already (onnxruntime needs it), so it can load
the vectors and compute that product on the other core, and hand back the nearest passages and every
cosine. `ScoredAhead` holds them, for the index version, question, tiers and pool size they were
made for; a search asking for anything else (another version of the file, say) computes them itself.

Nothing changes in what is ranked: the child runs the very `DenseMatrix` the search would, and every
cosine crosses the pipe as the same float (binary doubles; the nearest as JSON numbers, which
round-trip exactly).
"""

from __future__ import annotations

import base64
import binascii
import math
from array import array
from collections.abc import Collection, Mapping, Sequence

from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final

from thrift_fp._value import value

# Candidates each ranking offers the fusion, whatever the final limit. The dense pool is cheap
# (one matrix product ranks every passage) and every dense candidate is scored lexically too, so
# lexical evidence re-scores it. A lexical pool only adds passages the dense ranking does not
# hold in its first 50, and with the lexical share weighing 0.2 such a passage almost never
# reaches the top 10: pools of 0, 5, 10 and 50 gave the same answers on every question of the
# evaluation set, while the lexical top is the costly part of a query (docs/dense.md).
DENSE_POOL: Final = 50
"""How many dense candidates a hybrid search offers the fusion, whatever the final limit."""

if TYPE_CHECKING:
    from thrift_fp.sources.ranking import Scored


def __getattr__(name: str) -> Any:
    # `Scored` on first use: `ask` imports this module (with `EmbedAhead`) before it starts its
    # child, and the ranking layer can load after; beartype resolves the annotations through here.
    if name == "Scored":
        from thrift_fp.sources.ranking import Scored  # noqa: PLC0415

        return Scored
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@value
class ScoredAhead:
    """The passages nearest ``question`` (best first, as `DenseMatrix.nearest` keeps them) among
    ``tiers``, ``limit`` at most, and its cosine with every embedded passage (row key → cosine),
    over the index version ``version``.

    >>> from thrift_fp.sources.ranking import Scored
    >>> ahead = ScoredAhead(("v",), "q", frozenset({"first-party"}), 5,
    ...                     (Scored(7, "a.md#1", "h", 0.5, 0.5),), MappingProxyType({7: 0.5, 8: 0.25}))
    >>> ahead.candidates(("v",), "q", ["first-party"], 5, [8, 9])
    ((Scored(key=7, passage_id='a.md#1', content_hash='h', score=0.5, raw=0.5),), {8: 0.25})
    >>> ahead.candidates(("other",), "q", ["first-party"], 5, []) is None
    True
    """

    version: tuple[object, ...]
    question: str
    tiers: frozenset[str]
    limit: int
    near: tuple[Scored, ...]
    cosines: Mapping[int, float]

    def candidates(
        self, version: tuple[object, ...], question: str, tiers: Collection[str], limit: int, also: Collection[int]
    ) -> tuple[tuple[Scored, ...], dict[int, float]] | None:
        """`nearest_candidates`'s answer for this search, or ``None`` when it asks for another."""
        if (version, question, frozenset(tiers), limit) != (self.version, self.question, self.tiers, self.limit):
            return None
        return self.near, {row: self.cosines[row] for row in also if row in self.cosines}


def scored_json(
    version: Sequence[object], question: str, tiers: Collection[str], limit: int,
    near: Sequence[tuple[int, str, str, float]], cosines: Mapping[int, float],
) -> dict[str, object]:
    """What the child sends for a `ScoredAhead` (`scored_from_json` reads it back; same machine,
    so the arrays are in its byte order): ``near`` as ``(row, passage_id, content_hash, cosine)``,
    best first (plain tuples: the child never loads the ranking layer's `Scored`).

    >>> shown = scored_json(["v", 1], "q", ["first-party"], 5, [(7, "a#1", "h", 0.5)], {7: 0.5})
    >>> scored_from_json("q", shown).near
    (Scored(key=7, passage_id='a#1', content_hash='h', score=0.5, raw=0.5),)
    >>> scored_from_json("q", shown).cosines[7]
    0.5
    """
    return {
        "version": list(version),
        "tiers": sorted(tiers),
        "limit": limit,
        "near": [[row, passage_id, content_hash, cosine] for row, passage_id, content_hash, cosine in near],
        "rows": base64.b64encode(array("q", cosines.keys()).tobytes()).decode("ascii"),
        "cosines": base64.b64encode(array("d", cosines.values()).tobytes()).decode("ascii"),
    }


def scored_from_json(question: str, shown: object) -> ScoredAhead | None:
    """The `ScoredAhead` of ``question`` that ``shown`` (the child's JSON) holds; ``None`` when it
    is not one, in any part.

    >>> scored_from_json("q", {"version": [], "tiers": [], "limit": -1}) is None
    True
    """
    if not isinstance(shown, dict):
        return None
    version, tiers, limit, near = shown.get("version"), shown.get("tiers"), shown.get("limit"), shown.get("near")
    if not isinstance(version, list) or not all(type(part) in (str, int) for part in version):
        return None
    if not isinstance(tiers, list) or not all(isinstance(tier, str) for tier in tiers):
        return None
    if type(limit) is not int or limit < 0 or not isinstance(near, list) or len(near) > limit:
        return None
    nearest = tuple(_scored(entry) for entry in near)
    cosines = _cosines(shown.get("rows"), shown.get("cosines"))
    if cosines is None or any(scored is None for scored in nearest):
        return None
    return ScoredAhead(
        tuple(version), question, frozenset(tiers), limit, tuple(s for s in nearest if s is not None),
        MappingProxyType(cosines),
    )


def _scored(entry: object) -> Scored | None:
    from thrift_fp.sources.ranking import Scored  # noqa: PLC0415 - see __getattr__

    if not isinstance(entry, list) or len(entry) != 4:
        return None
    key, passage_id, content_hash, score = entry
    if type(key) is not int or not isinstance(passage_id, str) or not isinstance(content_hash, str):
        return None
    if type(score) is not float or not math.isfinite(score):
        return None
    return Scored(key, passage_id, content_hash, score, score)


def _cosines(rows: object, values: object) -> dict[int, float] | None:
    if not isinstance(rows, str) or not isinstance(values, str):
        return None
    keys, cosines = array("q"), array("d")
    try:
        keys.frombytes(base64.b64decode(rows, validate=True))
        cosines.frombytes(base64.b64decode(values, validate=True))
    except (ValueError, binascii.Error):
        return None  # not base64, or not a whole number of items
    if len(keys) != len(cosines) or not all(map(math.isfinite, cosines)):
        return None
    table = dict(zip(keys, cosines))
    return table if len(table) == len(keys) else None  # a row twice is not one product
