"""The shedding passes one by one, on hand-built measured states: what each keeps, what it sheds and
in which order, the trace it writes and the total it leaves (thought strip, image, tool calls,
ephemeral messages, thoughts, tools, and the refill step)."""

from __future__ import annotations

import pytest

from thrift_fp.thrift import AGENT, Image, ShedOrder, ThriftOptions, WorkingSet
from thrift_fp.thrift._entry import Entry, Sized
from thrift_fp.thrift._passes import (
    Plan,
    drop_image,
    refill,
    shed_ephemeral,
    shed_thoughts,
    shed_tool_calls,
    shed_tools,
    strip_thoughts,
)
from thrift_fp.thrift._trace import BucketTrace, RefillTrace

_EPHEMERAL_NOTE = "ephemeral messages oldest first (with pair partners), keeping the latest"
_IMAGE_NOTE = "image dropped while over budget, all or nothing"
_CALLS_NOTE = "prior-turn calls, then this-turn calls beyond the keep, oldest first"
_THOUGHTS_NOTE = "oldest thoughts while over budget, keeping protected ones and the newest"
_TOOLS_NOTE = "visible tools by shed_rank while over budget, protected last"


def _state(
    total: int,
    *,
    messages: tuple[Entry, ...] = (),
    memories: tuple[Entry, ...] = (),
    retrievables: tuple[Entry, ...] = (),
    thoughts: tuple[Entry, ...] = (),
    tools: tuple[Entry, ...] = (),
    tool_calls: tuple[Entry, ...] = (),
    image: Entry | None = None,
    visible: frozenset[str] | None = None,
) -> Sized:
    return Sized(WorkingSet(), visible, 0, messages, memories, retrievables, thoughts, tools, tool_calls, image, total)


def _plan(budget: int, relevant: tuple[str, ...] | None = None, **options: object) -> Plan:
    return Plan(budget, ThriftOptions(**options), relevant)  # type: ignore[arg-type]  # test-chosen option values


def _keys(entries: tuple[Entry, ...]) -> list[str]:
    return [entry.key for entry in entries]


# --- pass 1: the thought strip ---------------------------------------------------------------

_T0 = Entry(None, "t0", 3, 0, 0)
_T1 = Entry(None, "t1", 4, 1, 1)
_T2 = Entry(None, "t2", 5, 2, 2, this_turn=True)
_T3 = Entry(None, "t3", 6, 3, 3)


def test_the_strip_drops_prior_turn_thoughts_except_kept_ids_and_this_turn_ones() -> None:
    state = _state(18, thoughts=(_T0, _T1, _T2, _T3))
    after, trace = strip_thoughts(state, _plan(10**6, keep_thought_ids=frozenset({"t1"})))
    assert after == state._replace(thoughts=(_T1, _T2), total=9)
    assert trace == BucketTrace("thoughts", 18, 9, 4, 2, "prior-turn thoughts stripped unless kept by id", ("t0", "t3"))


def test_the_strip_turned_off_leaves_every_thought() -> None:
    state = _state(18, thoughts=(_T0, _T1, _T2, _T3))
    after, trace = strip_thoughts(state, _plan(0, strip_prior_turn_thoughts=False))
    assert after is state
    assert trace == BucketTrace("thoughts", 18, 18, 4, 4, "prior-turn thoughts stripped unless kept by id", ())


# --- pass 3: the image -------------------------------------------------------------------------


def test_no_image_is_an_empty_image_trace() -> None:
    state = _state(50)
    after, trace = drop_image(state, _plan(0))
    assert after is state
    assert trace == BucketTrace("image", 0, 0, 0, 0, _IMAGE_NOTE, ())


def test_an_image_at_an_exact_fit_stays() -> None:
    state = _state(10, image=Entry(Image("diagram.png", 7), "diagram.png", 7, 0, 0.0))
    after, trace = drop_image(state, _plan(10))
    assert after is state
    assert trace == BucketTrace("image", 7, 7, 1, 1, _IMAGE_NOTE, ())


def test_an_image_one_token_over_budget_is_dropped_whole() -> None:
    for item in (Image("diagram.png", 7), None):  # an item without a `kept` flag counts as kept
        state = _state(10, image=Entry(item, "diagram.png", 7, 0, 0.0))
        after, trace = drop_image(state, _plan(9))
        assert after == state._replace(image=None, total=3)
        assert trace == BucketTrace("image", 7, 0, 1, 0, _IMAGE_NOTE, ("diagram.png",))


def test_an_image_with_kept_false_is_never_dropped_even_far_over_budget() -> None:
    # The caller already omitted it: it costs 0, and the pass leaves it where it is.
    state = _state(20, image=Entry(Image("diagram.png", 50, kept=False), "diagram.png", 0, 0, 0.0))
    after, trace = drop_image(state, _plan(10))
    assert after is state
    assert trace == BucketTrace("image", 0, 0, 1, 1, _IMAGE_NOTE, ())


# --- pass 4: tool calls ------------------------------------------------------------------------

# Input order differs from age order (rank = created_at_ms).
_C_NEW = Entry(None, "c_new", 1, 0, 40, this_turn=True)
_P_NEW = Entry(None, "p_new", 2, 1, 20)
_C_OLD = Entry(None, "c_old", 4, 2, 10, this_turn=True)
_P_OLD = Entry(None, "p_old", 8, 3, 5)
_C_MID = Entry(None, "c_mid", 16, 4, 30, this_turn=True)
_CALLS = (_C_NEW, _P_NEW, _C_OLD, _P_OLD, _C_MID)


def test_tool_calls_shed_prior_turn_oldest_first_then_this_turn_oldest_first_until_within() -> None:
    state = _state(31, tool_calls=_CALLS)
    after, trace = shed_tool_calls(state, _plan(18, this_turn_result_keep=1))
    assert after == state._replace(tool_calls=(_C_NEW, _C_MID), total=17)
    assert trace == BucketTrace("tool-calls", 31, 17, 5, 2, _CALLS_NOTE, ("p_old", "p_new", "c_old"))


def test_tool_calls_keep_the_newest_this_turn_calls_whatever_the_excess() -> None:
    state = _state(31, tool_calls=_CALLS)
    after, trace = shed_tool_calls(state, _plan(0, this_turn_result_keep=1))
    assert after == state._replace(tool_calls=(_C_NEW,), total=1)
    assert trace == BucketTrace("tool-calls", 31, 1, 5, 1, _CALLS_NOTE, ("p_old", "p_new", "c_old", "c_mid"))
    after, trace = shed_tool_calls(state, _plan(0, this_turn_result_keep=0))
    assert after == state._replace(tool_calls=(), total=0)
    assert trace.ids == ("p_old", "p_new", "c_old", "c_mid", "c_new")


def test_a_keep_larger_than_the_this_turn_calls_keeps_them_all() -> None:
    state = _state(31, tool_calls=_CALLS)
    after, trace = shed_tool_calls(state, _plan(0, this_turn_result_keep=5))
    assert after == state._replace(tool_calls=(_C_NEW, _C_OLD, _C_MID), total=21)
    assert trace == BucketTrace("tool-calls", 31, 21, 5, 3, _CALLS_NOTE, ("p_old", "p_new"))


def test_tool_calls_at_an_exact_fit_stay() -> None:
    state = _state(31, tool_calls=_CALLS)
    after, trace = shed_tool_calls(state, _plan(31, this_turn_result_keep=0))
    assert after is state
    assert trace == BucketTrace("tool-calls", 31, 31, 5, 5, _CALLS_NOTE, ())


# --- pass 9: thoughts --------------------------------------------------------------------------

_TA = Entry(None, "a", 1, 0, 3)
_TB = Entry(None, "b", 2, 1, 1)  # protected by id
_TC = Entry(None, "c", 4, 2, 0)
_TD = Entry(None, "d", 8, 3, 2)
_TE = Entry(None, "e", 16, 4, 4)  # the newest
_THOUGHTS = (_TA, _TB, _TC, _TD, _TE)


def test_thoughts_shed_oldest_first_until_within() -> None:
    state = _state(31, thoughts=_THOUGHTS)
    after, trace = shed_thoughts(state, _plan(25, keep_thought_ids=frozenset({"b"})))
    assert after == state._replace(thoughts=(_TA, _TB, _TE), total=19)
    assert trace == BucketTrace("thoughts-shed", 31, 19, 5, 3, _THOUGHTS_NOTE, ("c", "d"))


def test_thoughts_never_shed_the_kept_ids_nor_the_newest_other_one() -> None:
    state = _state(31, thoughts=_THOUGHTS)
    after, trace = shed_thoughts(state, _plan(0, keep_thought_ids=frozenset({"b"})))
    assert after == state._replace(thoughts=(_TB, _TE), total=18)
    assert trace == BucketTrace("thoughts-shed", 31, 18, 5, 2, _THOUGHTS_NOTE, ("c", "d", "a"))


def test_thoughts_at_an_exact_fit_stay() -> None:
    state = _state(31, thoughts=_THOUGHTS)
    after, trace = shed_thoughts(state, _plan(31))
    assert after is state
    assert trace == BucketTrace("thoughts-shed", 31, 31, 5, 5, _THOUGHTS_NOTE, ())


# --- pass 10: tools ----------------------------------------------------------------------------


def _tool(key: str, tokens: int, position: int, rank: float) -> Entry:
    return Entry(None, key, tokens, position, rank)


_TOOLS = (_tool("a", 1, 0, 0), _tool("b", 2, 1, 0), _tool("c", 4, 2, 0), _tool("d", 8, 3, 0))


def test_tools_of_equal_rank_are_hidden_in_relevant_tool_names_order() -> None:
    state = _state(15, tools=_TOOLS)
    after, trace = shed_tools(state, _plan(10, ("c", "a", "b", "d")))
    assert after == state._replace(visible=frozenset({"b", "d"}), total=10)
    assert trace == BucketTrace("tools-shed", 15, 10, 4, 2, _TOOLS_NOTE, ("c", "a"))
    after, trace = shed_tools(state, _plan(0, ("c", "a", "b", "d")))
    assert after == state._replace(visible=frozenset(), total=0)
    assert trace == BucketTrace("tools-shed", 15, 0, 4, 0, _TOOLS_NOTE, ("c", "a", "b", "d"))


def test_a_repeated_relevant_name_keeps_its_first_place() -> None:
    state = _state(15, tools=_TOOLS)
    _, trace = shed_tools(state, _plan(0, ("d", "c", "d", "b", "a")))
    assert trace.ids == ("d", "c", "b", "a")


def test_a_tool_outside_the_relevant_names_ranks_by_its_input_position() -> None:
    state = _state(15, tools=_TOOLS)
    _, trace = shed_tools(state, _plan(0, ("d",)))
    # relevance: d at 0 (first name), the others at their input positions 0, 1, 2; a sort is stable.
    assert trace.ids == ("a", "d", "b", "c")


def test_tools_hide_by_shed_rank_ascending_protected_last() -> None:
    tools = (_tool("a", 1, 0, 2), _tool("b", 2, 1, 1), _tool("c", 4, 2, 3), _tool("d", 8, 3, 1), _tool("e", 16, 4, 1))
    state = _state(31, tools=tools)
    after, trace = shed_tools(state, _plan(0, None, protected_tool_names=frozenset({"b"})))
    assert after == state._replace(visible=frozenset(), total=0)
    assert trace == BucketTrace("tools-shed", 31, 0, 5, 0, _TOOLS_NOTE, ("d", "e", "a", "c", "b"))
    after, trace = shed_tools(state, _plan(22, None, protected_tool_names=frozenset({"b"})))
    assert after == state._replace(visible=frozenset({"a", "b", "c"}), total=7)
    assert trace == BucketTrace("tools-shed", 31, 7, 5, 3, _TOOLS_NOTE, ("d", "e"))


def test_only_visible_tools_are_hidden_and_an_exact_fit_hides_none() -> None:
    state = _state(5, tools=_TOOLS, visible=frozenset({"a", "c"}))
    after, trace = shed_tools(state, _plan(5))
    assert after == state._replace(visible=frozenset({"a", "c"}))
    assert trace == BucketTrace("tools-shed", 5, 5, 2, 2, _TOOLS_NOTE, ())
    after, trace = shed_tools(state, _plan(0))
    assert after == state._replace(visible=frozenset(), total=0)
    assert trace == BucketTrace("tools-shed", 5, 0, 2, 0, _TOOLS_NOTE, ("a", "c"))


# --- pass 7: ephemeral messages ----------------------------------------------------------------


def _message(key: str, tokens: int, position: int, age: int, *, ephemeral: bool = False,
             summary: bool = False, pair: str | None = None) -> Entry:
    return Entry(None, key, tokens, position, age, summary=summary, ephemeral=ephemeral, pair=pair)


# Input order differs from age order; e1 is paired with u2, e3 with the summary s4; e5 is the
# latest ephemeral message and u6 the newest non-summary one.
_U6 = _message("u6", 64, 0, 6)
_E3 = _message("e3", 8, 1, 3, ephemeral=True, pair="q")
_E0 = _message("e0", 1, 2, 0, ephemeral=True)
_S4 = _message("s4", 16, 3, 4, summary=True, pair="q")
_E1 = _message("e1", 2, 4, 1, ephemeral=True, pair="p")
_E5 = _message("e5", 32, 5, 5, ephemeral=True)
_U2 = _message("u2", 4, 6, 2, pair="p")
_MESSAGES = (_U6, _E3, _E0, _S4, _E1, _E5, _U2)


@pytest.mark.parametrize(
    ("budget", "kept", "total", "shed"),
    [
        pytest.param(0, (_U6, _E3, _S4, _E5), 120, ("e0", "e1", "u2"),
                     id="shed oldest first with partners, skipping protected groups"),
        pytest.param(126, (_U6, _E3, _S4, _E1, _E5, _U2), 126, ("e0",), id="stops once within budget"),
        # After e0 the set is still over (126 > 121), so the pair e1+u2 goes too, which brings it within.
        pytest.param(121, (_U6, _E3, _S4, _E5), 120, ("e0", "e1", "u2"), id="counts down the total unit by unit"),
    ],
)
def test_ephemeral_messages_shed(budget: int, kept: tuple[Entry, ...], total: int, shed: tuple[str, ...]) -> None:
    state = _state(127, messages=_MESSAGES)
    after, trace = shed_ephemeral(state, _plan(budget))
    assert after == state._replace(messages=kept, total=total)
    assert trace == BucketTrace("messages", 127, total, 7, len(kept), _EPHEMERAL_NOTE, shed)


def test_ephemeral_messages_at_an_exact_fit_or_with_none_ephemeral_stay() -> None:
    state = _state(127, messages=_MESSAGES)
    after, trace = shed_ephemeral(state, _plan(127))
    assert after is state
    assert trace == BucketTrace("messages", 127, 127, 7, 7, _EPHEMERAL_NOTE, ())
    plain = _state(68, messages=(_U6, _U2))
    after, trace = shed_ephemeral(plain, _plan(0))
    assert after is plain
    assert trace == BucketTrace("messages", 68, 68, 2, 2, _EPHEMERAL_NOTE, ())


def test_an_ephemeral_message_paired_with_the_latest_ephemeral_or_the_newest_message_stays() -> None:
    a = _message("a", 1, 0, 0, ephemeral=True, pair="x")  # partner of f, the latest ephemeral
    b = _message("b", 2, 1, 1, ephemeral=True, pair="y")  # partner of g, the newest message
    c = _message("c", 4, 2, 2, ephemeral=True)
    h = _message("h", 64, 3, 3)
    f = _message("f", 8, 4, 4, ephemeral=True, pair="x")
    g = _message("g", 16, 5, 5, pair="y")
    state = _state(95, messages=(a, b, c, h, f, g))
    after, trace = shed_ephemeral(state, _plan(0))
    assert after == state._replace(messages=(a, b, h, f, g), total=91)
    assert trace == BucketTrace("messages", 95, 91, 6, 5, _EPHEMERAL_NOTE, ("c",))


def test_two_ephemeral_partners_leave_once_as_one_unit() -> None:
    x0 = _message("x0", 1, 0, 0, ephemeral=True, pair="r")
    x1 = _message("x1", 2, 1, 1, ephemeral=True, pair="r")
    x2 = _message("x2", 4, 2, 2, ephemeral=True)
    u = _message("u", 8, 3, 3)
    state = _state(15, messages=(x0, x1, x2, u))
    after, trace = shed_ephemeral(state, _plan(0))
    assert after == state._replace(messages=(x2, u), total=12)
    assert trace == BucketTrace("messages", 15, 12, 4, 2, _EPHEMERAL_NOTE, ("x0", "x1"))


# --- refill ------------------------------------------------------------------------------------

_R0 = Entry(None, "r0", 1, 0, 0.5)
_R1 = Entry(None, "r1", 3, 1, 0.9)
_R2 = Entry(None, "r2", 4, 2, 0.9)
_R3 = Entry(None, "r3", 6, 3, 0.1)
_M0 = Entry(None, "m0", 2, 0, 0.2)
_M1 = Entry(None, "m1", 7, 1, 0.8)
_MEASURED = _state(29, retrievables=(_R0, _R1, _R2, _R3), memories=(_M0, _M1))
# After shedding: only r1 left, and 7 tokens of other buckets.
_SHED = _state(10, retrievables=(_R1,))


def test_refill_fills_the_later_shed_bucket_first_by_rank_up_to_an_exact_fit() -> None:
    after, traces = refill(_MEASURED, _SHED, _plan(24, shed_order=AGENT))
    # Memories first (shed after retrievables): m1 then m0 (7 + 2 of 14); then r2 (4 of 5) and r0
    # (exactly the 1 token left); r3 does not fit; r1 was never shed.
    assert after == _SHED._replace(retrievables=(_R1, _R2, _R0), memories=(_M1, _M0), total=24)
    assert traces == (
        RefillTrace("memories", 0, 9, 0, 2, ("m1", "m0")),
        RefillTrace("retrievables", 3, 8, 1, 3, ("r2", "r0")),
    )


def test_refill_fills_retrievables_first_when_memories_are_shed_first() -> None:
    passes = tuple(name for name in AGENT.passes if name != "memories")
    at = passes.index("retrievables")
    order = ShedOrder("memories-first", (*passes[:at], "memories", *passes[at:]))
    after, traces = refill(_MEASURED, _SHED, _plan(24, shed_order=order))
    assert after == _SHED._replace(retrievables=(_R1, _R2, _R0, _R3), memories=(_M0,), total=23)
    assert traces == (
        RefillTrace("retrievables", 3, 14, 1, 4, ("r2", "r0", "r3")),
        RefillTrace("memories", 0, 2, 0, 1, ("m0",)),
    )


def test_refill_with_no_room_admits_nothing_and_keeps_survivors_in_ranking_order() -> None:
    shed = _state(24, retrievables=(_R0, _R1, _R2))
    after, traces = refill(_MEASURED, shed, _plan(24))
    assert after == shed._replace(retrievables=(_R1, _R2, _R0))
    assert traces == (
        RefillTrace("memories", 0, 0, 0, 0, ()),
        RefillTrace("retrievables", 8, 8, 3, 3, ()),
    )
