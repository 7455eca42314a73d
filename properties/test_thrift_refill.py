"""Refill, under every preset shed order: within budget, off is today's fit, on keeps
a superset, every item still shed was larger than the leftover at its turn, the trace names what
came back, and refill is idempotent."""

from __future__ import annotations

import pytest
from hypothesis import given

from properties.thrift_model import ORDER_IDS, ORDERS, Case, cases, retrievable_tokens, tokens
from thrift_fp.thrift import Fitted, ShedOrder, ThriftOptions, WorkingSet, subtract_to_fit

each_order = pytest.mark.parametrize("order", ORDERS, ids=ORDER_IDS)


def _ids(items: tuple[object, ...]) -> list[str]:
    return [str(getattr(item, "id")) for item in items]


def _kept(ws: WorkingSet) -> dict[str, set[str]]:
    return {
        "messages": {m.id for m in ws.messages},
        "memories": set(_ids(ws.memories)),
        "retrievables": set(_ids(ws.retrievables)),
        "thoughts": {t.id for t in ws.thoughts},
        "tools": {t.name for t in ws.visible_tools()},
        "tool-calls": {c.ref for c in ws.tool_calls},
        "image": {ws.image.label} if ws.image is not None else set(),
    }


def _both(case: Case, order: ShedOrder) -> tuple[Case, Fitted, Fitted]:
    off = case.under(order, refill=False)
    return off, off.fit(), case.under(order, refill=True).fit()


@each_order
@given(cases())
def test_refill_never_exceeds_the_budget(order: ShedOrder, case: Case) -> None:
    """On: within budget whenever the fit without refill is; a refused fit re-admits nothing."""
    _, off, on = _both(case, order)
    if off.trace.fits:
        assert on.trace.fits and on.trace.total_after <= on.trace.budget
    else:
        assert on.working_set == off.working_set and on.trace.total_after == off.trace.total_after


@each_order
@given(cases())
def test_refill_off_is_the_plain_fit(order: ShedOrder, case: Case) -> None:
    """Off (the library default): no refill step in the trace, and the same fit as default options."""
    plain, off, _ = _both(case, order)
    assert off.trace.refilled == ()
    default = ThriftOptions(**{name: getattr(plain.options, name) for name in ("output_reserve", "reserve_fraction",
                               "strip_prior_turn_thoughts", "keep_thought_ids", "this_turn_result_keep",
                               "protected_tool_names", "encoding", "shed_order")})
    assert not default.refill
    again = subtract_to_fit(plain.ws, plain.window, plain.relevant, default).unwrap()
    assert (again.working_set, again.trace) == (off.working_set, off.trace)


@each_order
@given(cases())
def test_refill_keeps_a_superset(order: ShedOrder, case: Case) -> None:
    """On keeps everything off keeps, and differs only in retrievables and memories."""
    _, off, on = _both(case, order)
    before, after = _kept(off.working_set), _kept(on.working_set)
    for bucket, kept in before.items():
        assert kept <= after[bucket], bucket
        if bucket not in ("retrievables", "memories"):
            assert kept == after[bucket], bucket
    assert on.trace.buckets == off.trace.buckets


@each_order
@given(cases())
def test_every_item_still_shed_was_larger_than_the_leftover(order: ShedOrder, case: Case) -> None:
    """An oracle walk: buckets the order sheds later first, shed items in ranking order (score or
    importance descending, earlier input first); an item fitting what is left comes back, and every
    item that stays shed was larger than what was left at its turn."""
    plain, off, on = _both(case, order)
    encoding = plain.options.encoding
    leftover = off.trace.budget - off.trace.total_after
    kept_off, kept_on = _kept(off.working_set), _kept(on.working_set)
    sources = {"retrievables": (plain.ws.retrievables, "score"), "memories": (plain.ws.memories, "importance")}
    for bucket in sorted(sources, key=lambda name: -order.passes.index("retrievables" if name == "retrievables"
                                                                        else "memories")):
        items, attribute = sources[bucket]
        measurable = [item for item in items if not getattr(item, "size_unknown", False)]
        ranked = sorted(enumerate(measurable), key=lambda pair: (-(getattr(pair[1], attribute) or 0.0), pair[0]))
        for _, item in ranked:
            name = str(getattr(item, "id"))
            if name in kept_off[bucket]:
                continue
            cost = retrievable_tokens(item, encoding) if bucket == "retrievables" else tokens(
                str(getattr(item, "content")), encoding)
            if off.trace.fits and cost <= leftover:
                assert name in kept_on[bucket], (bucket, name, cost, leftover)
                leftover -= cost
            else:
                assert name not in kept_on[bucket], (bucket, name, cost, leftover)


@each_order
@given(cases())
def test_refill_trace_names_the_readmissions(order: ShedOrder, case: Case) -> None:
    """``refilled`` lists exactly the re-admitted ids per bucket, and its numbers add up."""
    _, off, on = _both(case, order)
    steps = {step.bucket: step for step in on.trace.refilled}
    assert set(steps) == {"retrievables", "memories"}
    gained = 0
    for bucket, step in steps.items():
        shed_bucket = off.trace.buckets[3 + order.passes.index(bucket)]
        assert set(step.ids) == _kept(on.working_set)[bucket] - _kept(off.working_set)[bucket]
        assert len(step.ids) == len(set(step.ids)) == step.after_count - step.before_count
        assert (step.before_tokens, step.before_count) == (shed_bucket.after_tokens, shed_bucket.after_count)
        gained += step.after_tokens - step.before_tokens
    assert on.trace.total_after == off.trace.total_after + gained


@each_order
@given(cases())
def test_refill_is_idempotent_and_keeps_ranking_order(order: ShedOrder, case: Case) -> None:
    """Fitting a refilled set again changes nothing; survivors come back in ranking order."""
    refilled = case.under(order, refill=True)
    first = refilled.fit()
    again = refilled.fit(ws=first.working_set)
    assert again.working_set == first.working_set
    scores = [getattr(item, "score", None) or 0.0 for item in first.working_set.retrievables]
    assert scores == sorted(scores, reverse=True)
