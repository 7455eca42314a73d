"""The message history a fit carries in its counts: when it is reused, when it is
not, and that it never changes a result or an error."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

from tests._support import BareItem as _Bare
from thrift_fp.thrift import DuplicateId, InvalidItemField, Message, ThriftOptions, WorkingSet, subtract_to_fit
from thrift_fp.thrift import _measure
from thrift_fp.thrift._history import History, reuse_of
from thrift_fp.tokens import TokenCounts, get_encoding, register_token_estimator
from thrift_fp.tokens import _counts
from thrift_fp.tokens._counts import Known, carried, carrying, count_known

AT = datetime(2026, 1, 1, tzinfo=timezone.utc)
OPTIONS = ThriftOptions(output_reserve=0)


def _history(n: int, words: int = 10) -> tuple[Message, ...]:
    return tuple(Message(f"m{i}", f"message {i} " + "w " * words, AT + timedelta(seconds=i)) for i in range(n))


def _fit(messages: tuple[Any, ...], window: int = 10_000, counts: TokenCounts = TokenCounts(), **options: Any) -> Any:
    return subtract_to_fit(WorkingSet(messages=messages), window, options=replace(OPTIONS, **options), counts=counts)


class _Seen:
    """A word-count estimator that records every text it is asked to count."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def __call__(self, text: str) -> int:
        self.texts.append(text)
        return len(text.split())


def _recording(name: str) -> _Seen:
    seen = _Seen()
    register_token_estimator(name, seen).unwrap()
    return seen


def test_an_appended_turn_counts_only_the_new_message() -> None:
    seen = _recording("history-seen")
    first = _fit(_history(5), encoding="history-seen").unwrap()
    assert isinstance(carried(first.counts), History)
    seen.texts.clear()
    grown = (*first.working_set.messages, Message("new", "a new one", AT + timedelta(seconds=9)))
    again = _fit(grown, counts=first.counts, encoding="history-seen").unwrap()
    assert seen.texts == ["a new one"]
    # The system prompt was in the memo; the five shared messages were carried.
    assert again.counts.reused == 6
    assert again == replace(_fit(grown, encoding="history-seen").unwrap(), counts=again.counts)


def test_the_memo_still_holds_the_carried_texts() -> None:
    """A fit of rebuilt (equal, not identical) messages after a carried re-fit tokenizes nothing."""
    seen = _recording("history-memo")
    messages = _history(4)
    first = _fit(messages, encoding="history-memo").unwrap()
    grown = (*messages, Message("new", "more", AT + timedelta(seconds=9)))
    second = _fit(grown, counts=first.counts, encoding="history-memo").unwrap()
    seen.texts.clear()
    rebuilt = tuple(replace(m) for m in grown)
    assert reuse_of(second.counts, rebuilt) is None
    third = _fit(rebuilt, counts=second.counts, encoding="history-memo").unwrap()
    assert seen.texts == []
    assert third.counts.reused == len(third.counts) == 6


def test_another_encoding_object_of_the_same_name_starts_cold() -> None:
    seen = _recording("history-again")
    messages = _history(3)
    first = _fit(messages, encoding="history-again").unwrap()
    seen.texts.clear()
    fresh = _recording("history-again")  # re-registered: a new encoding object under the same name
    _fit((*messages, Message("new", "x", AT + timedelta(seconds=9))), counts=first.counts, encoding="history-again")
    assert len(fresh.texts) == 5  # the system prompt and all four messages
    assert seen.texts == []


def test_an_older_message_appended_to_an_ordered_history_ranks_by_its_time() -> None:
    messages = _history(6)
    first = _fit(messages).unwrap()
    grown = (*messages, Message("old", "message old " + "w " * 10, AT - timedelta(seconds=5)))
    assert reuse_of(first.counts, grown) is not None
    for window in (30, 40, 60):
        warm, cold = _fit(grown, window, first.counts).unwrap(), _fit(grown, window).unwrap()
        assert [m.id for m in warm.working_set.messages] == [m.id for m in cold.working_set.messages]
        assert "old" not in [m.id for m in warm.working_set.messages]


def test_an_edit_in_the_middle_reuses_the_messages_before_it() -> None:
    messages = _history(6)
    first = _fit(messages).unwrap()
    edited = (*messages[:2], replace(messages[2], content="changed"), *messages[3:])
    reuse = reuse_of(first.counts, edited)
    assert reuse is not None and reuse.shared == 2 and reuse.keys == {"m0", "m1"}
    for window in (20, 50, 10_000):
        warm, cold = _fit(edited, window, first.counts).unwrap(), _fit(edited, window).unwrap()
        assert (warm.working_set, warm.trace) == (cold.working_set, cold.trace)


def test_errors_in_the_new_messages_are_the_cold_fits() -> None:
    messages = _history(4)
    first = _fit(messages).unwrap()
    duplicate = (*messages, Message("m1", "again", AT + timedelta(seconds=9)))
    assert _fit(duplicate, counts=first.counts).failure() == DuplicateId("messages", "m1")
    assert _fit(duplicate, counts=first.counts) == _fit(duplicate)

    stray = (*messages, _Bare(7, "x", AT))  # type: ignore[arg-type]  # a non-str id on purpose
    error = _fit(stray, counts=first.counts).failure()
    assert error == InvalidItemField("messages", "messages[4]", "id", 7, "expected a str")
    assert _fit(stray, counts=first.counts) == _fit(stray)


@dataclass(eq=False)
class _Mutable:
    id: str
    content: str
    created_at: datetime


def test_only_exact_messages_are_carried_and_a_mutated_one_is_measured_again() -> None:
    mutable = _Mutable("x", "w " * 10, AT)
    first = _fit((*_history(2), mutable)).unwrap()
    assert carried(first.counts) is None
    mutable.content = "w " * 200
    warm, cold = _fit((*_history(2), mutable), 50, first.counts).unwrap(), _fit((*_history(2), mutable), 50).unwrap()
    assert (warm.working_set, warm.trace) == (cold.working_set, cold.trace)
    # Shared exact messages are still reused when a non-Message follows them.
    messages = _history(3)
    second = _fit(messages).unwrap()
    mixed = (*messages, _Mutable("y", "w", AT + timedelta(seconds=9)))
    assert reuse_of(second.counts, mixed) is not None
    assert _fit(mixed, 20, second.counts).unwrap().trace == _fit(mixed, 20).unwrap().trace
    assert carried(_fit(mixed, counts=second.counts).unwrap().counts) is None


class _Id(str):
    """A str subclass may compute its hash and equality: never carried."""


def test_a_message_with_a_str_subclass_id_is_not_carried() -> None:
    messages = (*_history(2), Message(_Id("odd"), "w", AT + timedelta(seconds=5)))
    first = _fit(messages).unwrap()
    assert carried(first.counts) is None
    assert _fit(messages, 20, first.counts).unwrap().trace == _fit(messages, 20).unwrap().trace


def test_a_history_past_the_counts_bounds_is_not_carried(monkeypatch: pytest.MonkeyPatch) -> None:
    long = (Message("long", "w " * (_counts.INLINE_CHARS // 2 + 1), AT),)
    assert carried(_fit(long).unwrap().counts) is None
    assert carried(_fit(_history(3)).unwrap().counts) is not None
    monkeypatch.setattr(_measure, "MAX_RETAINED_CHARS", 40)
    assert carried(_fit(_history(3)).unwrap().counts) is None


def test_a_fit_of_the_same_messages_again_reuses_every_one() -> None:
    messages = _history(5)
    first = _fit(messages).unwrap()
    reuse = reuse_of(first.counts, messages)
    assert reuse is not None and reuse.whole() and reuse.shared == 5
    again = _fit(messages, 40, first.counts).unwrap()
    assert (again.working_set, again.trace) == (_fit(messages, 40).unwrap().working_set, _fit(messages, 40).unwrap().trace)
    assert isinstance(carried(again.counts), History)


def test_the_carry_is_not_part_of_the_counts_value() -> None:
    counts = TokenCounts()
    assert carrying(counts, "state") == counts
    assert "state" not in repr(carrying(counts, "state"))
    assert carried(counts) is None


def test_count_known_keeps_the_bounds(monkeypatch: pytest.MonkeyPatch) -> None:
    enc = get_encoding("cl100k_base").unwrap()
    monkeypatch.setattr(_counts, "MAX_ENTRIES", 3)
    values, memo = count_known(TokenCounts(), enc, ("c", "d", "e"), known=Known(("a", "b"), (1, 1), 2)).unwrap()
    assert values == (1, 1, 1) and len(memo) == 3 and memo.reused == 2
    monkeypatch.setattr(_counts, "MAX_ENTRIES", 250_000)
    monkeypatch.setattr(_counts, "MAX_RETAINED_CHARS", 5)
    monkeypatch.setattr(_counts, "INLINE_CHARS", 1)
    # Four known characters leave room for one more referenced text; the next is a digest.
    _, memo = count_known(TokenCounts(), enc, ("x", "y"), known=Known(("abcd",), (2,), 4)).unwrap()
    keys = set(memo._memo)
    assert "abcd" in keys and "x" in keys and "y" not in keys and len(keys) == 3
    # No texts at all, only known ones past INLINE_CHARS in total: nothing to digest, no error.
    assert count_known(TokenCounts(), enc, (), known=Known(("abcd",), (2,), 4)).unwrap()[0] == ()


# Pinned by mutation testing of the carried history (VERIFICATION.md, "thrift: the carried history").


def test_a_message_between_the_last_two_shared_ones_ranks_by_its_time() -> None:
    """Appended older than the newest shared message but newer than the one before it: the
    history is out of order, so ranks are times, and the newest message is still the newest."""
    messages = tuple(Message(f"m{i}", "w " * 10, AT + timedelta(seconds=10 * i)) for i in range(3))
    first = _fit(messages).unwrap()
    grown = (*messages, Message("x", "w " * 10, AT + timedelta(seconds=15)))
    for window in (5, 12, 25):
        warm, cold = _fit(grown, window, first.counts).unwrap(), _fit(grown, window).unwrap()
        assert [m.id for m in warm.working_set.messages] == [m.id for m in cold.working_set.messages]
    assert [m.id for m in _fit(grown, 12, first.counts).unwrap().working_set.messages] == ["m2"]


def test_a_shared_prefix_takes_the_carried_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """The shared messages' texts reach the count as known ones, not as texts to look up."""
    seen: list[Known] = []

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.append(kwargs["known"])
        return count_known(*args, **kwargs)

    messages = _history(4)
    first = _fit(messages).unwrap()
    monkeypatch.setattr(_measure, "count_known", spy)
    _fit((*messages, Message("new", "x", AT + timedelta(seconds=9))), counts=first.counts)
    assert seen[-1].texts == tuple(m.content for m in messages)
    history = carried(first.counts)
    assert isinstance(history, History) and seen[-1].counts == history.counts
    assert seen[-1].chars == sum(len(m.content) for m in messages)


def test_the_carried_history_counts_every_message_once() -> None:
    messages = _history(4)
    first = _fit(messages).unwrap()
    grown = (*messages, Message("new", "one two", AT + timedelta(seconds=9)))
    history = carried(_fit(grown, counts=first.counts).unwrap().counts)
    assert isinstance(history, History)
    assert history.chars == sum(len(m.content) for m in grown)
    assert history.texts == tuple(m.content for m in grown)
    assert history.keys == {m.id for m in grown}
    assert history.counts == get_encoding("cl100k_base").unwrap().count_many([m.content for m in grown]).unwrap()
    assert history.tokens == sum(history.counts)


def test_texts_at_the_counts_bounds_are_carried(monkeypatch: pytest.MonkeyPatch) -> None:
    """At most INLINE_CHARS per text and MAX_RETAINED_CHARS in all: the bounds themselves are in."""
    exactly = (Message("edge", "w" * _counts.INLINE_CHARS, AT),)
    assert isinstance(carried(_fit(exactly).unwrap().counts), History)
    messages = _history(3)
    monkeypatch.setattr(_measure, "MAX_RETAINED_CHARS", sum(len(m.content) for m in messages))
    assert isinstance(carried(_fit(messages).unwrap().counts), History)


def test_message_likes_without_the_optional_attributes_take_the_bulk_path() -> None:
    """A missing flag or pair id reads as its default in the C-level pass, not as a fault that
    sends the bucket to the per-item loop (the same result, only slower)."""
    bare = tuple(_Bare(f"b{i}", "hi", AT + timedelta(seconds=i)) for i in range(3))
    assert _measure._Collector([])._bulk_messages(bare) is True
    assert _measure._Collector([])._message_columns(bare) == (
        [m.created_at for m in bare], ["hi"] * 3, ["b0", "b1", "b2"], [None] * 3, [None] * 3, [None] * 3, None,
    )
