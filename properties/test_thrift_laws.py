"""The laws of a fit and the trace arithmetic: idempotence, purity, order independence,
message order and pairs, a trace that adds up; some with real tiktoken counts. Each runs under
every preset shed order."""

from __future__ import annotations

import copy
import random
from dataclasses import replace
from datetime import datetime

import pytest
from hypothesis import given, strategies as st

from properties.thrift_model import (
    ORDER_IDS,
    ORDERS,
    Case,
    Recorded,
    age,
    bucket_tokens,
    cases,
    check_fits_or_refused_at_the_floor,
    ephemeral_blocked,
    oracle_total,
    position,
)
from thrift_fp.thrift import Fitted, Memory, Message, ShedOrder, WorkingRetrievable, WorkingSet

each_order = pytest.mark.parametrize("order", ORDERS, ids=ORDER_IDS)

REAL = ("cl100k_base", "o200k_base")
real_cases = st.sampled_from(REAL).flatmap(lambda encoding: cases(encoding=encoding, most=30))


@each_order
@given(cases())
def test_idempotent(order: ShedOrder, case: Case) -> None:
    """8a. Fitting the fitted set again changes nothing, image and tool visibility included."""
    case = case.under(order)
    first = case.fit()
    again = case.fit(ws=first.working_set)
    assert again.working_set == first.working_set
    assert again.trace.total_after == first.trace.total_after
    assert not any(bucket.ids for bucket in again.trace.buckets)


@each_order
@given(cases())
def test_pure(order: ShedOrder, case: Case) -> None:
    """8b. The input working set and its items are untouched (pyrsistent-style before/after check).
    Value-equal retrievables replace the call-recording ones, so a deep copy compares equal."""
    case = case.under(order)
    ws = replace(case.ws, retrievables=tuple(
        WorkingRetrievable(item.content, item.id, item.score, item.size_unknown)
        for item in case.ws.retrievables if isinstance(item, Recorded)
    ))
    snapshot = copy.deepcopy(ws)
    fields = {name: getattr(ws, name) for name in WorkingSet.__dataclass_fields__}
    case.fit(ws=ws)
    assert ws == snapshot
    assert all(getattr(ws, name) is value for name, value in fields.items())


@each_order
@given(cases(), st.randoms(use_true_random=False))
def test_kept_set_independent_of_input_order(order: ShedOrder, case: Case, rng: random.Random) -> None:
    """8c. With distinct scores and importances, shuffling retrievables and memories keeps the
    same kept set, in the same (score) order."""
    case = case.under(order)
    retrievables = tuple(
        replace(item, score=(index * 7919 % 1009) / 1009, calls=[])
        for index, item in enumerate(case.ws.retrievables) if isinstance(item, Recorded)
    )
    memories = tuple(
        replace(memory, importance=(index * 104729 % 997) / 997)
        for index, memory in enumerate(case.ws.memories) if isinstance(memory, Memory)
    )
    ordered = replace(case.ws, retrievables=retrievables, memories=memories)
    shuffled = replace(ordered, retrievables=_shuffled(retrievables, rng), memories=_shuffled(memories, rng))
    one, two = case.fit(ws=ordered).working_set, case.fit(ws=shuffled).working_set
    assert one.retrievables == two.retrievables
    assert one.memories == two.memories


def _shuffled(items: tuple[Recorded, ...] | tuple[Memory, ...], rng: random.Random) -> tuple[Recorded | Memory, ...]:
    out: list[Recorded | Memory] = list(items)
    rng.shuffle(out)
    return tuple(out)


@each_order
@given(cases())
def test_messages_keep_order_and_pairs(order: ShedOrder, case: Case) -> None:
    """9. Kept messages keep input order; every message shed by the oldest-turns pass is older than
    every kept non-summary message; the ephemeral pass sheds only ephemeral messages and their
    partners; a pair is never split."""
    case = case.under(order)
    fitted = case.fit()
    source = [m for m in case.ws.messages if isinstance(m, Message)]
    kept = [m for m in fitted.working_set.messages if isinstance(m, Message)]
    positions = [source.index(m) for m in kept]
    assert positions == sorted(positions)
    by_id = {m.id: m for m in source}
    kept_ids = {m.id for m in kept}
    oldest_kept = min((age(m, source) for m in kept if not m.summary), default=None)
    for name in case.bucket(fitted, "oldest-messages").ids:
        assert oldest_kept is None or age(by_id[name], source) < oldest_kept
    ephemeral_ids = case.bucket(fitted, "ephemeral-messages").ids
    ephemeral_pairs = {by_id[name].pair_id for name in ephemeral_ids if by_id[name].ephemeral}
    for name in ephemeral_ids:
        assert by_id[name].ephemeral or by_id[name].pair_id in ephemeral_pairs - {None}
    for pair in {m.pair_id for m in source if m.pair_id is not None}:
        members = {m.id in kept_ids for m in source if m.pair_id == pair}
        assert len(members) == 1, pair


def _check_trace(case: Case, fitted: Fitted) -> None:
    encoding = case.options.encoding
    trace, out = fitted.trace, fitted.working_set
    before, after = bucket_tokens(case.ws, encoding), bucket_tokens(out, encoding)
    assert trace.total_before == oracle_total(case.ws, encoding)
    assert trace.total_after == oracle_total(out, encoding) == sum(after.values())
    assert trace.total_before - trace.total_after == sum(b.before_tokens - b.after_tokens for b in trace.buckets)
    for bucket in trace.buckets:
        assert bucket.before_count - bucket.after_count == len(bucket.ids)
        assert len(set(bucket.ids)) == len(bucket.ids)
    at = {name: position(case.order, name) for name in case.order.passes}
    chains = {"thoughts": (1, at["thoughts-shed"]), "tools": (2, at["tools-shed"]), "image": (at["image"],),
              "tool-calls": (at["tool-calls"],), "retrievables": (at["retrievables"],),
              "memories": (at["memories"],), "messages": (at["ephemeral-messages"], at["oldest-messages"])}
    known = [r for r in case.ws.retrievables if not getattr(r, "size_unknown", False)]
    counts_before = {"thoughts": len(case.ws.thoughts), "tools": len(case.ws.visible_tools()),
                     "image": int(case.ws.image is not None), "tool-calls": len(case.ws.tool_calls),
                     "retrievables": len(known), "memories": len(case.ws.memories),
                     "messages": len(case.ws.messages)}
    counts_after = {"thoughts": len(out.thoughts), "tools": len(out.visible_tools()),
                    "image": int(out.image is not None), "tool-calls": len(out.tool_calls),
                    "retrievables": len(out.retrievables), "memories": len(out.memories),
                    "messages": len(out.messages)}
    for name, passes in chains.items():
        first, last = trace.buckets[passes[0]], trace.buckets[passes[-1]]
        assert (first.before_tokens, first.before_count) == (before[name], counts_before[name]), name
        assert (last.after_tokens, last.after_count) == (after[name], counts_after[name]), name
        for earlier, later in zip(passes, passes[1:]):
            assert trace.buckets[earlier].after_tokens == trace.buckets[later].before_tokens
            assert trace.buckets[earlier].after_count == trace.buckets[later].before_count
    unknown = [r for r in case.ws.retrievables if getattr(r, "size_unknown", False)]
    assert trace.buckets[0].before_count == len(unknown)


@each_order
@given(cases())
def test_trace_adds_up(order: ShedOrder, case: Case) -> None:
    """The trace's totals are the remaining items measured one by one, and every bucket's counts
    and tokens agree with the working sets before and after its passes."""
    case = case.under(order)
    _check_trace(case, case.fit())


@each_order
@given(real_cases)
def test_real_tiktoken_fit_and_trace(order: ShedOrder, case: Case) -> None:
    """With real cl100k_base / o200k_base counts: fits => within budget, refused => at the floor,
    the trace adds up, and the fit is idempotent."""
    case = case.under(order)
    fitted = case.fit()
    check_fits_or_refused_at_the_floor(case, fitted)  # refused is also over the budget
    _check_trace(case, fitted)
    assert case.fit(ws=fitted.working_set).working_set == fitted.working_set


@each_order
@given(cases())
def test_ephemeral_pass_oldest_first_keeping_the_latest(order: ShedOrder, case: Case) -> None:
    """Pass 7 sheds ephemeral messages (with their pair partners) oldest first and never a group
    holding a summary, the newest non-summary message or the latest ephemeral message; every
    ephemeral message it could still shed is newer than the oldest ephemeral message of every
    group it shed (a partner may be newer: it left with that oldest one)."""
    case = case.under(order)
    fitted = case.fit()
    source = [m for m in case.ws.messages if isinstance(m, Message)]
    shed = set(case.bucket(fitted, "ephemeral-messages").ids)
    assert not any(ephemeral_blocked(m, source) for m in source if m.id in shed)
    leads: dict[str, tuple[datetime, int]] = {}
    for m in source:
        if m.id in shed and m.ephemeral:
            unit = m.pair_id if m.pair_id is not None else m.id
            leads[unit] = min(leads.get(unit, age(m, source)), age(m, source))
    gone = list(leads.values())
    open_ = [age(m, source) for m in source
             if m.id not in shed and m.ephemeral and not ephemeral_blocked(m, source)]
    assert all(old < young for old in gone for young in open_)
