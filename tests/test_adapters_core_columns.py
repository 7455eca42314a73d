"""The adapters' core fits a one-off chat by columns (`thrift_fp.thrift.subtract_priced`) and still
hands its rows to the next fit: a fit carried from one by columns equals the same fit carried from
nothing."""

from __future__ import annotations

from thrift_fp.adapters._core import Pairing, Row, checked_budget, checked_counting, fit_rows
from thrift_fp.thrift import PricedColumns


def test_a_fit_carried_from_a_fit_by_columns_is_the_fit_from_nothing() -> None:
    rows = [
        Row(30, pinned=True, role="system"), Row(12, starts_turn=True, role="user"),
        Row(20, issues=(("tool_calls[0].id", "c1"),), role="assistant"), Row(9, answers=(("tool_call_id", "c1"),), role="tool"),
        Row(40, starts_turn=True, role="user"), Row(7, role="assistant"), Row(8, starts_turn=True, role="user"),
    ]
    budget = checked_budget(110, 0, 0.35).unwrap()
    counting = checked_counting("gpt-4o", None, None).unwrap()
    first = fit_rows(rows, 3, budget, counting, Pairing(whole_turns=True)).unwrap()
    assert first.carry is not None and isinstance(first.carry.messages, PricedColumns)
    assert first.shed  # the fit shed something: the budget is tight
    grown = [*rows, Row(5, role="assistant")]
    carried = fit_rows(grown, 3, budget, counting, Pairing(whole_turns=True), carry=first.carry, checkpoint=len(rows)).unwrap()
    fresh = fit_rows(grown, 3, budget, counting, Pairing(whole_turns=True), checkpoint=len(rows)).unwrap()
    assert (carried.kept, carried.shed, carried.trace, carried.tokens) == (fresh.kept, fresh.shed, fresh.trace, fresh.tokens)
