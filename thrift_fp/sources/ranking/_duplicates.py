"""Answers without repeats: near-duplicate passages collapse to the best-scored one.

The same text often reaches an index twice — the ``.html`` and ``.txt`` renderings of one manual
page, a Markdown page and the HTML built from it — with different bytes (markup, links,
whitespace), so the content hash alone does not see it. Two passages are copies only when they
carry the same words, compared as a sequence of lower-cased NFKC words (punctuation, markup and
spacing ignored):

- **Short passages** (the shorter under ``CONTAINED_WORDS`` words) are copies only when their
  word sequences are equal. A few words inside a longer passage say nothing about the rest of it
  ("Shedding drops the lowest score first." is not the forum post that quotes it).
- **Longer passages** are copies when, aligned word by word, the shorter lies inside the longer:
  no word of one stands where the other has a *different* word (a substitution — the key word
  of a templated page: "note 3" against "note 4", another first sentence before a shared
  boilerplate), and at most ``SLACK`` of the shorter's words are missing from the longer (a
  rendering's own words: AsciiDoc's ``linkgit`` and ``[verse]``). The longer may hold more (a
  page's "Manual Page" title and "Last updated" footer, or a chunk that reaches further).

Only the hits of one answer are compared (a few dozen), and a word count screens each pair
before the alignment, so the pairwise check stays cheap.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Final, TypeVar

CONTAINED_WORDS: Final = 24
SLACK: Final = 0.1
_WORD: Final = re.compile(r"[^\W_]+")

_Item = TypeVar("_Item")


@dataclass(frozen=True, slots=True)
class Fingerprint:
    """What copy detection compares of a text: its normalised words in order, and counted."""

    words: tuple[str, ...]
    counts: Counter[str]


def fingerprint(text: str) -> Fingerprint:
    """The `Fingerprint` of ``text``: its words, NFKC-normalised and case-folded.

    >>> fingerprint("The *Budget*: shed, shed!").words
    ('the', 'budget', 'shed', 'shed')
    """
    words = tuple(_WORD.findall(unicodedata.normalize("NFKC", text).casefold()))
    return Fingerprint(words, Counter(words))


def alike(first: Fingerprint, second: Fingerprint) -> bool:
    """Whether two texts are copies of each other (see the module's rule).

    >>> page = "This is a synonym for git-add. Please refer to the documentation of that command. " * 2
    >>> alike(fingerprint(page), fingerprint("git-stage(1) Manual Page\\n  " + page.replace("git-add", "linkgit:git-add[1]")))
    True
    >>> alike(fingerprint("Shedding drops the lowest score first."), fingerprint("Shedding drops the LOWEST score first!"))
    True
    >>> alike(fingerprint("Shedding drops the lowest score first."),
    ...       fingerprint("Shedding drops the lowest score first, says the web."))
    False
    >>> def note(n): return f"The budget shrinks by the reserve; note {n} explains why. " * 4
    >>> alike(fingerprint(note(1)), fingerprint(note(2)))
    False
    """
    if first.words == second.words:
        return True
    shorter, longer = (first, second) if len(first.words) <= len(second.words) else (second, first)
    size = len(shorter.words)
    if size < CONTAINED_WORDS:
        return False
    missing = math.floor(SLACK * size)
    # Screen: the shorter's words, counted, must already be nearly all in the longer.
    if (shorter.counts & longer.counts).total() < size - missing:
        return False
    matcher = SequenceMatcher(None, shorter.words, longer.words, autojunk=False)
    lost = 0
    for operation, start, end, _, _ in matcher.get_opcodes():
        if operation == "replace":
            return False  # other words in the same place: another text, not another rendering
        if operation == "delete":
            lost += end - start
    return lost <= missing


def collapse(items: Sequence[_Item], text: Callable[[_Item], str]) -> tuple[_Item, ...]:
    """``items`` (best first) without the copies of an earlier item.

    >>> collapse(["Shed the lowest score first.", "budget", "shed the LOWEST score first"], str)
    ('Shed the lowest score first.', 'budget')
    """
    return tuple(item for item, _ in collapse_copies(items, text))


def collapse_copies(
    items: Sequence[_Item], text: Callable[[_Item], str], limit: int | None = None
) -> tuple[tuple[_Item, tuple[_Item, ...]], ...]:
    """``items`` (best first) without the copies of an earlier item, each kept item with the
    copies it stands for (in order): the first of a set of copies, so the best-scored, is the
    one kept. A copy joins the first kept item it matches. With a ``limit``, the walk stops once
    that many are kept (the pairwise check stays small).

    >>> collapse_copies(["Shed the lowest score first.", "budget", "shed the LOWEST score first"], str)
    (('Shed the lowest score first.', ('shed the LOWEST score first',)), ('budget', ()))
    >>> collapse_copies(["a b", "c d", "a b"], str, limit=1)
    (('a b', ()),)
    """
    kept: list[tuple[_Item, list[_Item], Fingerprint]] = []
    for item in items:
        if limit is not None and len(kept) >= limit:
            break
        mine = fingerprint(text(item))
        twin = next((entry for entry in kept if alike(mine, entry[2])), None)
        if twin is None:
            kept.append((item, [], mine))
        else:
            twin[1].append(item)
    return tuple((item, tuple(copies)) for item, copies, _ in kept)
