"""Reusable counts: a fit with any prior counts equals a cold fit, and the counts it
hands back are those of its own texts."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings, strategies as st

from properties.thrift_model import REAL_ENCODINGS, WORDS, Case, cases
from thrift_fp.thrift import Fitted, Message, subtract_to_fit
from thrift_fp.tokens import TokenCounts, get_encoding

prior_cases = st.sampled_from((WORDS, *REAL_ENCODINGS)).flatmap(lambda encoding: cases(encoding=encoding, most=20))


def _same(one: Fitted, two: Fitted) -> None:
    assert one.working_set == two.working_set
    assert one.trace == two.trace


def _edited(case: Case) -> Case:
    """The next turn: one message appended and every third message reworded."""
    messages = tuple(
        replace(m, content=f"{m.content} again") if isinstance(m, Message) and index % 3 == 0 else m
        for index, m in enumerate(case.ws.messages)
    )
    newest = max((m.created_at for m in messages), default=None)
    appended = () if newest is None else (Message("appended", "w w w", newest, role="user"),)
    return replace(case, ws=replace(case.ws, messages=(*messages, *appended)))


@settings(max_examples=60)
@given(cases(most=20), prior_cases, st.sampled_from(("unrelated", "same", "edited", "chained")))
def test_any_prior_counts_give_the_cold_fit(case: Case, other: Case, kind: str) -> None:
    """Counts from an unrelated fit (any encoding), from the same set, from the previous turn or
    from a chain of fits never change what a fit keeps or its trace."""
    cold = case.fit()
    if kind == "unrelated":
        prior = other.fit().counts
    elif kind == "same":
        prior = cold.counts
    elif kind == "edited":
        prior = _edited(case).fit().counts
    else:
        first = other.fit()
        prior = subtract_to_fit(case.ws, case.window, case.relevant, other.options, counts=first.counts).unwrap().counts
    warm = subtract_to_fit(case.ws, case.window, case.relevant, case.options, counts=prior).unwrap()
    _same(warm, cold)
    assert len(warm.counts) == len(cold.counts)
    nxt = _edited(case)
    _same(subtract_to_fit(nxt.ws, nxt.window, nxt.relevant, nxt.options, counts=warm.counts).unwrap(), nxt.fit())


@given(st.lists(st.text(max_size=30), max_size=40), st.lists(st.text(max_size=30), max_size=40),
       st.sampled_from(REAL_ENCODINGS))
def test_counts_equal_plain_counting(first: list[str], second: list[str], name: str) -> None:
    """`TokenCounts.count_many` gives exactly ``count_many``'s counts, warm or cold, and its next
    value holds the texts of this call only (``reused`` of them were known)."""
    encoding = get_encoding(name).unwrap()
    counts, memo = TokenCounts().count_many(encoding, first).unwrap()
    assert counts == encoding.count_many(first).unwrap()
    again, after = memo.count_many(encoding, second).unwrap()
    assert again == encoding.count_many(second).unwrap()
    assert len(after) == len(set(second))
    assert after.reused == sum(text in set(first) for text in second)
