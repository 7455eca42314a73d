"""The shedding passes on hand-built states: what each keeps, what its trace reports (bucket,
tokens and counts before and after, note, shed ids in order) and the total it leaves.

Pass 0 (size-unknown retrievables, duplicate ids) runs on a working set; the others on a
measured `Sized` state built here directly, so each rule is pinned without the counter."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from returns.result import Failure, Success

from thrift_fp.thrift import ThriftOptions, WorkingSet
from thrift_fp.thrift._entry import Entry, Sized
from thrift_fp.thrift._errors import DuplicateId, InvalidItemField
from thrift_fp.thrift._passes import (
    Plan,
    Unmeasured,
    _Bulk,
    exclude_size_unknown,
    shed_ephemeral,
    shed_memories,
    shed_oldest_messages,
    shed_retrievables,
    shortlist_tools,
)
from thrift_fp.thrift._shapes import WorkingRetrievable as R
from thrift_fp.thrift._trace import BucketTrace

_OLDEST = "oldest non-summary messages while over budget, pairs together"
_SIZE_UNKNOWN = "size unknown: excluded unmeasured, whatever the score or budget"
_SCORE = "lowest score first while over budget"
_IMPORTANCE = "lowest importance first while over budget"
_SHORTLIST = "tools outside the relevant shortlist hidden (still callable)"


def _message(at: int, tokens: int, rank: int, summary: bool = False, pair: str | None = None) -> Entry:
    return Entry(None, f"m{at}", tokens, at, rank, summary=summary, pair=pair)


def _messages(*entries: Entry) -> Sized:
    return Sized(WorkingSet(), None, 0, entries, (), (), (), (), (), None, sum(entry.tokens for entry in entries))


def _plan(budget: int, relevant: tuple[str, ...] | None = None) -> Plan:
    return Plan(budget, ThriftOptions(), relevant)


def _keys(entries: tuple[Entry, ...]) -> list[str]:
    return [entry.key for entry in entries]


# Oldest messages ------------------------------------------------------------------------------

# Age order (rank, then input position): m5 (summary), m1, m3, m0, m6, m4, m2 (the newest).
_UNPAIRED = (
    _message(0, 3, 2), _message(1, 4, 0), _message(2, 5, 4), _message(3, 6, 1),
    _message(4, 7, 3), _message(5, 2, -1, summary=True), _message(6, 1, 2),
)
# Age order is input order here except m6 (age 9, the newest); units: m0-m2 (pair p), m3,
# m4-m5 (pair q), m6.
_PAIRED = (
    _message(0, 5, 0, pair="p"), _message(1, 5, 1), _message(2, 5, 2, pair="p"), _message(3, 5, 3),
    _message(4, 5, 4, pair="q"), _message(5, 5, 5, pair="q"), _message(6, 5, 9),
)


def _oldest(trace_after: int, *shed: str) -> BucketTrace:
    """The oldest-messages trace of the seven `_PAIRED` messages (35 tokens), ``trace_after`` left."""
    return BucketTrace("messages", 35, trace_after, 7, 7 - len(shed), _OLDEST, shed)


# Each case: the messages, the budget, the trace, the keys kept and the total left.
_SHED_OLDEST = {
    # 10 over: m1 (4) then m3 (6) cover it exactly; the summary m5, oldest of all, stays.
    "shed the shortest oldest run by age, not input order": (
        _UNPAIRED, 18, BucketTrace("messages", 28, 18, 7, 5, _OLDEST, ("m1", "m3")), ["m0", "m2", "m4", "m5", "m6"], 18,
    ),
    # 13 over: m1, m3, then m0 (age 2, before m6 of age 2) covers it.
    "among equal ages shed the earlier input first": (
        _UNPAIRED, 15, BucketTrace("messages", 28, 15, 7, 4, _OLDEST, ("m1", "m3", "m0")), ["m2", "m4", "m5", "m6"], 15,
    ),
    "never shed the newest nor a summary": (
        _UNPAIRED, 0, BucketTrace("messages", 28, 7, 7, 2, _OLDEST, ("m1", "m3", "m0", "m6", "m4")), ["m2", "m5"], 7,
    ),
    "paired: shed whole units covering the excess": (_PAIRED, 34, _oldest(20, "m0", "m1", "m2"), ["m3", "m4", "m5", "m6"], 20),
    "paired: stop at the unit that covers the excess exactly": (
        _PAIRED, 15, _oldest(15, "m0", "m1", "m2", "m3"), ["m4", "m5", "m6"], 15,
    ),
    "paired: never reach the newest": (_PAIRED, 0, _oldest(5, "m0", "m1", "m2", "m3", "m4", "m5"), ["m6"], 5),
    "paired: stop before a message paired with a summary": (
        (*_PAIRED, _message(7, 1, 20, summary=True, pair="q")), 0,
        BucketTrace("messages", 36, 16, 8, 4, _OLDEST, ("m0", "m1", "m2", "m3")), ["m4", "m5", "m6", "m7"], 16,
    ),
    "a summary without a pair blocks no paired unit": (
        (*_PAIRED, _message(7, 1, 20, summary=True)), 0,
        BucketTrace("messages", 36, 6, 8, 2, _OLDEST, ("m0", "m1", "m2", "m3", "m4", "m5")), ["m6", "m7"], 6,
    ),
    # By age: m3, m1, m2, m0 (the newest); the pair r spans m3 to m2, one unit of three.
    "paired: follow age, not input order": (
        (_message(0, 4, 3), _message(1, 3, 1), _message(2, 2, 2, pair="r"), _message(3, 1, 0, pair="r")), 9,
        BucketTrace("messages", 10, 4, 4, 1, _OLDEST, ("m3", "m1", "m2")), ["m0"], 4,
    ),
}


@pytest.mark.parametrize(("entries", "budget", "expected", "kept", "total"), _SHED_OLDEST.values(), ids=_SHED_OLDEST)
def test_oldest_messages_shed(
    entries: tuple[Entry, ...], budget: int, expected: BucketTrace, kept: list[str], total: int
) -> None:
    after, trace = shed_oldest_messages(_messages(*entries), _plan(budget))
    assert trace == expected
    assert (_keys(after.messages), after.total) == (kept, total)


# Each case: the messages, the budget, and the trace of a pass that sheds nothing.
_KEEP_OLDEST = {
    "an exact fit keeps every message": (_UNPAIRED, 28, BucketTrace("messages", 28, 28, 7, 7, _OLDEST, ())),
    "paired: an exact fit keeps every message": (_PAIRED, 35, _oldest(35)),
    # Over budget but nothing sheddable: the state comes back as it is, not rebuilt.
    "paired: one pair straddling everything sheds nothing": (
        (_message(0, 4, 0, pair="p"), _message(1, 3, 1), _message(2, 2, 2, pair="p")), 0,
        BucketTrace("messages", 9, 9, 3, 3, _OLDEST, ()),
    ),
}


@pytest.mark.parametrize(("entries", "budget", "expected"), _KEEP_OLDEST.values(), ids=_KEEP_OLDEST)
def test_oldest_messages_that_shed_nothing_return_the_state_itself(
    entries: tuple[Entry, ...], budget: int, expected: BucketTrace
) -> None:
    state = _messages(*entries)
    after, trace = shed_oldest_messages(state, _plan(budget))
    assert after is state
    assert trace == expected


def test_oldest_messages_count_the_other_buckets_in_the_total() -> None:
    state = _messages(*_UNPAIRED)._replace(fixed_tokens=10, total=38)
    after, trace = shed_oldest_messages(state, _plan(30))
    # The bucket's own tokens are 28 of the 38; 8 over: m1 and m3.
    assert trace == BucketTrace("messages", 28, 18, 7, 5, _OLDEST, ("m1", "m3"))
    assert after.total == 28


def test_paired_oldest_messages_one_token_short_of_an_exact_cover_shed_the_next_unit() -> None:
    _, trace = shed_oldest_messages(_messages(*_PAIRED), _plan(14))
    assert trace.ids == ("m0", "m1", "m2", "m3", "m4", "m5")


# Retrievables and memories: ranked shedding -----------------------------------------------------

def _ranked(ranks: tuple[float, ...], tokens: tuple[int, ...], prefix: str) -> tuple[Entry, ...]:
    return tuple(Entry(None, f"{prefix}{at}", size, at, rank) for at, (rank, size) in enumerate(zip(ranks, tokens)))


_RANKS = (0.5, 0.9, 0.5, 0.1)
_SIZES = (10, 20, 30, 40)


def _with_retrievables(entries: tuple[Entry, ...], extra: int = 0) -> Sized:
    return Sized(WorkingSet(), None, extra, (), (), entries, (), (), (), None, extra + sum(e.tokens for e in entries))


def _with_memories(entries: tuple[Entry, ...], extra: int = 0) -> Sized:
    return Sized(WorkingSet(), None, extra, (), entries, (), (), (), (), None, extra + sum(e.tokens for e in entries))


def test_retrievables_within_budget_all_stay_in_score_order() -> None:
    state = _with_retrievables(_ranked(_RANKS, _SIZES, "r"))
    after, trace = shed_retrievables(state, _plan(100))
    assert trace == BucketTrace("retrievables", 100, 100, 4, 4, _SCORE, ())
    assert _keys(after.retrievables) == ["r1", "r0", "r2", "r3"]
    assert after.total == 100


def test_retrievables_shed_lowest_score_first_and_later_input_first_among_ties() -> None:
    state = _with_retrievables(_ranked(_RANKS, _SIZES, "r"), extra=7)
    after, trace = shed_retrievables(state, _plan(62))
    # 45 over: r3 (40) then r2 (30, the later of the two 0.5s).
    assert trace == BucketTrace("retrievables", 100, 30, 4, 2, _SCORE, ("r3", "r2"))
    assert _keys(after.retrievables) == ["r1", "r0"]
    assert after.total == 37
    assert after.messages == () and after.memories == ()


def test_retrievables_at_an_exact_cover_shed_no_further() -> None:
    state = _with_retrievables(_ranked(_RANKS, _SIZES, "r"))
    after, trace = shed_retrievables(state, _plan(60))
    assert trace == BucketTrace("retrievables", 100, 60, 4, 3, _SCORE, ("r3",))
    assert _keys(after.retrievables) == ["r1", "r0", "r2"]
    assert after.total == 60


def test_memories_shed_lowest_importance_first_into_their_own_bucket() -> None:
    state = _with_memories(_ranked(_RANKS, _SIZES, "k"))
    after, trace = shed_memories(state, _plan(0))
    assert trace == BucketTrace("memories", 100, 0, 4, 0, _IMPORTANCE, ("k3", "k2", "k0", "k1"))
    assert after.memories == () and after.retrievables == ()
    assert after.total == 0


def test_an_empty_bucket_sheds_nothing_and_keeps_the_state() -> None:
    state = _with_memories((), extra=50)
    after, trace = shed_memories(state, _plan(10))
    assert trace == BucketTrace("memories", 0, 0, 0, 0, _IMPORTANCE, ())
    assert after.total == 50 and after.memories == ()


# Tools: the relevant shortlist ------------------------------------------------------------------

_TOOLS = (Entry(None, "t0", 3, 0, 0), Entry(None, "t1", 4, 1, 0), Entry(None, "t2", 5, 2, 0))


def _with_tools(visible: frozenset[str] | None, total: int) -> Sized:
    return Sized(WorkingSet(), visible, 0, (), (), (), (), _TOOLS, (), None, total)


def test_shortlist_hides_every_visible_tool_outside_the_relevant_names() -> None:
    after, trace = shortlist_tools(_with_tools(None, 12), _plan(0, ("t2", "t0")))
    assert trace == BucketTrace("tools", 12, 8, 3, 2, _SHORTLIST, ("t1",))
    assert after.visible == frozenset({"t0", "t2"})
    assert after.total == 8
    assert after.tools == _TOOLS


def test_shortlist_counts_only_the_tools_already_visible() -> None:
    after, trace = shortlist_tools(_with_tools(frozenset({"t0", "t1"}), 7), _plan(0, ("t0", "t2")))
    assert trace == BucketTrace("tools", 7, 3, 2, 1, _SHORTLIST, ("t1",))
    assert after.visible == frozenset({"t0"})
    assert after.total == 3


def test_no_shortlist_keeps_every_visible_tool() -> None:
    after, trace = shortlist_tools(_with_tools(None, 12), _plan(0))
    assert trace == BucketTrace("tools", 12, 12, 3, 3, _SHORTLIST, ())
    assert after.visible == frozenset({"t0", "t1", "t2"})
    assert after.total == 12


# Pass 0: size-unknown retrievables and ids -------------------------------------------------------

@dataclass(frozen=True)
class _Anonymous:
    """A retrievable-like item with no ``id`` and no ``size_unknown`` attribute at all."""

    content: str


@dataclass(frozen=True)
class _Flagged:
    """A retrievable-like item whose ``size_unknown`` may be any value."""

    content: str
    id: str | None
    size_unknown: object


def test_a_clean_bucket_keeps_every_retrievable_by_id_without_copying_it() -> None:
    ws = WorkingSet(retrievables=(R("x", id="a"), R("y", id="b")))
    result = exclude_size_unknown(ws)
    trace = BucketTrace("retrievables-size-unknown", 0, 0, 0, 0, _SIZE_UNKNOWN, ())
    assert result == Success(Unmeasured(ws, trace, ("a", "b"), ws.retrievables))
    assert result.unwrap().retrievables is ws.retrievables


def test_size_unknown_retrievables_are_dropped_and_anonymous_ones_keyed_by_position() -> None:
    items = (R("x", id="a"), R("y", size_unknown=True), _Anonymous("z"), R("w", id="b", size_unknown=True), R("v"))
    ws = WorkingSet(retrievables=items)
    trace = BucketTrace("retrievables-size-unknown", 0, 0, 2, 0, _SIZE_UNKNOWN, ("retrievable[1]", "b"))
    expected = Unmeasured(ws, trace, ("a", "retrievable[2]", "retrievable[4]"), (items[0], items[2], items[4]))
    assert exclude_size_unknown(ws) == Success(expected)


def test_an_item_without_an_id_is_keyed_by_its_position() -> None:
    items = (_Anonymous("z"), R("x", id="a"))
    ws = WorkingSet(retrievables=items)
    trace = BucketTrace("retrievables-size-unknown", 0, 0, 0, 0, _SIZE_UNKNOWN, ())
    assert exclude_size_unknown(ws) == Success(Unmeasured(ws, trace, ("retrievable[0]", "a"), items))


def test_a_duplicate_id_is_an_error_even_on_a_size_unknown_item() -> None:
    ws = WorkingSet(retrievables=(R("x", id="a"), R("y", id="b"), R("z", id="a", size_unknown=True)))
    assert exclude_size_unknown(ws) == Failure(DuplicateId("retrievables", "a"))


def test_an_explicit_id_may_clash_with_an_anonymous_position() -> None:
    ws = WorkingSet(retrievables=(R("x", id="retrievable[1]"), R("y")))
    assert exclude_size_unknown(ws) == Failure(DuplicateId("retrievables", "retrievable[1]"))


def test_a_non_bool_size_unknown_is_an_invalid_field_naming_the_item() -> None:
    ws = WorkingSet(retrievables=(R("x", id="a"), _Flagged("y", None, 0)))
    assert exclude_size_unknown(ws) == Failure(
        InvalidItemField("retrievables", "retrievable[1]", "size_unknown", 0, "expected a bool")
    )


def test_a_missing_size_unknown_counts_as_known() -> None:
    items = (_Flagged("y", "a", None), _Anonymous("z"))
    ws = WorkingSet(retrievables=items)
    trace = BucketTrace("retrievables-size-unknown", 0, 0, 0, 0, _SIZE_UNKNOWN, ())
    assert exclude_size_unknown(ws) == Success(Unmeasured(ws, trace, ("a", "retrievable[1]"), items))


class _RaisingId:
    """An item whose ``id`` raises: the fast path must hand it to the loop."""

    content = "x"

    @property
    def id(self) -> str:
        raise RuntimeError("no id")


def test_the_fast_path_takes_only_distinct_str_ids_and_bool_or_missing_flags() -> None:
    assert _Bulk.clean_keys(()) == ()
    assert _Bulk.clean_keys((R("x", id="a"), R("y", id="b"))) == ("a", "b")
    assert _Bulk.clean_keys((_Flagged("x", "a", None), _Flagged("y", "b", False))) == ("a", "b")
    assert _Bulk.clean_keys((R("x", id="a"), R("y", id="b", size_unknown=True))) is None
    assert _Bulk.clean_keys((R("x", id="a"), R("y", id="a"))) is None
    assert _Bulk.clean_keys((R("x", id="a"), R("y"))) is None
    assert _Bulk.clean_keys((R("x", id="a"), _Anonymous("y"))) is None
    assert _Bulk.clean_keys((_Flagged("x", "a", 0),)) is None
    assert _Bulk.clean_keys((_RaisingId(),)) is None


def test_a_missing_size_unknown_keeps_the_fast_path() -> None:
    @dataclass(frozen=True)
    class _Plain:
        content: str
        id: str

    assert _Bulk.clean_keys((_Plain("x", "a"), _Plain("y", "b"))) == ("a", "b")


def test_paired_oldest_messages_when_every_message_is_paired() -> None:
    state = _messages(
        _message(0, 2, 0, pair="p"), _message(1, 3, 1, pair="p"), _message(2, 4, 2, pair="q"), _message(3, 5, 3, pair="q"),
    )
    after, trace = shed_oldest_messages(state, _plan(0))
    assert trace == BucketTrace("messages", 14, 9, 4, 2, _OLDEST, ("m0", "m1"))
    assert _keys(after.messages) == ["m2", "m3"]
    assert after.total == 9


# Ephemeral messages leave with their pair partners ----------------------------------------------

_EPHEMERAL = "ephemeral messages oldest first (with pair partners), keeping the latest"


def test_an_ephemeral_message_is_shed_with_its_pair_partner() -> None:
    state = _messages(
        Entry(None, "m0", 5, 0, 0, ephemeral=True, pair="p"), _message(1, 5, 1), _message(2, 6, 2, pair="p"),
        Entry(None, "m3", 5, 3, 3, ephemeral=True), _message(4, 5, 4),
    )
    after, trace = shed_ephemeral(state, _plan(16))
    assert trace == BucketTrace("messages", 26, 15, 5, 3, _EPHEMERAL, ("m0", "m2"))
    assert _keys(after.messages) == ["m1", "m3", "m4"]
    assert after.total == 15


def test_a_summary_paired_with_no_other_message_blocks_nothing() -> None:
    state = _messages(*_PAIRED, _message(7, 1, 20, summary=True, pair="z"))
    after, trace = shed_oldest_messages(state, _plan(0))
    assert trace == BucketTrace("messages", 36, 6, 8, 2, _OLDEST, ("m0", "m1", "m2", "m3", "m4", "m5"))
    assert _keys(after.messages) == ["m6", "m7"]
