"""Properties of the upstream turn-selection helpers."""

from __future__ import annotations

from datetime import datetime, timezone

from hypothesis import example, given, strategies as st

from properties.thrift_model import WORDS
from thrift_fp.thrift import Message, Turn, select_naive_turns, select_relevant_turns
from thrift_fp.thrift._relevance import content_words, scaled_relevance_floor, turn_relevance, turn_tokens

AT = datetime(2026, 1, 1, tzinfo=timezone.utc)
VOCABULARY = ["alpha", "beta", "gamma", "delta", "billing", "refund", "the", "of", "x1y2"]

texts = st.lists(st.sampled_from(VOCABULARY), max_size=12).map(" ".join)
turn_lists = st.lists(st.lists(texts, min_size=1, max_size=3), max_size=12).map(
    lambda turns: [tuple(Message(f"{i}.{j}", text, AT) for j, text in enumerate(turn)) for i, turn in enumerate(turns)]
)


@given(st.integers(-100, 10_000), st.integers(0, 5_000), st.integers(0, 5_000))
def test_floor_is_bounded_and_tightens_as_history_fills(older: int, more: int, budget: int) -> None:
    low, high = scaled_relevance_floor(older, budget), scaled_relevance_floor(older + more, budget)
    assert 0.125 <= low <= high <= 0.43
    if budget == 0:
        assert low == high == 0.125


@given(turn_lists, st.integers(0, 120))
def test_naive_keeps_the_longest_fitting_newest_suffix(turns: list[Turn], budget: int) -> None:
    picked = select_naive_turns(turns, budget, encoding=WORDS).unwrap()
    sizes = turn_tokens(turns, WORDS).unwrap()
    kept = len(picked)
    assert tuple(turns[len(turns) - kept :]) == picked
    assert (kept >= 1) == bool(turns)
    if kept > 1:
        assert sum(sizes[len(turns) - kept :]) <= budget
    if 0 < kept < len(turns):
        assert sum(sizes[len(turns) - kept - 1 :]) > budget


# A full history (older tokens > budget, floor 0.43) with an older turn of relevance 1/3.
BETWEEN = [(Message("0", "alpha beta gamma delta", AT),), (Message("1", "beta", AT),), (Message("2", "x", AT),)]


@given(turn_lists, texts, st.integers(0, 120), st.integers(0, 3))
@example(BETWEEN, "alpha refund billing", 1, 2)
def test_relevant_keeps_recent_and_exactly_the_older_turns_at_the_floor(
    turns: list[Turn], query: str, budget: int, keep_recent: int
) -> None:
    picked = select_relevant_turns(turns, query, budget, keep_recent=keep_recent, encoding=WORDS).unwrap()
    recent_start = max(0, len(turns) - keep_recent)
    assert picked[len(picked) - (len(turns) - recent_start) :] == tuple(turns[recent_start:])
    older = turns[:recent_start]
    floor = scaled_relevance_floor(sum(turn_tokens(older, WORDS).unwrap()), budget)
    wanted = content_words(query)
    expected = tuple(
        turn for turn in older
        if (len(wanted & content_words(" ".join(str(m.content) for m in turn))) / len(wanted) if wanted else 0.0) >= floor
    )
    assert picked[: len(picked) - (len(turns) - recent_start)] == expected
    for turn in expected:
        assert turn_relevance(query, turn).unwrap() >= floor
