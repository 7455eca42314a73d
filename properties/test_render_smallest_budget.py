"""The smallest useful budget (`thrift_fp.render._smallest.smallest_budget`, which ``serve`` and
``ask`` name when a budget cannot carry the directive and one passage) is exact for a fit that
refills: at it some passage is kept, one token below it none is, for any records, fields and
encoding."""

from __future__ import annotations

from hypothesis import assume, given
from hypothesis import strategies as st

from properties.render_strategies import RecordSpec, build, record_specs
from thrift_fp.render import DEFAULT_FIELDS, fit_and_render
from thrift_fp.render._smallest import UNBOUNDED, smallest_budget
from thrift_fp.thrift import ThriftOptions, WorkingSet

FIELDS = st.sampled_from([DEFAULT_FIELDS, ("source", "heading", "score", "date"), ("id", "heading")])


@given(record_specs(max_size=4), st.sampled_from(["cl100k_base", "o200k_base"]), FIELDS)
def test_the_smallest_useful_budget_keeps_a_passage_and_one_token_less_keeps_none(
    specs: tuple[RecordSpec, ...], encoding: str, fields: tuple[str, ...]
) -> None:
    records = build(specs)
    smallest = smallest_budget(records, encoding, fields)  # type: ignore[arg-type]  # drawn from the known fields
    assume(smallest < UNBOUNDED)
    options = ThriftOptions(output_reserve=0, encoding=encoding, refill=True)

    def kept(budget: int) -> int:
        done = fit_and_render(WorkingSet(retrievables=records), budget, None, options, fields=fields).unwrap()
        assert done.tokens <= budget
        return len(done.records)

    assert kept(smallest) >= 1
    assert kept(smallest - 1) == 0
