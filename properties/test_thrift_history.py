"""Carried message histories: an agent's turns, each fitted with the previous
turn's counts, give exactly the cold fit at every turn, whatever the turn did to the history.

Each turn applies drawn edits to the previous turn's messages: append (in or out of time order,
paired, summary or ephemeral), edit one message (a new object), truncate, rebuild every object
(equal, not identical), append a mutable message-like object or mutate those in place, append a
duplicate id, a naive timestamp or non-str content, and switch the encoding. The counts handed
from turn to turn carry the fit's message history; reusing it must never change a result, and
an error value must be the cold fit's.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta, timezone

from hypothesis import given, settings, strategies as st
from returns.result import Failure, Result

from properties.thrift_model import ORDERS, WORDS, Case, cases
from thrift_fp.thrift import Fitted, Message, ShedOrder, ThriftError, subtract_to_fit
from thrift_fp.thrift._history import reuse_of
from thrift_fp.tokens import TokenCounts, Tokenizable

# Appends weigh most: they are what an agent does every turn, and what the carried history serves.
EDITS = (
    "append", "append", "append", "append-older", "append-older", "append-paired", "append-summary", "append-ephemeral",
    "edit", "truncate", "rebuild", "foreign", "mutate", "duplicate", "naive", "tokenizable",
    "encoding", "append-priced", "append-priced-echo",
)


@dataclass(eq=False)
class Mutable:
    """A message-like object the caller changes in place between turns (no identity reuse)."""

    id: str
    content: object
    created_at: datetime


def _newest(messages: tuple[object, ...]) -> datetime:
    stamps = [getattr(m, "created_at", None) for m in messages]
    aware = [stamp for stamp in stamps if isinstance(stamp, datetime) and stamp.tzinfo is not None]
    return max(aware) if aware else datetime(2026, 1, 1, tzinfo=timezone.utc)


def _edit(messages: tuple[object, ...], edit: str, turn: int, at: int, words: int) -> tuple[object, ...]:
    name = f"n{turn}-{at}-{edit}"
    text = "w " * words
    newest = _newest(messages)
    if edit == "append":
        return (*messages, Message(name, text, newest + timedelta(seconds=words % 3), role="user"))
    if edit == "append-older":
        return (*messages, Message(name, text, newest - timedelta(seconds=1 + words)))
    if edit == "append-paired":
        return (*messages, Message(name, text, newest, pair_id=f"p{words % 8}"))
    if edit == "append-summary":
        return (*messages, Message(name, text, newest, summary=True))
    if edit == "append-priced":
        return (*messages, Message(name, text, newest, token_cost=words))
    if edit == "append-priced-echo" and messages:
        # A priced message whose text a counted one holds: its cost must never stand for that count.
        echoed = getattr(messages[at % len(messages)], "content")
        return (*messages, Message(name, echoed if isinstance(echoed, str) else text, newest, token_cost=words % 2))
    if edit == "append-ephemeral":
        return (*messages, Message(name, text, newest, ephemeral=True))
    if edit == "edit" and messages:
        index = at % len(messages)
        old = messages[index]
        new = replace(old, content=f"{old.content} w") if isinstance(old, Message) else old
        return (*messages[:index], new, *messages[index + 1:])
    if edit == "truncate":
        return messages[: at % (len(messages) + 1)]
    if edit == "rebuild":
        return tuple(replace(m) if isinstance(m, Message) else m for m in messages)
    if edit == "foreign":
        return (*messages, Mutable(name, text, newest))
    if edit == "mutate":
        for m in messages:
            if isinstance(m, Mutable):
                m.content = f"{m.content} w w"
        return messages
    if edit == "duplicate" and messages:
        return (*messages, Message(str(getattr(messages[at % len(messages)], "id")), text, newest))
    if edit == "naive":
        return (*messages, Message(name, text, newest.replace(tzinfo=None)))
    if edit == "tokenizable":
        return (*messages, Mutable(name, Tokenizable(text), newest))
    return messages


def _fit(case: Case, encoding: str, counts: TokenCounts) -> Result[Fitted, ThriftError]:
    return subtract_to_fit(
        case.ws, case.window, case.relevant, replace(case.options, encoding=encoding), counts=counts
    )


def _same(warm: Result[Fitted, ThriftError], cold: Result[Fitted, ThriftError]) -> None:
    if isinstance(cold, Failure):
        assert warm == cold
        return
    one, two = warm.unwrap(), cold.unwrap()
    assert one.working_set == two.working_set
    assert one.trace == two.trace
    assert len(one.counts) == len(two.counts)


# A turn: its edits, and its window as a percentage of what the turn's set measures.
turns = st.lists(
    st.tuples(
        st.lists(st.tuples(st.sampled_from(EDITS), st.integers(0, 50), st.integers(0, 12)), min_size=1, max_size=4),
        st.integers(0, 110),
    ),
    min_size=1, max_size=4,
)


def _in_time_order(case: Case) -> Case:
    """The case with its messages restamped oldest first (the usual agent history)."""
    base = _newest(case.ws.messages)
    messages = tuple(
        replace(m, created_at=base + timedelta(seconds=index // 2)) if isinstance(m, Message) else m
        for index, m in enumerate(case.ws.messages)
    )
    return replace(case, ws=replace(case.ws, messages=messages))


@settings(max_examples=150)
@given(
    cases(most=20), turns, st.sampled_from((WORDS, "cl100k_base")), st.sampled_from((True, True, False)),
    st.sampled_from(ORDERS),
)
def test_every_turn_refitted_with_the_previous_counts_is_the_cold_fit(
    case: Case, edits: list[tuple[list[tuple[str, int, int]], int]], first: str, ordered: bool, order: ShedOrder
) -> None:
    """Turn after turn, under every shed order, a fit with the previous turn's counts (carrying
    its history) keeps what a cold fit keeps, with the same trace, or fails with its error."""
    case = (_in_time_order(case) if ordered else case).under(order)
    encoding = first
    fitted = _fit(case, encoding, TokenCounts())
    _same(fitted, _fit(case, encoding, TokenCounts()))
    counts = fitted.unwrap().counts if not isinstance(fitted, Failure) else TokenCounts()
    for turn, (turn_edits, percent) in enumerate(edits):
        messages: tuple[object, ...] = case.ws.messages
        for at, (edit, position, words) in enumerate(turn_edits):
            if edit == "encoding":
                encoding = "cl100k_base" if encoding == WORDS else WORDS
            messages = _edit(messages, edit, turn, at + position, words)
        case = replace(case, ws=replace(case.ws, messages=messages))  # type: ignore[arg-type] # message-likes
        measured = _fit(replace(case, window=10**9), encoding, TokenCounts())
        if not isinstance(measured, Failure):
            case = replace(case, window=measured.unwrap().trace.total_before * percent // 100)
        warm = _fit(case, encoding, counts)
        _same(warm, _fit(case, encoding, TokenCounts()))
        if not isinstance(warm, Failure):
            counts = warm.unwrap().counts


@settings(max_examples=40)
@given(cases(most=20), st.integers(0, 12))
def test_an_appended_turn_reuses_the_whole_history(case: Case, words: int) -> None:
    """The property above is not vacuous: appending to a history of `Message` objects shares
    every previous message with the next fit (priced messages are never counted, so a history of
    them carries nothing: they are made counted ones here)."""
    counted = tuple(replace(m, token_cost=None) if isinstance(m, Message) else m for m in case.ws.messages)
    case = replace(case, ws=replace(case.ws, messages=counted))
    fitted = case.fit()
    appended = _edit(case.ws.messages, "append", 0, 0, words)
    reuse = reuse_of(fitted.counts, appended)
    if case.ws.messages:
        assert reuse is not None and reuse.shared == len(case.ws.messages)
    else:
        assert reuse is None
