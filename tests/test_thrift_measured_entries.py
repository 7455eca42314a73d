"""What one measurement of a working set hands the passes and the next fit: every entry whole
(tokens, position, rank, flags, pair, slot), the total, and the message history carried on."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta, timezone
from typing import Any

from thrift_fp.thrift import RefillTrace, ThriftOptions, subtract_to_fit
from thrift_fp.thrift import Image, Memory, Message, Thought, Tool, ToolCall, WorkingRetrievable, WorkingSet
from thrift_fp.thrift._entry import Entry, Sized
from thrift_fp.thrift._history import History, Reuse, reuse_of
from thrift_fp.thrift._measure import measure
from thrift_fp.tokens import TokenCounts, TokenEncoding, get_encoding, register_token_estimator
from thrift_fp.tokens._counts import carried

AT = datetime(2026, 1, 1, tzinfo=timezone.utc)


def _words(text: str) -> int:
    return len(text.split())


register_token_estimator("measured-words", _words).unwrap()
WORDS: TokenEncoding = get_encoding("measured-words").unwrap()


def _at(seconds: int) -> datetime:
    return AT + timedelta(seconds=seconds)


def _measured(
    ws: WorkingSet,
    estimates: tuple[int | None, ...] | None = None,
    counts: TokenCounts = TokenCounts(),
    reuse: Reuse | None = None,
) -> tuple[Sized, TokenCounts]:
    keys = tuple(getattr(r, "id", None) or f"retrievable[{i}]" for i, r in enumerate(ws.retrievables))
    given = estimates if estimates is not None else (None,) * len(ws.retrievables)
    return measure(ws, ws.retrievables, keys, given, WORDS, counts, None, reuse).unwrap()


@dataclass(frozen=True)
class _Scored:
    """A retrievable-like scored by an int (a valid score the bulk path leaves to the loop)."""

    content: str
    score: int
    id: str | None = None


def _history(counts: TokenCounts) -> History:
    history: Any = carried(counts)
    assert type(history) is History
    return history


def test_every_bucket_measured_in_bulk_gives_whole_entries_and_the_visible_total() -> None:
    m0 = Message("m0", "a b", _at(0))
    m1 = Message("m1", "c d e", _at(1), summary=True, ephemeral=True, pair_id="p")
    memory = Memory("mem one two", importance=0.5, id="k")
    r1, r2 = WorkingRetrievable("r a", id="r1", score=0.5), WorkingRetrievable("r b c", id="r2")
    thought = Thought("t1", "think hard", _at(2), this_turn=True)
    search, hidden = Tool("search", "finds things"), Tool("hidden", "never shown", shed_rank=2)
    call = ToolCall("c1", 7, 1000, this_turn=True)
    image = Image("img", 11)
    ws = WorkingSet(
        system_prompt="be brief now", standing_instructions=("one rule",), messages=(m0, m1),
        memories=(memory,), retrievables=(r1, r2), thoughts=(thought,), tools=(search, hidden),
        visible_tool_names=frozenset({"search"}), tool_calls=(call,), image=image,
    )
    sized, counts = _measured(ws)
    messages = (Entry(m0, "m0", 2, 0, 0, False, False, False, None, -1), Entry(m1, "m1", 3, 1, 1, False, True, True, "p", -1))
    assert sized == Sized(
        ws, frozenset({"search"}), 5, messages,
        (Entry(memory, "k", 3, 0, 0.5, False, False, False, None, 4),),
        (Entry(r1, "r1", 2, 0, 0.5, False, False, False, None, 5), Entry(r2, "r2", 3, 1, 0.0, False, False, False, None, 6)),
        (Entry(thought, "t1", 2, 0, _at(2).timestamp(), True, False, False, None, 7),),
        (Entry(search, "search", 3, 0, 0.0, False, False, False, None, 8), Entry(hidden, "hidden", 3, 1, 2.0, False, False, False, None, 9)),
        (Entry(call, "c1", 7, 0, 1000.0, True, False, False, None, -1),),
        Entry(image, "img", 11, 0, 0.0), 41,
    )
    assert tuple(map(type, (entry.rank for entry in messages))) == (int, int)
    assert _history(counts) == History(
        WORDS, (m0, m1), messages, ("a b", "c d e"), (2, 3), frozenset({"m0", "m1"}), True, 8, 5, False
    )


def test_a_history_out_of_time_order_ranks_by_epoch_seconds() -> None:
    m0, m1 = Message("m0", "a b", _at(5)), Message("m1", "c", _at(1))
    sized, counts = _measured(WorkingSet(messages=(m0, m1)))
    messages = (
        Entry(m0, "m0", 2, 0, _at(5).timestamp(), False, False, False, None, -1),
        Entry(m1, "m1", 1, 1, _at(1).timestamp(), False, False, False, None, -1),
    )
    assert sized.messages == messages
    assert sized.total == 3
    assert _history(counts) == History(WORDS, (m0, m1), messages, ("a b", "c"), (2, 1), frozenset({"m0", "m1"}), False, 4, 3, False)


def test_messages_all_priced_by_the_caller_cost_their_prices_and_carry_no_text() -> None:
    m0, m1 = Message("m0", "a b", _at(0), token_cost=7), Message("m1", "c", _at(1), token_cost=0)
    sized, counts = _measured(WorkingSet(system_prompt="s t", messages=(m0, m1)))
    messages = (
        Entry(m0, "m0", 7, 0, 0, False, False, False, None, -1),
        Entry(m1, "m1", 0, 1, 1, False, False, False, None, -1),
    )
    assert sized.messages == messages
    assert (sized.fixed_tokens, sized.total) == (2, 9)
    assert _history(counts) == History(WORDS, (m0, m1), messages, (), (7, 0), frozenset({"m0", "m1"}), True, 0, 7, True)


def test_messages_partly_priced_are_measured_one_by_one_and_carry_no_history() -> None:
    m0, m1 = Message("m0", "a b", _at(3), token_cost=7), Message("m1", "c d e", _at(1), summary=True, pair_id="q")
    sized, counts = _measured(WorkingSet(system_prompt="s", messages=(m0, m1)))
    assert sized.messages == (
        Entry(m0, "m0", 7, 0, _at(3).timestamp(), False, False, False, None, -1),
        Entry(m1, "m1", 3, 1, _at(1).timestamp(), False, True, False, "q", 1),
    )
    assert sized.total == 11
    assert carried(counts) is None


def test_retrievables_with_their_own_counts_are_charged_those_counts() -> None:
    r1, r2 = WorkingRetrievable("a b c", id="r1", score=0.25), WorkingRetrievable("d", id="r2")
    sized, _ = _measured(WorkingSet(system_prompt="s", retrievables=(r1, r2)), estimates=(5, 0))
    assert sized.retrievables == (
        Entry(r1, "r1", 5, 0, 0.25, False, False, False, None, -1),
        Entry(r2, "r2", 0, 1, 0.0, False, False, False, None, -1),
    )
    assert sized.total == 6


def test_retrievables_partly_counted_are_measured_one_by_one() -> None:
    r1, r2, r3 = WorkingRetrievable("a b c", id="r1"), _Scored("d e", 1), WorkingRetrievable("f", id="r3", score=2.5)
    sized, _ = _measured(WorkingSet(system_prompt="s", retrievables=(r1, r2, r3)), estimates=(5, None, None))
    assert sized.retrievables == (
        Entry(r1, "r1", 5, 0, 0.0, False, False, False, None, -1),
        Entry(r2, "retrievable[1]", 2, 1, 1.0, False, False, False, None, 1),
        Entry(r3, "r3", 1, 2, 2.5, False, False, False, None, 2),
    )
    assert sized.total == 9


def test_retrievables_scored_by_ints_are_measured_one_by_one() -> None:
    r1, r2 = _Scored("a b c", 3, "r1"), WorkingRetrievable("d", id="r2")
    sized, _ = _measured(WorkingSet(retrievables=(r1, r2)))
    assert sized.retrievables == (
        Entry(r1, "r1", 3, 0, 3.0, False, False, False, None, 1),
        Entry(r2, "r2", 1, 1, 0.0, False, False, False, None, 2),
    )
    assert sized.total == 4


def _carried_from(first: tuple[Message, ...], grown: tuple[Message, ...]) -> tuple[Sized, Sized, TokenCounts, Reuse]:
    before, counts = _measured(WorkingSet(system_prompt="s", messages=first))
    reuse = reuse_of(counts, grown)
    assert reuse is not None
    after, next_counts = _measured(WorkingSet(system_prompt="s", messages=grown), counts=counts, reuse=reuse)
    return before, after, next_counts, reuse


M0, M1, M2 = Message("m0", "a b", _at(0)), Message("m1", "c d e", _at(1), ephemeral=True), Message("m2", "f", _at(2))


def test_an_appended_message_follows_the_carried_entries_by_position() -> None:
    before, after, counts, reuse = _carried_from((M0, M1), (M0, M1, M2))
    assert reuse.whole()
    messages = (*before.messages, Entry(M2, "m2", 1, 2, 2, False, False, False, None, -1))
    assert after.messages == messages
    assert after.total == 7
    assert _history(counts) == History(
        WORDS, (M0, M1, M2), messages, ("a b", "c d e", "f"), (2, 3, 1), frozenset({"m0", "m1", "m2"}), True, 9, 6, False
    )


def test_a_replaced_last_message_keeps_only_the_shared_entries() -> None:
    other = Message("x", "g h i j", _at(3))
    before, after, counts, reuse = _carried_from((M0, M1, M2), (M0, M1, other))
    assert (reuse.shared, reuse.whole()) == (2, False)
    messages = (*before.messages[:2], Entry(other, "x", 4, 2, 2, False, False, False, None, -1))
    assert after.messages == messages
    assert after.total == 10
    assert _history(counts) == History(
        WORDS, (M0, M1, other), messages, ("a b", "c d e", "g h i j"), (2, 3, 4), frozenset({"m0", "m1", "x"}), True, 15, 9, False
    )


def test_an_appended_message_older_than_the_history_reranks_every_message_by_time() -> None:
    old = Message("old", "f g", _at(-5))
    _, after, counts, _ = _carried_from((M0, M1), (M0, M1, old))
    messages = (
        Entry(M0, "m0", 2, 0, _at(0).timestamp(), False, False, False, None, -1),
        Entry(M1, "m1", 3, 1, _at(1).timestamp(), False, False, True, None, -1),
        Entry(old, "old", 2, 2, _at(-5).timestamp(), False, False, False, None, -1),
    )
    assert after.messages == messages
    assert after.total == 8
    assert _history(counts) == History(
        WORDS, (M0, M1, old), messages, ("a b", "c d e", "f g"), (2, 3, 2), frozenset({"m0", "m1", "old"}), False, 11, 7, False
    )


def test_an_appended_message_to_a_history_out_of_order_ranks_by_time() -> None:
    late, early = Message("late", "a", _at(9)), Message("early", "b c", _at(1))
    newer = Message("newer", "d", _at(4))
    before, after, counts, _ = _carried_from((late, early), (late, early, newer))
    messages = (*before.messages, Entry(newer, "newer", 1, 2, _at(4).timestamp(), False, False, False, None, -1))
    assert after.messages == messages
    assert after.total == 5
    assert _history(counts) == History(
        WORDS, (late, early, newer), messages, ("a", "b c", "d"), (1, 2, 1), frozenset({"late", "early", "newer"}), False, 5, 4, False
    )


def test_the_same_messages_again_carry_the_same_history() -> None:
    before, after, counts, _ = _carried_from((M0, M1), (M0, M1))
    assert after.messages == before.messages
    assert after.total == 6
    assert _history(counts) == History(
        WORDS, (M0, M1), before.messages, ("a b", "c d e"), (2, 3), frozenset({"m0", "m1"}), True, 8, 5, False
    )


P0, P1 = Message("p0", "a b", _at(0), token_cost=7), Message("p1", "c", _at(1), token_cost=2)


def test_priced_messages_again_carry_a_priced_history() -> None:
    before, after, counts, _ = _carried_from((P0, P1), (P0, P1))
    assert after.messages == before.messages
    assert after.total == 10
    assert _history(counts) == History(WORDS, (P0, P1), before.messages, (), (7, 2), frozenset({"p0", "p1"}), True, 0, 9, True)


def test_a_priced_message_appended_to_a_priced_history_is_charged_its_price() -> None:
    p2 = Message("p2", "d e f", _at(2), token_cost=4)
    before, after, counts, _ = _carried_from((P0, P1), (P0, P1, p2))
    messages = (*before.messages, Entry(p2, "p2", 4, 2, 2, False, False, False, None, -1))
    assert after.messages == messages
    assert after.total == 14
    assert _history(counts) == History(
        WORDS, (P0, P1, p2), messages, (), (7, 2, 4), frozenset({"p0", "p1", "p2"}), True, 0, 13, True
    )


def test_a_counted_message_appended_to_a_priced_history_is_measured_one_by_one() -> None:
    _, after, counts, _ = _carried_from((P0, P1), (P0, P1, M2))
    assert after.messages == (
        Entry(P0, "p0", 7, 0, _at(0).timestamp(), False, False, False, None, -1),
        Entry(P1, "p1", 2, 1, _at(1).timestamp(), False, False, False, None, -1),
        Entry(M2, "m2", 1, 2, _at(2).timestamp(), False, False, False, None, 1),
    )
    assert after.total == 11
    assert carried(counts) is None


def test_messages_with_equal_times_keep_ranking_by_position() -> None:
    m0, m1 = Message("m0", "a", _at(4)), Message("m1", "b c", _at(4))
    sized, counts = _measured(WorkingSet(messages=(m0, m1)))
    assert sized.messages == (Entry(m0, "m0", 1, 0, 0, False, False, False, None, -1), Entry(m1, "m1", 2, 1, 1, False, False, False, None, -1))
    assert _history(counts).by_position


def test_one_late_message_in_the_middle_ranks_every_message_by_time() -> None:
    m0, m1, m2 = Message("m0", "a", _at(0)), Message("m1", "b", _at(5)), Message("m2", "c", _at(3))
    sized, counts = _measured(WorkingSet(messages=(m0, m1, m2)))
    assert tuple(entry.rank for entry in sized.messages) == (_at(0).timestamp(), _at(5).timestamp(), _at(3).timestamp())
    assert not _history(counts).by_position


def test_a_message_appended_at_the_same_time_as_the_last_follows_by_position() -> None:
    same = Message("same", "g", _at(1))
    before, after, counts, _ = _carried_from((M0, M1), (M0, M1, same))
    assert after.messages == (*before.messages, Entry(same, "same", 1, 2, 2, False, False, False, None, -1))
    assert _history(counts).by_position


def test_appended_messages_out_of_order_among_themselves_rerank_every_message_by_time() -> None:
    late, early = Message("late", "g", _at(9)), Message("early", "h", _at(4))
    _, after, counts, _ = _carried_from((M0, M1), (M0, M1, late, early))
    assert tuple(entry.rank for entry in after.messages) == tuple(_at(s).timestamp() for s in (0, 1, 9, 4))
    assert tuple(entry.position for entry in after.messages) == (0, 1, 2, 3)
    assert after.total == 8
    assert not _history(counts).by_position


def test_a_priced_message_appended_to_a_counted_history_is_measured_one_by_one() -> None:
    priced = Message("p", "g h", _at(2), token_cost=9)
    _, after, counts, _ = _carried_from((M0, M1), (M0, M1, priced))
    assert after.messages == (
        Entry(M0, "m0", 2, 0, _at(0).timestamp(), False, False, False, None, 1),
        Entry(M1, "m1", 3, 1, _at(1).timestamp(), False, False, True, None, 2),
        Entry(priced, "p", 9, 2, _at(2).timestamp(), False, False, False, None, -1),
    )
    assert after.total == 15
    assert carried(counts) is None


def test_no_messages_carry_no_history() -> None:
    sized, counts = _measured(WorkingSet(system_prompt="a b"))
    assert (sized.messages, sized.total) == ((), 2)
    assert carried(counts) is None


def _fitted(ws: WorkingSet, window: int, **options: Any) -> Any:
    given = ThriftOptions(output_reserve=0, reserve_fraction=0.0, encoding="measured-words", **options)
    return subtract_to_fit(ws, window, options=given).unwrap()


FIT = WorkingSet(
    system_prompt="a b", messages=(Message("m0", "c d e", _at(0)),),
    retrievables=(WorkingRetrievable("x y", id="r1", score=0.9), WorkingRetrievable("z", id="r2", score=0.1)),
)


def test_a_set_measured_to_the_budget_fits_untouched() -> None:
    fitted = _fitted(FIT, 8)
    trace = fitted.trace
    assert (trace.context_window, trace.reserve, trace.budget, trace.total_before, trace.total_after) == (8, 0, 8, 8, 8)
    assert (trace.fits, trace.refused, trace.shed_order, trace.refilled) == (True, False, "agent", ())
    assert fitted.working_set == replace(FIT, visible_tool_names=frozenset())
    assert len(trace.buckets) == 11 and trace.buckets[0].bucket == "retrievables-size-unknown"


def test_a_set_one_over_sheds_the_lowest_scored_and_carries_its_counts() -> None:
    fitted = _fitted(FIT, 7, refill=True)
    trace = fitted.trace
    assert (trace.budget, trace.total_before, trace.total_after, trace.fits, trace.refused) == (7, 8, 7, True, False)
    assert fitted.working_set.retrievables == FIT.retrievables[:1]
    assert trace.refilled == (RefillTrace("memories", 0, 0, 0, 0, ()), RefillTrace("retrievables", 2, 2, 1, 1, ()))
    assert _history(fitted.counts).texts == ("c d e",)


def test_a_floor_over_the_budget_is_refused() -> None:
    trace = _fitted(FIT, 4).trace
    assert (trace.budget, trace.total_before, trace.total_after, trace.fits, trace.refused) == (4, 8, 5, False, True)


def test_refill_readmits_a_shed_item_that_fits_again() -> None:
    r1, r2, r3 = (
        WorkingRetrievable("x y", id="r1", score=0.9), WorkingRetrievable("p q r s", id="r2", score=0.5),
        WorkingRetrievable("z", id="r3", score=0.1),
    )
    fitted = _fitted(replace(FIT, retrievables=(r1, r2, r3)), 8, refill=True)
    trace = fitted.trace
    assert (trace.total_before, trace.total_after, trace.fits) == (12, 8, True)
    assert trace.refilled == (RefillTrace("memories", 0, 0, 0, 0, ()), RefillTrace("retrievables", 2, 3, 1, 2, ("r3",)))
    assert fitted.working_set.retrievables == (r1, r3)


class _Looked:
    """A slotted retrievable-like that answers ``estimate_tokens`` through its own attribute lookup."""

    __slots__ = ("content", "id")

    def __init__(self, content: str, id: str) -> None:
        self.content, self.id = content, id

    def __getattribute__(self, name: str) -> Any:
        if name == "estimate_tokens":
            return lambda encoding: 3
        return object.__getattribute__(self, name)

    def estimate_tokens(self, encoding: str) -> int:  # noqa: ARG002 - the lookup above answers instead
        return 100


def test_an_estimate_answered_by_a_custom_attribute_lookup_is_the_one_called() -> None:
    items = (_Looked("a", "l1"), _Looked("b", "l2"))
    trace = _fitted(WorkingSet(retrievables=items), 1000).trace
    assert (trace.total_before, trace.total_after) == (6, 6)


def test_the_reuse_is_the_leading_run_of_the_very_same_messages() -> None:
    _, counts = _measured(WorkingSet(messages=(M0, M1, M2)))
    history = _history(counts)
    other = Message("m0", "a b", _at(0))
    assert reuse_of(counts, (other, M1, M2)) is None
    assert reuse_of(counts, [M0, M1, M2]) is None
    assert reuse_of(TokenCounts(), (M0,)) is None
    assert reuse_of(counts, (M0, other)) == Reuse(history, 1, frozenset({"m0"}))
    assert reuse_of(counts, (M0, M1)) == Reuse(history, 2, frozenset({"m0", "m1"}))
    assert reuse_of(counts, (M0, M1, M2, other)) == Reuse(history, 3, history.keys)
