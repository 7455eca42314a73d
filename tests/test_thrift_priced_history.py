"""A history of caller-priced messages is carried from fit to fit like a counted one."""

from __future__ import annotations

from datetime import datetime, timezone

from thrift_fp.thrift import Message, WorkingSet, subtract_to_fit
from thrift_fp.thrift._history import reuse_of

AT = datetime(2026, 1, 1, tzinfo=timezone.utc)


def _priced(count: int) -> tuple[Message, ...]:
    return tuple(Message(f"m{index}", "", AT, token_cost=index % 7 + 1) for index in range(count))


def test_a_priced_history_grown_by_appends_reuses_the_previous_fit_and_fits_as_a_cold_fit() -> None:
    first = _priced(50)
    grown = (*first, *(Message(f"n{index}", "", AT, token_cost=3) for index in range(2)))
    before = subtract_to_fit(WorkingSet(messages=first), 150).unwrap()
    reuse = reuse_of(before.counts, grown)
    assert reuse is not None and reuse.shared == 50 and reuse.history.priced
    warm = subtract_to_fit(WorkingSet(messages=grown), 150, counts=before.counts).unwrap()
    cold = subtract_to_fit(WorkingSet(messages=grown), 150).unwrap()
    assert warm.working_set == cold.working_set and warm.trace == cold.trace


def test_a_counted_message_appended_to_a_priced_history_is_counted() -> None:
    first = _priced(10)
    grown = (*first, Message("counted", "hello there world", AT))
    before = subtract_to_fit(WorkingSet(messages=first), 10_000).unwrap()
    warm = subtract_to_fit(WorkingSet(messages=grown), 10_000, counts=before.counts).unwrap()
    cold = subtract_to_fit(WorkingSet(messages=grown), 10_000).unwrap()
    assert warm.trace == cold.trace and warm.trace.total_before == sum(m.token_cost or 0 for m in first) + 3
