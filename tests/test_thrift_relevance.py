"""Turn grouping and selection (DESIGN §6 relevance helpers), and a few single-pass examples."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

import pytest

from tests._support import BareItem as _RolelessMessage
from thrift_fp.thrift import (
    CountingFailed,
    Image,
    Message,
    MalformedItem,
    MessageLike,
    Thought,
    ThriftOptions,
    UnmeasurableContent,
    WorkingSet,
    group_history_into_turns,
    select_naive_turns,
    select_relevant_turns,
    subtract_to_fit,
)
from thrift_fp.thrift._relevance import scaled_relevance_floor, turn_relevance, turn_tokens
from thrift_fp.tokens import EstimatorFailed, UnknownEncoding, register_token_estimator, unregister_token_estimator

AT = datetime(2026, 1, 1, tzinfo=timezone.utc)


def msg(ident: str, text: str, role: str | None = None, minutes: int = 0, ephemeral: bool = False) -> Message:
    return Message(ident, text, AT + timedelta(minutes=minutes), role=role, ephemeral=ephemeral)


def test_turns_start_at_user_messages() -> None:
    history = [msg("a", "x", "assistant"), msg("u1", "x", "user"), msg("t", "x", "tool"),
               msg("n", "x"), msg("u2", "x", "user"), msg("u3", "x", "user")]
    assert [[m.id for m in turn] for turn in group_history_into_turns(history)] == [
        ["a"], ["u1", "t", "n"], ["u2"], ["u3"],
    ]
    assert group_history_into_turns([]) == ()


def test_message_likes_without_a_role_stay_in_the_turn_they_follow() -> None:
    history: list[MessageLike] = [msg("u1", "x", "user"), _RolelessMessage("a", "x", AT),
                                  _RolelessMessage("b", "x", AT), msg("u2", "x", "user"), _RolelessMessage("c", "x", AT)]
    assert [[m.id for m in turn] for turn in group_history_into_turns(history)] == [["u1", "a", "b"], ["u2", "c"]]
    assert [[m.id for m in turn] for turn in group_history_into_turns([_RolelessMessage("a", "x", AT)])] == [["a"]]


def test_floor_constants() -> None:
    assert scaled_relevance_floor(0, 100) == 0.125
    assert scaled_relevance_floor(100, 100) == 0.43
    assert scaled_relevance_floor(10**9, 100) == 0.43
    assert scaled_relevance_floor(-5, 100) == 0.125
    assert scaled_relevance_floor(50, 0) == 0.125
    assert abs(scaled_relevance_floor(50, 100) - (0.125 + 0.305 * 0.25)) < 1e-12


def test_relevance_is_the_share_of_query_words_present() -> None:
    turn = (msg("u", "Deploy the BILLING service to staging", "user"),)
    assert turn_relevance("billing staging rollback", turn).unwrap() == 2 / 3
    assert turn_relevance("a an of", turn).unwrap() == 0.0  # no content words in the query


def test_naive_selection_stops_at_the_first_turn_that_does_not_fit() -> None:
    turns = [(msg("0", "word " * 5),), (msg("1", "word " * 50),), (msg("2", "word " * 5),), (msg("3", "word " * 5),)]
    sizes = turn_tokens(turns).unwrap()
    picked = select_naive_turns(turns, sizes[2] + sizes[3] + sizes[0]).unwrap()
    assert [turn[0].id for turn in picked] == ["2", "3"]  # turn 0 would fit, but 1 stops the walk
    assert [turn[0].id for turn in select_naive_turns(turns, 0).unwrap()] == ["3"]
    assert select_naive_turns([], 100).unwrap() == ()


def test_relevant_selection_tightens_as_history_fills() -> None:
    older = [(msg("0", "invoice billing refund"),), (msg("1", "invoice weather"),)]
    recent = [(msg("2", "lunch"),), (msg("3", "dinner"),)]
    turns = [*older, *recent]
    query = "invoice billing refund policy"  # turn 0 has 3/4, turn 1 has 1/4
    roomy = select_relevant_turns(turns, query, 10**6).unwrap()
    assert [turn[0].id for turn in roomy] == ["0", "1", "2", "3"]  # floor 0.125
    full = select_relevant_turns(turns, query, 1).unwrap()
    assert [turn[0].id for turn in full] == ["0", "2", "3"]  # floor 0.43
    assert [t[0].id for t in select_relevant_turns(turns, query, 1, keep_recent=0).unwrap()] == ["0"]


def test_a_turn_exactly_at_the_floor_is_kept() -> None:
    query = "alpha bravo charlie delta echo foxtrot golf hotel"  # 8 content words
    turns = [(msg("0", "alpha only"),), (msg("1", "nothing relevant"),)]
    # No recent turns kept and a zero budget: floor 0.125 == 1/8, so turn 0 reaches it.
    assert [t[0].id for t in select_relevant_turns(turns, query, 0, keep_recent=0).unwrap()] == ["0"]


def test_relevance_helpers_report_unmeasurable_content() -> None:
    class Opaque:
        pass

    bad = Message.__new__(Message)
    object.__setattr__(bad, "id", "bad")
    object.__setattr__(bad, "content", Opaque())
    object.__setattr__(bad, "created_at", AT)
    assert isinstance(turn_tokens([(bad,)]).failure(), UnmeasurableContent)


def test_ephemeral_messages_go_first_keeping_the_latest() -> None:
    messages = (
        msg("old", "old but kept " * 3, "user", 0),
        msg("e1", "ephemeral one " * 10, "assistant", 1, ephemeral=True),
        msg("e2", "ephemeral two " * 10, "assistant", 2, ephemeral=True),
        msg("new", "newest", "user", 3),
    )
    ws = WorkingSet(messages=messages)
    fitted = subtract_to_fit(ws, 50, None, ThriftOptions(output_reserve=0)).unwrap()
    assert fitted.trace.buckets[7].ids == ("e1",)
    assert [m.id for m in fitted.working_set.messages] == ["old", "e2", "new"]


def test_ephemeral_shedding_stops_once_the_set_fits_to_the_token() -> None:
    def priced(ident: str, minutes: int, ephemeral: bool = False) -> Message:
        return Message(ident, "text", AT + timedelta(minutes=minutes), ephemeral=ephemeral, token_cost=10)

    messages = (priced("old", 0), priced("e1", 1, True), priced("e2", 2, True), priced("e3", 3, True), priced("new", 4))
    # 50 tokens for a budget of 40: shedding e1 leaves exactly 40, which fits; e2 must stay.
    fitted = subtract_to_fit(WorkingSet(messages=messages), 40, None, ThriftOptions(output_reserve=0)).unwrap()
    assert [m.id for m in fitted.working_set.messages] == ["old", "e2", "e3", "new"]
    assert fitted.trace.total_after == 40


def test_prior_turn_thoughts_are_stripped_unless_kept() -> None:
    thoughts = (Thought("a", "x", AT), Thought("b", "y", AT, this_turn=True), Thought("c", "z", AT))
    options = ThriftOptions(keep_thought_ids=frozenset({"c"}))
    fitted = subtract_to_fit(WorkingSet(thoughts=thoughts), 10**6, None, options).unwrap()
    assert [t.id for t in fitted.working_set.thoughts] == ["b", "c"]
    off = subtract_to_fit(WorkingSet(thoughts=thoughts), 10**6, None, ThriftOptions(strip_prior_turn_thoughts=False))
    assert len(off.unwrap().working_set.thoughts) == 3


def test_an_omitted_image_costs_nothing_and_stays() -> None:
    ws = WorkingSet(image=Image("omitted.png", 5000, kept=False))
    fitted = subtract_to_fit(ws, 10).unwrap()
    assert fitted.working_set.image == ws.image
    assert fitted.trace.total_after == 0


BOOM = RuntimeError("no counter today")


class _Loose:
    """A duck-typed item with exactly the attributes given (no dataclass defaults)."""

    def __init__(self, **fields: object) -> None:
        self.__dict__.update(fields)


def _raises(text: str) -> int:
    raise BOOM


@pytest.fixture
def raising_estimator() -> Iterator[str]:
    register_token_estimator("thrift-mutants-raises", _raises).unwrap()
    try:
        yield "thrift-mutants-raises"
    finally:
        unregister_token_estimator("thrift-mutants-raises")


def test_turn_tokens_with_an_unknown_encoding_is_counting_failed() -> None:
    error = turn_tokens([(Message("a", "hello", AT),)], "no-such-encoding").failure()
    assert isinstance(error, CountingFailed)
    assert isinstance(error.error, UnknownEncoding)
    assert error.error.name == "no-such-encoding"
    assert error.message.startswith("token counting failed: unknown encoding 'no-such-encoding'")


def test_turn_tokens_with_a_failing_estimator_is_counting_failed_with_its_cause(raising_estimator: str) -> None:
    error = turn_tokens([(Message("a", "hello", AT),)], raising_estimator).failure()
    assert isinstance(error, CountingFailed)
    assert isinstance(error.error, EstimatorFailed)
    assert error.error.name == raising_estimator
    assert error.cause is BOOM
    assert error.message == (
        "token counting failed: estimator 'thrift-mutants-raises' failed: raised RuntimeError: no counter today"
    )


def test_a_relevance_turn_with_unmeasurable_content_names_the_messages_bucket() -> None:
    odd = _Loose(id="m1", content=object(), created_at=AT)
    error = turn_tokens([(odd,)]).failure()  # type: ignore[list-item]  # misuse on purpose
    assert isinstance(error, UnmeasurableContent)
    assert (error.bucket, error.item) == ("messages", "m1")


class _NoText:
    """A content with neither its own ``__str__`` nor ``__repr__``."""


_NO_TEXT = "_NoText has no string form but object.__str__"
SECOND_TIME = ValueError("gone")


class _OnceText:
    """A content whose text can be read once (sizing the turns) and then raises."""

    def __init__(self) -> None:
        self.reads = 0

    def __str__(self) -> str:
        self.reads += 1
        if self.reads > 1:
            raise SECOND_TIME
        return "alpha beta"


def _older_and_recent(odd: object) -> list[tuple[MessageLike, ...]]:
    return [(msg("0", "alpha words"),), (_Loose(id="odd", content=odd, created_at=AT),), (msg("2", "recent"),)]  # type: ignore[list-item]  # misuse on purpose


def test_selecting_turns_with_unmeasurable_content_is_the_whole_error_value() -> None:
    turns = _older_and_recent(_NoText())
    expected = UnmeasurableContent("messages", "odd", _NO_TEXT)
    assert turn_tokens(turns).failure() == expected
    assert select_relevant_turns(turns, "alpha", 1000, keep_recent=1).failure() == expected
    assert select_naive_turns(turns, 1000).failure() == expected
    assert turn_relevance("alpha", turns[1]).failure() == expected


def test_a_turn_whose_text_fails_when_its_relevance_is_read_is_that_error_value() -> None:
    turns = _older_and_recent(_OnceText())
    error = select_relevant_turns(turns, "alpha", 1000, keep_recent=1).failure()
    assert error == UnmeasurableContent("messages", "odd", "str() raised ValueError: gone", SECOND_TIME)


def test_a_message_without_content_in_a_turn_is_malformed_at_its_position_in_the_turn() -> None:
    turn = (msg("0", "alpha"), _Loose(id="b"))
    expected = MalformedItem("messages", 1, "_Loose", "content", "AttributeError: '_Loose' object has no attribute 'content'")
    assert turn_tokens([turn]).failure() == expected  # type: ignore[list-item]  # misuse on purpose
    assert turn_relevance("alpha", turn).failure() == expected  # type: ignore[arg-type]  # misuse on purpose


def test_selecting_turns_with_an_unknown_encoding_is_counting_failed_wrapping_it() -> None:
    from thrift_fp.tokens import get_encoding

    turns = [(msg("0", "alpha"),), (msg("1", "beta"),), (msg("2", "gamma"),)]
    expected = CountingFailed(get_encoding("no-such-encoding").failure())
    assert select_relevant_turns(turns, "alpha", 1000, keep_recent=1, encoding="no-such-encoding").failure() == expected
    assert select_naive_turns(turns, 1000, encoding="no-such-encoding").failure() == expected


def test_when_every_turn_is_recent_every_turn_is_kept_whatever_its_relevance() -> None:
    turns = [(msg("0", "nothing to do with it"),), (msg("1", "also unrelated"),)]
    assert select_relevant_turns(turns, "alpha", 0, keep_recent=2).unwrap() == tuple(turns)
    assert select_relevant_turns(turns, "alpha", 0, keep_recent=5).unwrap() == tuple(turns)
    # A negative keep keeps no recent turn: each is judged by its relevance.
    assert select_relevant_turns(turns, "alpha", 0, keep_recent=-1).unwrap() == ()
