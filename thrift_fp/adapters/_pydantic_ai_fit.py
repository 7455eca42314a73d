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
from thrift_fp.adapters._pydantic_ai_read import TOKENS_PER_PART, Half, Read

REPLY_PRIMING: Final = 3
DEFAULT_ENCODING: Final = "o200k_base"


class TextCounts:
    """What a processor carries between its calls: its counting choice, checked once, and the
    token counts of the texts of its previous fit.

    >>> memo = TextCounts()
    >>> counting = memo.counting(None, "o200k_base", None).unwrap()
    >>> memo.count(["hello world", "hi"], counting).unwrap(), memo.count(["hi"], counting).unwrap(), memo.known
    ((2, 1), (1,), 1)
    """

    __slots__ = ("_choice", "_counting", "_lock", "_owner", "_table", "known")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._choice: tuple[object, object, object] | None = None
        self._counting: Counting | None = None
        self._owner: Counting | None = None
        self._table: dict[str, int] = {}
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
    texts: list[str] = []
    for read in reads:
        texts += read.system.texts
        texts += read.rest.texts
    if instructions is not None:
        texts.append(instructions)
    counted = memo.count(texts, counting) if memo is not None else counting.count_many(texts)
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

    system = 0
    rows: list[int] = []
    for read in reads:
        system += half(read.system)
        rows.append(half(read.rest))
    fixed = REPLY_PRIMING + system + (TOKENS_PER_PART + counts[-1] if instructions is not None else 0)
    return Success((tuple(rows), fixed))
