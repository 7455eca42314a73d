"""Upstream turn selection: which past turns of a conversation are worth sending at all.

A *turn* starts at each message whose ``role`` is ``"user"``; messages before the first user
message form the first turn. A turn's tokens are the sum of its messages' content counts.
*Content words* are the matches of ``[a-z][a-z0-9]{3,}`` in lower-cased text. The *relevance* of a
turn to a query is the fraction of the query's distinct content words that occur among the turn's
content words (0 when the query has none).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from typing import Final

from returns.result import Failure, Result, Success

from thrift_fp._args import Each, EachTuple
from thrift_fp.thrift._errors import CountingFailed, ThriftError
from thrift_fp.thrift._fields import content_text
from thrift_fp.thrift._shape_check import first_malformed
from thrift_fp.thrift._shapes import MessageLike
from thrift_fp.tokens._encoding import get_encoding

# EachTuple / Each: every message is read through _texts, which turns a malformed one into an
# error value; beartype would check one sampled message only.
Turn = EachTuple[MessageLike]
"""A turn of a conversation: a user message and every message up to the next (`group_history_into_turns`)."""

FLOOR_MIN: Final = 0.125
FLOOR_MAX: Final = 0.43
_WORD: Final = re.compile(r"[a-z][a-z0-9]{3,}")


def group_history_into_turns(messages: Each[MessageLike]) -> tuple[Turn, ...]:
    """Split chronological messages into turns, each starting at a user message.

    >>> from datetime import datetime, timezone
    >>> from thrift_fp.thrift._shapes import Message
    >>> at = datetime(2026, 1, 1, tzinfo=timezone.utc)
    >>> history = [Message("s", "hi", at, role="system"), Message("u1", "q", at, role="user"),
    ...            Message("a1", "a", at, role="assistant"), Message("u2", "q2", at, role="user")]
    >>> [[m.id for m in turn] for turn in group_history_into_turns(history)]
    [['s'], ['u1', 'a1'], ['u2']]
    """
    turns: list[list[MessageLike]] = []
    for message in messages:
        if not turns or getattr(message, "role", None) == "user":
            turns.append([])
        turns[-1].append(message)
    return tuple(tuple(turn) for turn in turns)


def content_words(text: str) -> frozenset[str]:
    """Distinct content words of ``text``.

    >>> sorted(content_words("The Sky is BLUE, isn't it? x1y2"))
    ['blue', 'x1y2']
    """
    return frozenset(_WORD.findall(text.lower()))


def turn_relevance(query: str, turn: Turn) -> Result[float, ThriftError]:
    """Fraction of the query's content words present in the turn.

    >>> from datetime import datetime, timezone
    >>> from thrift_fp.thrift._shapes import Message
    >>> turn = (Message("u", "tell me about tiktoken vocabularies", datetime(2026, 1, 1, tzinfo=timezone.utc)),)
    >>> turn_relevance("tiktoken offline vocabularies", turn).unwrap()
    0.6666666666666666
    """
    wanted = content_words(query)
    texts = _texts(turn)
    if isinstance(texts, Failure):
        return Failure(texts.failure())
    if not wanted:
        return Success(0.0)
    present = content_words("\n".join(texts.unwrap()))
    return Success(len(wanted & present) / len(wanted))


def scaled_relevance_floor(older_tokens: int, history_budget: int) -> float:
    """``0.125 + (0.43 - 0.125) * clamp(older_tokens / history_budget, 0, 1) ** 2`` (u = 0 when the
    budget is 0): the fuller the history, the more relevant an older turn must be.

    >>> scaled_relevance_floor(0, 1000), round(scaled_relevance_floor(500, 1000), 5), scaled_relevance_floor(5, 0)
    (0.125, 0.20125, 0.125)
    >>> scaled_relevance_floor(4000, 1000)
    0.43

    Any ints work, however large: the clamp is decided on the integers before dividing (a plain
    ``10**400 / 3`` overflows a float).

    >>> scaled_relevance_floor(10**400, 3), scaled_relevance_floor(3, 10**400), scaled_relevance_floor(-10**400, 5)
    (0.43, 0.125, 0.125)
    """
    if history_budget <= 0 or older_tokens <= 0:
        fill = 0.0
    elif older_tokens >= history_budget:
        fill = 1.0
    else:
        # 0 < older < budget: the quotient is in (0, 1), and int / int rounds it correctly at any size.
        fill = older_tokens / history_budget
    return FLOOR_MIN + (FLOOR_MAX - FLOOR_MIN) * fill**2


def _texts(turn: Turn) -> Result[tuple[str, ...], ThriftError]:
    texts: list[str] = []
    for index, message in enumerate(turn):
        malformed = first_malformed("messages", (message,), ("id", "content"))
        if malformed is not None:
            return Failure(dataclasses.replace(malformed, index=index))
        text = content_text("messages", message.id, message.content)
        if isinstance(text, Failure):
            return Failure(text.failure())
        texts.append(text.unwrap())
    return Success(tuple(texts))


def turn_tokens(turns: Each[Turn], encoding: str = "cl100k_base") -> Result[tuple[int, ...], ThriftError]:
    """Each turn's tokens (the sum of its messages' content counts), counted in one batch.

    >>> from datetime import datetime, timezone
    >>> from thrift_fp.thrift._shapes import Message
    >>> at = datetime(2026, 1, 1, tzinfo=timezone.utc)
    >>> turn_tokens([(Message("a", "hello world", at), Message("b", "hello", at))]).unwrap()
    (3,)
    """
    texts: list[tuple[str, ...]] = []
    for turn in turns:
        measured = _texts(turn)
        if isinstance(measured, Failure):
            return Failure(measured.failure())
        texts.append(measured.unwrap())
    resolved = get_encoding(encoding)
    if isinstance(resolved, Failure):
        return Failure(CountingFailed(resolved.failure()))
    counted = resolved.unwrap().count_many([text for turn in texts for text in turn])
    if isinstance(counted, Failure):
        return Failure(CountingFailed(counted.failure()))
    counts = iter(counted.unwrap())
    return Success(tuple(sum(next(counts) for _ in turn) for turn in texts))


def select_naive_turns(
    turns: Sequence[Turn], history_budget: int, *, encoding: str = "cl100k_base"
) -> Result[tuple[Turn, ...], ThriftError]:
    """Newest to oldest, stop at the first turn that would exceed the budget; the newest turn is
    always kept. Chronological order.

    >>> from datetime import datetime, timezone
    >>> from thrift_fp.thrift._shapes import Message
    >>> at = datetime(2026, 1, 1, tzinfo=timezone.utc)
    >>> turns = [(Message(str(i), "word " * 10, at),) for i in range(4)]
    >>> [turn[0].id for turn in select_naive_turns(turns, 25).unwrap()]
    ['2', '3']
    >>> [turn[0].id for turn in select_naive_turns(turns, 0).unwrap()]
    ['3']
    """
    return turn_tokens(turns, encoding).map(lambda sizes: tuple(turns[len(turns) - _newest_fitting(sizes, history_budget) :]))


def _newest_fitting(sizes: Sequence[int], history_budget: int) -> int:
    """How many newest turns fit, walking back from the newest (always at least one)."""
    kept = used = 0
    for size in reversed(sizes):
        if kept and used + size > history_budget:
            break
        used += size
        kept += 1
    return kept


def select_relevant_turns(
    turns: Sequence[Turn],
    query: str,
    history_budget: int,
    *,
    keep_recent: int = 2,
    encoding: str = "cl100k_base",
) -> Result[tuple[Turn, ...], ThriftError]:
    """Keep the ``keep_recent`` newest turns, and each older turn whose `turn_relevance` to ``query``
    reaches ``scaled_relevance_floor(older_tokens, history_budget)``, where ``older_tokens`` is the
    total of all turns older than the recent ones. Chronological order.

    >>> from datetime import datetime, timezone
    >>> from thrift_fp.thrift._shapes import Message
    >>> at = datetime(2026, 1, 1, tzinfo=timezone.utc)
    >>> texts = ["tiktoken vocabulary offline", "weather today", "lunch plans", "more lunch"]
    >>> turns = [(Message(str(i), text, at),) for i, text in enumerate(texts)]
    >>> [turn[0].id for turn in select_relevant_turns(turns, "offline tiktoken", 1000).unwrap()]
    ['0', '2', '3']
    """
    recent_start = max(0, len(turns) - max(0, keep_recent))
    older = turns[:recent_start]
    sizes = turn_tokens(older, encoding)
    if isinstance(sizes, Failure):
        return Failure(sizes.failure())
    floor = scaled_relevance_floor(sum(sizes.unwrap()), history_budget)
    kept: list[Turn] = []
    for turn in older:
        relevance = turn_relevance(query, turn)
        if isinstance(relevance, Failure):
            return Failure(relevance.failure())
        if relevance.unwrap() >= floor:
            kept.append(turn)
    return Success((*kept, *turns[recent_start:]))
