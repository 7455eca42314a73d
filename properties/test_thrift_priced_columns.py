"""A bucket of caller-priced messages given as columns fits exactly as the same messages given as
objects (`thrift_fp.thrift._priced`): the same places kept, the same trace, the same rest of the
working set, the same error values (columns that are not the common case are fitted as objects)."""

from __future__ import annotations

import inspect
from typing import Any

from hypothesis import given, settings, strategies as st
from returns.result import Failure

from thrift_fp.thrift import AGENT, RAG, Memory, ThriftOptions, WorkingRetrievable, WorkingSet, subtract_to_fit
from thrift_fp.thrift._entry import Entry, PricedRun, Sized
from thrift_fp.thrift._passes import Plan, shed_oldest_messages
from thrift_fp.thrift._priced import PricedColumns, priced_messages, subtract_priced

_PAIRS = (None, None, None, "p", "q", "r", "s")
# A few values that are not the common case, by column (each fitted as objects, as the bucket).
_ODD: dict[str, tuple[object, ...]] = {
    "ids": ("m0", 7, None),
    "token_costs": (-1, True, 2.5, None),
    "summaries": (None, 1, "yes"),
    "pair_ids": (3, b"p"),
}

# (token cost, summary, pair id) per message; built into columns in the test.
_rows = st.lists(st.tuples(st.integers(0, 12), st.integers(0, 6).map(lambda n: n == 0), st.sampled_from(_PAIRS)),
                 max_size=16)
# (score, tokens) per retrievable, and importance per memory: the other buckets a fit sheds.
_passages = st.lists(st.tuples(st.sampled_from((None, 0.1, 0.5, 0.9)), st.integers(1, 6)), max_size=4)
_memories = st.lists(st.sampled_from((None, 0.2, 0.8)), max_size=3)


def _columns(rows: list[tuple[int, bool, str | None]], odd: tuple[str, int, int] | None) -> PricedColumns:
    ids: list[object] = [f"m{at}" for at in range(len(rows))]
    cells: dict[str, list[object]] = {
        "ids": ids,
        "token_costs": [cost for cost, _, _ in rows],
        "summaries": [summary for _, summary, _ in rows],
        "pair_ids": [pair for _, _, pair in rows],
    }
    if odd is not None and rows:
        column, at, which = odd
        cells[column][at % len(rows)] = _ODD[column][which % len(_ODD[column])]
    # Built past the suite's run-time checker: the odd cells are deliberately outside the
    # declared types (a caller without the checker hands them over as they are).
    columns = PricedColumns.__new__(PricedColumns)
    inspect.unwrap(PricedColumns.__init__)(columns, *(tuple(cells[name]) for name in ("ids", "token_costs", "summaries", "pair_ids")))
    return columns


@settings(max_examples=300)  # cheap examples; a wrong cut shows only in some shapes
@given(
    _rows, _passages, _memories, st.integers(0, 90), st.sampled_from((AGENT, RAG)), st.booleans(),
    st.none() | st.tuples(st.sampled_from(tuple(_ODD)), st.integers(0, 20), st.integers(0, 3)),
)
def test_columns_fit_as_the_same_messages_as_objects(
    rows: list[tuple[int, bool, str | None]],
    passages: list[tuple[float | None, int]],
    memories: list[float | None],
    window: int,
    order: Any,
    refill: bool,
    odd: tuple[str, int, int] | None,
) -> None:
    columns = _columns(rows, odd)
    rest = WorkingSet(
        system_prompt="Be brief.",
        retrievables=tuple(WorkingRetrievable("word " * tokens, id=f"r{at}", score=score)
                           for at, (score, tokens) in enumerate(passages)),
        memories=tuple(Memory(f"fact {at}", importance=importance) for at, importance in enumerate(memories)),
    )
    options = ThriftOptions(output_reserve=0, shed_order=order, refill=refill)
    by_columns = subtract_priced(columns, rest, window, None, options)
    messages = priced_messages(columns)
    as_objects = subtract_to_fit(WorkingSet(
        system_prompt=rest.system_prompt, retrievables=rest.retrievables, memories=rest.memories, messages=messages,
    ), window, None, options)
    assert isinstance(by_columns, Failure) == isinstance(as_objects, Failure)
    if isinstance(as_objects, Failure) or isinstance(by_columns, Failure):
        assert by_columns.failure() == as_objects.failure()
        return
    fitted, expected = by_columns.unwrap(), as_objects.unwrap()
    assert fitted.trace == expected.trace
    assert [messages[at] for at in fitted.kept] == list(expected.working_set.messages)
    assert fitted.working_set.retrievables == expected.working_set.retrievables
    assert fitted.working_set.memories == expected.working_set.memories
    assert fitted.working_set.messages == ()


def test_columns_of_different_lengths_are_an_error_value() -> None:
    columns = PricedColumns(("a", "b"), (1,), (False, False), (None, None))
    assert subtract_priced(columns, WorkingSet(), 10).failure().message.startswith("invalid option columns=[1, 2]")


@settings(max_examples=300)  # cheap examples; a wrong cut shows only in some shapes
@given(_rows, st.lists(st.booleans(), max_size=16), st.integers(0, 60))
def test_pass_8_on_columns_with_places_gone_sheds_as_on_entries(
    rows: list[tuple[int, bool, str | None]], gone: list[bool], budget: int,
) -> None:
    """Pass 8 on a bucket of columns of which some places are gone already (no pass before it
    sheds one today, but the pass does not rely on that) sheds what it sheds on the entries of
    the places still in."""
    columns = _columns(rows, None)
    kept = [at for at in range(len(rows)) if not (gone[at] if at < len(gone) else False)]
    tokens = sum(rows[at][0] for at in kept)
    entries = tuple(Entry(at, f"m{at}", rows[at][0], at, at, summary=rows[at][1], pair=rows[at][2]) for at in kept)
    on_entries = Sized(WorkingSet(), None, 0, entries, (), (), (), (), (), None, tokens)
    on_columns = Sized(WorkingSet(), None, 0, (), (), (), (), (), (), None, tokens, PricedRun(columns, kept, tokens))
    plan = Plan(budget, ThriftOptions(), None)
    after_entries, trace_entries = shed_oldest_messages(on_entries, plan)
    after_columns, trace_columns = shed_oldest_messages(on_columns, plan)
    assert trace_columns == trace_entries
    assert after_columns.total == after_entries.total
    assert after_columns.priced is not None
    assert list(after_columns.priced.kept) == [entry.position for entry in after_entries.messages]
    assert after_columns.priced.tokens == sum(entry.tokens for entry in after_entries.messages)
