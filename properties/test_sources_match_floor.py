"""Properties of the hybrid "no passage matched" floor (`fuse_scored`'s ``floor``) and of
collapsing near-duplicate hits (`collapsed_hits`)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from thrift_fp.sources.dense._hybrid import fuse_scored
from thrift_fp.sources.ranking._fusion import fused_score
from properties.fusion_strategies import CANDIDATES, scored
from properties.fusion_strategies import SCORES as _SCORES


@given(lexical=CANDIDATES, dense=CANDIDATES, cosines=st.dictionaries(st.integers(0, 20), _SCORES),
       shares=st.dictionaries(st.integers(0, 20), _SCORES), floor=_SCORES, limit=st.integers(0, 12))
def test_the_floor_answers_all_or_nothing_on_the_best_fused_score(
    lexical: list[tuple[int, str, float]], dense: list[tuple[int, str, float]], cosines: dict[int, float],
    shares: dict[int, float], floor: float, limit: int,
) -> None:
    lexical_side, dense_side = scored(lexical, "l"), scored(dense, "d")
    open_answer = fuse_scored(lexical_side, dense_side, limit, shares=shares, cosines=cosines, floor=0.0)
    floored = fuse_scored(lexical_side, dense_side, limit, shares=shares, cosines=cosines, floor=floor)
    # Each content's evidence is the best of its passages' on each side; the best fused score
    # is the best content's.
    lexical_of: dict[str, float] = {}
    cosine_of: dict[str, float] = {}
    for s in lexical_side:
        lexical_of[s.content_hash] = max(lexical_of.get(s.content_hash, 0.0), s.score)
        cosine_of[s.content_hash] = max(cosine_of.get(s.content_hash, 0.0), cosines.get(s.key, 0.0))
    for s in dense_side:
        lexical_of[s.content_hash] = max(lexical_of.get(s.content_hash, 0.0), shares.get(s.key, 0.0))
        cosine_of[s.content_hash] = max(cosine_of.get(s.content_hash, 0.0), s.score)
    best = max((fused_score(lexical_of[h], cosine_of[h]) for h in lexical_of), default=None)
    if best is None or best < floor:
        assert floored == ()
    else:
        # Above the floor nothing is trimmed or reordered: the floor decides only "no match".
        assert floored == open_answer
