"""Pricing read messages, and the counts a history processor carries from one step to the next.

The request-wide cost (charged whatever is shed, never shed itself) is `REPLY_PRIMING`, every
``SystemPromptPart`` (framing and text), and the instructions in force: one part's framing and
their tokens, once, since Pydantic AI sends them with whatever history it gets. A message's row
costs the rest of its parts.

`TextCounts` carries what a processor's fit measured to its next fit: the checked counting
choice, the last `Step` (each message's reading and prices, the plan's rows, the core's groups
and priced messages), and the token counts of the texts it counted last, keyed by the text itself
(an immutable ``str``, so a count never goes stale). An agent loop's step re-reads and re-prices
only the messages that are new or were edited in place, and tokenizes only texts it has not seen.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from itertools import count
from operator import eq
from typing import Final, TypeVar, cast

from returns.result import Failure, Result, Success

from thrift_fp._value import value
from thrift_fp.adapters._core import Counting, checked_counting
from thrift_fp.adapters._core import AdapterError, UnreadableField
from thrift_fp.adapters._core import CoreCarry
from thrift_fp.adapters.pydantic_ai._plan import PlanCarry
from thrift_fp.adapters.pydantic_ai._read import (
    TOKENS_PER_PART,
    Half,
    MediaPricer,
    Mispriced,
    Misread,
    Read,
    instructions_source,
    read_message,
)
from thrift_fp.adapters.pydantic_ai._step import Origins, Snapshot, snapshot

_T = TypeVar("_T")
REPLY_PRIMING: Final = 3
DEFAULT_ENCODING: Final = "o200k_base"


@value
class Step:
    """What one fit of a processor hands the next: the messages' snapshot, the media pricer and
    counting the reads and prices were made with, each message's read and its (system, rest)
    prices, and the plan's and the core's carries (``None`` when that fit failed before them).
    Unchecked at run time, like the rows: built by the processor alone."""

    snapshot: Snapshot | None
    media: object
    counting: Counting
    reads: tuple[Read, ...]
    systems: tuple[int, ...]
    rests: tuple[int, ...]
    plan: PlanCarry | None = None
    core: CoreCarry | None = None


class TextCounts:
    """What a processor carries between its calls: its counting choice, checked once; its last
    `Step` (each message it read, by identity, read again when edited in place; see
    `thrift_fp.adapters.pydantic_ai._step`); and the token counts of its previous fit's new texts.

    >>> memo = TextCounts()
    >>> counting = memo.counting(None, "o200k_base", None).unwrap()
    >>> memo.count(["hello world", "hi"], counting).unwrap(), memo.count(["hi"], counting).unwrap(), memo.known
    ((2, 1), (1,), 1)
    """

    __slots__ = ("_choice", "_counting", "_lock", "_owner", "_step", "_table", "known")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._choice: tuple[object, object, object] | None = None
        self._counting: Counting | None = None
        self._owner: Counting | None = None
        self._table: dict[str, int] = {}
        self._step: Step | None = None
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

    @property
    def step(self) -> Step | None:
        """The previous fit's step, if any."""
        with self._lock:
            return self._step

    def keep(self, step: Step) -> None:
        """Remember this fit's step for the next."""
        with self._lock:
            self._step = step

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


def read_step(
    messages: Sequence[object], media_tokens: MediaPricer | None, previous: Step | None
) -> tuple[Snapshot | None, tuple[Read, ...], Origins] | Misread | Mispriced | UnreadableField:
    """Every message read, reusing ``previous``'s reading of each message unchanged since (see
    `snapshot`; none when the media pricer changed); also where each reading came from.

    >>> from pydantic_ai.messages import ModelRequest, UserPromptPart
    >>> history = [ModelRequest([UserPromptPart("a")])]
    >>> taken, reads, found = read_step(history, None, None)
    >>> found.fresh, reads[0].prompt
    ([0], True)
    """
    old = previous.snapshot if previous is not None and previous.media is media_tokens else None
    made = snapshot(messages, old)
    total = len(messages)
    taken, found = (None, Origins(total, 0, {}, list(range(total)))) if made is None else made
    reads = found.gather(previous.reads if old is not None and previous is not None else (), cast(Read, None))
    for at in found.fresh:
        fresh = read_message(at, messages[at], media_tokens)
        if not isinstance(fresh, Read):
            return fresh
        reads[at] = fresh
    return taken, tuple(reads), found


def price_step(
    reads: Sequence[Read], found: Origins, previous: Step | None, counting: Counting, memo: TextCounts
) -> Result[tuple[tuple[int, ...], tuple[int, ...], int], AdapterError]:
    """Each message's (system, rest) prices, reusing ``previous``'s for the reads it made when it
    counted with this very counting, and the instructions' tokens (0 when none are in force)."""
    source = instructions_source(reads)
    instructions = None if source is None else reads[source].instructions
    carried = previous is not None and previous.counting is counting and previous.snapshot is not None
    fresh = found.fresh if carried else range(len(reads))
    texts: list[str] = []
    for at in fresh:
        texts += reads[at].system.texts
        texts += reads[at].rest.texts
    if instructions is not None:
        texts.append(instructions)
    counted = memo.count(texts, counting)
    if isinstance(counted, Failure):
        return Failure(counted.failure())
    counts = counted.unwrap()
    if carried and previous is not None:
        systems, rests = found.gather(previous.systems, 0), found.gather(previous.rests, 0)
    else:
        systems, rests = [0] * len(reads), [0] * len(reads)
    cursor = 0
    for at in fresh:
        read = reads[at]
        end = cursor + len(read.system.texts)
        systems[at] = read.system.fixed + sum(counts[cursor:end])
        cursor, end = end, end + len(read.rest.texts)
        rests[at] = read.rest.fixed + sum(counts[cursor:end])
        cursor = end
    extra = TOKENS_PER_PART + counts[-1] if instructions is not None else 0
    return Success((tuple(systems), tuple(rests), extra))


def price(
    reads: Sequence[Read], instructions: str | None, counting: Counting
) -> Result[tuple[tuple[int, ...], int], AdapterError]:
    """Each message's row tokens (its parts but the system ones), and the request-wide tokens.

    >>> from pydantic_ai.messages import ModelRequest, SystemPromptPart, UserPromptPart
    >>> from thrift_fp.adapters.pydantic_ai._read import read_message
    >>> read = read_message(0, ModelRequest([SystemPromptPart("Be kind."), UserPromptPart("hello world")]), None)
    >>> price([read], "Be brief.", checked_counting(None, "o200k_base", None).unwrap()).unwrap()
    ((5,), 15)
    """
    texts: list[str] = []
    for read in reads:
        texts += read.system.texts
        texts += read.rest.texts
    if instructions is not None:
        texts.append(instructions)
    counted = counting.count_many(texts)
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

    prices = [(half(read.system), half(read.rest)) for read in reads]
    system = sum(price[0] for price in prices)
    fixed = REPLY_PRIMING + system + (TOKENS_PER_PART + counts[-1] if instructions is not None else 0)
    return Success((tuple(price[1] for price in prices), fixed))
