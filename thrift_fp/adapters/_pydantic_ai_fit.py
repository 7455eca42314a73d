"""Pricing read messages, and the counts a history processor carries from one step to the next.

The request-wide cost (charged whatever is shed, never shed itself) is `REPLY_PRIMING`, every
``SystemPromptPart`` (framing and text), and the instructions in force: one part's framing and
their tokens, once, since Pydantic AI sends them with whatever history it gets. A message's row
costs the rest of its parts.

`TextCounts` carries the token counts of one fit's texts to the next, keyed by the text itself
(an immutable ``str``, so a count never goes stale, whatever happened to the message holding it),
and the processor's checked counting choice: an agent loop's step re-reads its messages but
tokenizes only the texts it has not seen.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Final

from returns.result import Failure, Result, Success

from thrift_fp.adapters._core_args import Counting, checked_counting
from thrift_fp.adapters._core_errors import AdapterError
from thrift_fp.adapters._pydantic_ai_read import TOKENS_PER_PART, Half, MediaPricer, Mispriced, Misread, Read, read_message

REPLY_PRIMING: Final = 3
DEFAULT_ENCODING: Final = "o200k_base"


class TextCounts:
    """What a processor carries between its calls: its counting choice, checked once; each message
    it read last (by identity, re-read when the message, its parts list, or any part's fields were
    replaced); and the token counts of its previous fit's texts.

    >>> memo = TextCounts()
    >>> counting = memo.counting(None, "o200k_base", None).unwrap()
    >>> memo.count(["hello world", "hi"], counting).unwrap(), memo.count(["hi"], counting).unwrap(), memo.known
    ((2, 1), (1,), 1)
    """

    __slots__ = ("_choice", "_counting", "_lock", "_owner", "_prices", "_reads", "_table", "known")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._choice: tuple[object, object, object] | None = None
        self._counting: Counting | None = None
        self._owner: Counting | None = None
        self._table: dict[str, int] = {}
        self._reads: dict[int, tuple[object, tuple[object, ...], object, Read]] = {}
        self._prices: dict[int, tuple[Read, int, int]] = {}
        self.known = 0

    def counting(self, model: object, encoding: object, token_counter: object) -> Result[Counting, AdapterError]:
        """The checked counting choice (made once while the choice stays the same objects)."""
        with self._lock:
            choice, made = self._choice, self._counting
        if choice is not None and made is not None and all(a is b for a, b in zip(choice, (model, encoding, token_counter))):
            return Success(made)
        checked = checked_counting(model, encoding, token_counter, DEFAULT_ENCODING)
        if isinstance(checked, Success):
            with self._lock:
                self._choice, self._counting = (model, encoding, token_counter), checked.unwrap()
        return checked

    def read_all(self, messages: Sequence[object], media_tokens: MediaPricer | None) -> tuple[Read, ...] | Misread | Mispriced:
        """Every message read, reusing the previous call's reading of an unchanged message."""
        with self._lock:
            previous = self._reads
        carried: dict[int, tuple[object, tuple[object, ...], object, Read]] = {}
        reads: list[Read] = []
        get = previous.get
        append = reads.append
        for index, message in enumerate(messages):
            shape = _shape(message)
            key = id(message)
            seen = get(key)
            if seen is not None and seen[0] is message and seen[2] is media_tokens and _same(seen[1], shape):
                read = seen[3]
            else:
                fresh = read_message(index, message, media_tokens)
                if not isinstance(fresh, Read):
                    return fresh
                read = fresh
            carried[key] = (message, shape, media_tokens, read)
            append(read)
        with self._lock:
            self._reads = carried
        return tuple(reads)

    def count(self, texts: Sequence[str], counting: Counting) -> Result[tuple[int, ...], AdapterError]:
        """Counts of ``texts``; only the texts the previous call did not count are tokenized."""
        with self._lock:
            table = self._table if self._owner is counting else {}
        missing = [text for text in dict.fromkeys(texts) if text not in table]
        counted = counting.count_many(missing) if missing else Success(())
        if isinstance(counted, Failure):
            return Failure(counted.failure())
        fresh = dict(zip(missing, counted.unwrap(), strict=True))
        counts = tuple(table[text] if text in table else fresh[text] for text in texts)
        with self._lock:
            self._owner = counting
            self._table = dict(zip(texts, counts, strict=True))
            self.known = len(texts) - len(missing)
        return Success(counts)

    def priced(self, reads: Sequence[Read], counting: Counting) -> tuple[dict[int, tuple[int, int]], dict[int, tuple[Read, int, int]]]:
        """The (system, rest) tokens of the reads priced by the previous call with ``counting``."""
        with self._lock:
            if self._owner is not counting:
                return {}, {}
            previous = self._prices
        known = {}
        for at, read in enumerate(reads):
            seen = previous.get(id(read))
            if seen is not None and seen[0] is read:
                known[at] = (seen[1], seen[2])
        return known, previous

    def keep_prices(self, reads: Sequence[Read], prices: Sequence[tuple[int, int]]) -> None:
        """Remember this call's prices of its reads."""
        with self._lock:
            self._prices = {id(read): (read, system, rest) for read, (system, rest) in zip(reads, prices, strict=True)}


def _same(before: tuple[object, ...], now: tuple[object, ...]) -> bool:
    # Identity decides for unchanged fields; a replaced field compares by value, and a value
    # that cannot compare (a hostile __eq__, nesting past the recursion limit) counts as changed.
    try:
        return bool(before == now)
    except Exception:  # noqa: BLE001 - any failure to compare means: read the message again
        return False


def _shape(message: object) -> tuple[object, ...]:
    """What a message's reading depends on, compared element by element (identity first)."""
    parts = getattr(message, "parts", None)
    if not isinstance(parts, list | tuple):
        return (type(message), parts, getattr(message, "instructions", None))
    return (
        type(message), parts, getattr(message, "instructions", None), len(parts),
        *[tuple(fields.values()) if isinstance(fields := getattr(part, "__dict__", None), dict) else part
          for part in parts],
    )


def price(
    reads: Sequence[Read], instructions: str | None, counting: Counting, memo: TextCounts | None
) -> Result[tuple[tuple[int, ...], int], AdapterError]:
    """Each message's row tokens (its parts but the system ones), and the request-wide tokens.

    >>> from pydantic_ai.messages import ModelRequest, SystemPromptPart, UserPromptPart
    >>> from thrift_fp.adapters._pydantic_ai_read import read_message
    >>> read = read_message(0, ModelRequest([SystemPromptPart("Be kind."), UserPromptPart("hello world")]), None)
    >>> price([read], "Be brief.", checked_counting(None, "o200k_base", None).unwrap(), None).unwrap()
    ((5,), 15)
    """
    known: dict[int, tuple[int, int]] = {}
    if memo is not None:
        known, _ = memo.priced(reads, counting)
    texts: list[str] = []
    for at, read in enumerate(reads):
        if at not in known:
            texts += read.system.texts
            texts += read.rest.texts
    if instructions is not None:
        texts.append(instructions)
    counted = memo.count(texts, counting) if memo is not None else counting.count_many(texts)
    if isinstance(counted, Failure):
        return Failure(counted.failure())
    counts = counted.unwrap()
    cursor = 0

    def half(part: Half) -> int:
        nonlocal cursor
        end = cursor + len(part.texts)
        total = part.fixed + sum(counts[cursor:end])
        cursor = end
        return total

    prices: list[tuple[int, int]] = []
    for at, read in enumerate(reads):
        prices.append(known[at] if at in known else (half(read.system), half(read.rest)))
    if memo is not None:
        memo.keep_prices(reads, prices)
    system = sum(price[0] for price in prices)
    fixed = REPLY_PRIMING + system + (TOKENS_PER_PART + counts[-1] if instructions is not None else 0)
    return Success((tuple(price[1] for price in prices), fixed))
