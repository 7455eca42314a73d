"""Pass 8 (oldest messages, pairs together) sheds exactly what shedding it unit by unit sheds.

The pass finds its prefix in C-level passes (running maximum of each pair's reach, running token
sums, bisection); the reference here walks the oldest messages one unit at a time, the way the
rule reads: while over budget, take the shortest run from the oldest kept message that closes
every pair it opens; stop at a run reaching the newest message or holding a message paired with
a summary."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from thrift_fp.thrift import ThriftOptions, WorkingSet
from thrift_fp.thrift._entry import Entry, Sized
from thrift_fp.thrift._passes import Plan, shed_oldest_messages

_PAIRS = (None, None, None, "p", "q", "r", "s")


# (tokens, rank, summary, pair) per message; the entries are built in the test, not the strategy
# (the claw's sampled checks of a built state would draw on `random` inside the strategy).
_rows = st.lists(st.tuples(st.integers(0, 9), st.integers(0, 4), st.integers(0, 6).map(lambda n: n == 0),
                           st.sampled_from(_PAIRS)), max_size=14)


def _state(rows: list[tuple[int, int, bool, str | None]]) -> Sized:
    entries = tuple(
        Entry(None, f"m{at}", tokens, at, rank, summary=summary, pair=pair)
        for at, (tokens, rank, summary, pair) in enumerate(rows)
    )
    return Sized(WorkingSet(), None, 0, entries, (), (), (), (), (), None, sum(row[0] for row in rows))


def _reference(state: Sized, budget: int) -> list[str]:
    """The ids pass 8 sheds, one unit at a time."""
    ordered = [entry for entry in sorted(state.messages, key=lambda entry: entry.rank) if not entry.summary]
    blocked = {entry.pair for entry in state.messages if entry.summary and entry.pair is not None}
    last = {entry.pair: at for at, entry in enumerate(ordered) if entry.pair is not None}
    shed: list[str] = []
    total, start = state.total, 0
    while total > budget and start < len(ordered) - 1:
        end = at = start
        while at <= end:
            pair = ordered[at].pair
            if pair in blocked:
                return shed
            if pair is not None:
                end = max(end, last[pair])
            at += 1
        if end >= len(ordered) - 1:
            break
        shed += [entry.key for entry in ordered[start:end + 1]]
        total -= sum(entry.tokens for entry in ordered[start:end + 1])
        start = end + 1
    return shed


@settings(max_examples=300)  # cheap examples; a wrong cut shows only in some shapes
@given(_rows, st.integers(0, 60))
def test_oldest_messages_shed_as_unit_by_unit(rows: list[tuple[int, int, bool, str | None]], budget: int) -> None:
    """The same shed ids, in the same order, and the same total left as the unit-by-unit walk."""
    state = _state(rows)
    after, trace = shed_oldest_messages(state, Plan(budget, ThriftOptions(), None))
    expected = _reference(state, budget) if state.total > budget else []
    assert list(trace.ids) == expected
    gone = sum(entry.tokens for entry in state.messages if entry.key in set(expected))
    assert after.total == state.total - gone
    assert [entry.key for entry in after.messages] == [entry.key for entry in state.messages if entry.key not in set(expected)]
