"""Properties of the calibrated no-match floor (`calibrated_floor`): never below the floor every
index has nor above the cap, never lower when a probe reaches higher, and above at least
``FLOOR_QUANTILE`` of the probes by ``FLOOR_MARGIN`` unless the cap stops it."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from thrift_fp.sources.dense import MATCH_FLOOR, calibrated_floor
from thrift_fp.sources.dense._probes import FLOOR_CAP, FLOOR_MARGIN, FLOOR_QUANTILE

scores = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
bests = st.lists(scores, min_size=1, max_size=80)


@given(bests, st.sampled_from([0.0, MATCH_FLOOR, 0.5]))
def test_the_floor_stays_between_the_base_and_the_cap(probes: list[float], base: float) -> None:
    floor = calibrated_floor(probes, base)
    assert round(base, 3) <= floor <= round(max(FLOOR_CAP, base), 3)


@given(bests, st.data())
def test_a_probe_reaching_higher_never_lowers_the_floor(probes: list[float], data: st.DataObject) -> None:
    index = data.draw(st.integers(min_value=0, max_value=len(probes) - 1))
    higher = [*probes]
    higher[index] = data.draw(st.floats(min_value=probes[index], max_value=1.0))
    assert calibrated_floor(higher, MATCH_FLOOR) >= calibrated_floor(probes, MATCH_FLOOR)


@given(bests)
def test_the_floor_turns_away_the_quantile_of_the_probes_unless_capped(probes: list[float]) -> None:
    floor = calibrated_floor(probes, 0.0)
    if floor < FLOOR_CAP:
        # At least FLOOR_QUANTILE of the probes score below the floor by the margin (rounding aside).
        below = sum(1 for best in probes if best + FLOOR_MARGIN <= floor + 5e-4)
        assert below >= math.ceil(FLOOR_QUANTILE * len(probes))
