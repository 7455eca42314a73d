"""Answers without repeats: near-duplicate passages collapse to the best-scored one.

The same text often reaches an index twice — a Markdown page and the HTML page built from it,
a section copied into two manuals — with different bytes (markup, links, whitespace), so the
content hash alone does not see it. Two passages are near-duplicates when, compared as
lower-cased words, one holds the same text as the other or most of it: their word 4-grams
(shingles) overlap by at least ``CONTAINMENT`` of the smaller set. Only the hits of one answer
are compared (a few dozen), so the pairwise check is cheap.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from typing import Final, TypeVar

SHINGLE: Final = 4
CONTAINMENT: Final = 0.7
_WORD: Final = re.compile(r"[^\W_]+")

_Item = TypeVar("_Item")


def shingles(text: str) -> frozenset[tuple[str, ...]]:
    """The word 4-grams of ``text`` as lower-cased words (markup and spacing ignored); a text
    of fewer words is one shingle of all of them.

    >>> sorted(shingles("The *budget*: window - reserve!"))
    [('the', 'budget', 'window', 'reserve')]
    >>> len(shingles("the budget is the window minus the reserve"))
    5
    """
    words = _WORD.findall(unicodedata.normalize("NFKC", text).casefold())
    if len(words) <= SHINGLE:
        return frozenset({tuple(words)}) if words else frozenset()
    return frozenset(tuple(words[n : n + SHINGLE]) for n in range(len(words) - SHINGLE + 1))


def near_duplicates(first: frozenset[tuple[str, ...]], second: frozenset[tuple[str, ...]]) -> bool:
    """Whether two shingle sets are near-duplicates: the smaller mostly inside the larger.

    >>> a = shingles("Reads the entire contents of a file and resolves with them.")
    >>> near_duplicates(a, shingles("# readFile\\n\\nReads the entire contents of a `file` and resolves with them."))
    True
    >>> near_duplicates(a, shingles("Writes data to a file, replacing the file if it already exists."))
    False
    """
    if not first or not second:
        return first == second
    smaller = min(len(first), len(second))
    return len(first & second) >= CONTAINMENT * smaller


def collapse(items: Sequence[_Item], text: Callable[[_Item], str]) -> tuple[_Item, ...]:
    """``items`` (best first) without the near-duplicates of an earlier item.

    >>> collapse(["Shed the lowest score first.", "budget", "shed the LOWEST score first"], str)
    ('Shed the lowest score first.', 'budget')
    """
    kept: list[_Item] = []
    seen: list[frozenset[tuple[str, ...]]] = []
    for item in items:
        mine = shingles(text(item))
        if not any(near_duplicates(mine, other) for other in seen):
            kept.append(item)
            seen.append(mine)
    return tuple(kept)
