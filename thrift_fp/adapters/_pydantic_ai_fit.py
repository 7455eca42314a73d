"""Pricing read messages and fitting their rows with the core; the count carry of an agent loop.

The request-wide cost is `REPLY_PRIMING` plus, when there are instructions in force, one part's
framing and their tokens: never shed, since Pydantic AI sends them with whatever history it gets.
Every row enters the core as a `Message` with its ``token_cost`` (the core never re-tokenizes it),
ordered by input position; the core sheds the oldest unpinned rows first, groups whole (a
free empty row at the end takes the place the core never sheds, so pins are the plan's alone).

`TextCounts` carries the token counts of one fit's texts to the next, keyed by the text itself
(an immutable ``str``, so a count can never go stale): a step of an agent loop re-reads its
messages but tokenizes only the texts it has not seen.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Final

from returns.result import Failure, Result, Success

from thrift_fp.adapters._pydantic_ai_plan import Plan
from thrift_fp.adapters._pydantic_ai_read import TOKENS_PER_PART, Half, Read
from thrift_fp.thrift import Message, ThriftOptions, ThriftTrace, WorkingSet, subtract_to_fit
from thrift_fp.thrift._errors import ThriftError
from thrift_fp.tokens import TokenEncoding
from thrift_fp.tokens._errors import TokenError

REPLY_PRIMING: Final = 3
_AGE: Final = datetime(1970, 1, 1, tzinfo=timezone.utc)
_REQUEST_ID: Final = "request"
_END_ID: Final = "end"


class TextCounts:
    """Token counts of the texts of the previous fit (one encoding), shared by a processor's calls.

    >>> from thrift_fp.tokens import get_encoding
    >>> memo, enc = TextCounts(), get_encoding("o200k_base").unwrap()
    >>> memo.count(["hello world", "hi"], enc).unwrap(), memo.count(["hi"], enc).unwrap(), memo.known
    ((2, 1), (1,), 1)
    """

    __slots__ = ("_lock", "_name", "_table", "known")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._name: str | None = None
        self._table: dict[str, int] = {}
        self.known = 0

    def count(self, texts: Sequence[str], enc: TokenEncoding) -> Result[tuple[int, ...], TokenError]:
        """Counts of ``texts``; only the texts the previous call did not count are tokenized."""
        with self._lock:
            table = self._table if self._name == enc.name else {}
        missing = [text for text in dict.fromkeys(texts) if text not in table]
        counted = enc.count_many(missing) if missing else Success(())
        if isinstance(counted, Failure):
            return Failure(counted.failure())
        fresh = dict(zip(missing, counted.unwrap(), strict=True))
        counts = tuple(table[text] if text in table else fresh[text] for text in texts)
        with self._lock:
            self._name = enc.name
            self._table = dict(zip(texts, counts, strict=True))
            self.known = len(texts) - len(missing)
        return Success(counts)


def price(
    reads: Sequence[Read], instructions: str | None, enc: TokenEncoding, memo: TextCounts | None
) -> Result[tuple[tuple[tuple[int, int], ...], int], TokenError]:
    """Each message's (system, rest) tokens, and the request-wide tokens.

    >>> from pydantic_ai.messages import ModelRequest, UserPromptPart
    >>> from thrift_fp.adapters._pydantic_ai_read import read_message
    >>> from thrift_fp.tokens import get_encoding
    >>> read = read_message(0, ModelRequest([UserPromptPart("hello world")]), None)
    >>> price([read], "Be brief.", get_encoding("o200k_base").unwrap(), None).unwrap()
    (((0, 5),), 9)
    """
    texts: list[str] = []
    for read in reads:
        texts += read.system.texts
        texts += read.rest.texts
    if instructions is not None:
        texts.append(instructions)
    counted = memo.count(texts, enc) if memo is not None else enc.count_many(texts)
    if isinstance(counted, Failure):
        return Failure(counted.failure())
    counts = counted.unwrap()
    at = 0

    def half(part: Half) -> int:
        nonlocal at
        end = at + len(part.texts)
        total = part.fixed + sum(counts[at:end])
        at = end
        return total

    prices = tuple((half(read.system), half(read.rest)) for read in reads)
    fixed = REPLY_PRIMING + (TOKENS_PER_PART + counts[-1] if instructions is not None else 0)
    return Success((prices, fixed))


@dataclass(frozen=True, slots=True)
class CoreFit:
    """The rows the core kept and its trace."""

    kept: frozenset[int]
    trace: ThriftTrace


def fit_rows(
    plan: Plan, fixed: int, context_window: int | float, output_reserve: int | float | None, reserve_fraction: float,
    encoding: str,
) -> Result[CoreFit, ThriftError]:
    """Fit the plan's rows under the budget the caller chose.

    >>> from thrift_fp.adapters._pydantic_ai_plan import Row
    >>> plan = Plan((Row(0, "whole", 50, False, None), Row(1, "whole", 30, True, None)), (None, None), (0, 1))
    >>> done = fit_rows(plan, 3, 100, 40, 0.35, "o200k_base").unwrap()
    >>> sorted(done.kept), done.trace.total_after
    ([1], 33)
    """
    ids = [_row_id(row.message, row.half) for row in plan.rows]
    messages = [Message(_REQUEST_ID, "", _AGE, summary=True, token_cost=fixed)]
    messages += [
        Message(ids[at], "", _AGE, summary=row.pinned, pair_id=None if row.group is None else ids[row.group],
                token_cost=row.tokens)
        for at, row in enumerate(plan.rows)
    ]
    # The core never sheds the newest unpinned message; pins are the plan's to decide, so a free
    # empty row takes that place.
    messages.append(Message(_END_ID, "", _AGE, token_cost=0))
    options = ThriftOptions(output_reserve, reserve_fraction, encoding=encoding)
    fitted = subtract_to_fit(WorkingSet(messages=tuple(messages)), context_window, None, options, encoding=encoding)
    if isinstance(fitted, Failure):
        return Failure(fitted.failure())
    position = {row_id: at for at, row_id in enumerate(ids)}
    kept = frozenset(position[message.id] for message in fitted.unwrap().working_set.messages if message.id in position)
    return Success(CoreFit(kept, fitted.unwrap().trace))


def _row_id(message: int, half: str) -> str:
    return f"message[{message}]" if half != "system" else f"message[{message}].system"

