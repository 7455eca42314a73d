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

- **Renderings of one page** (`siblings`: the same file name in the same folder under two text
  renderings' suffixes, ``git-log.html`` and ``git-log.txt``) are chunked by each rendering's own
  structure, so one chunk may start or end a few words before the other: a heading on one side,
  a list number or the next heading on the other. For them only, the shorter's words at either
  edge of the shared text may differ or be missing (at most ``EDGE`` of it); inside the shared
  text the rule above holds; a short passage is a copy of its other rendering's chunk when its
  words lie there whole, in one run (a synopsis line that one rendering cut alone). Passages of
  different pages keep the rules above, so templated pages (one key word changed) stay apart,
  and so do two sections of one page that differ inside.

Only the hits of one answer are compared (a few dozen), and a word count screens each pair
before the alignment, so the pairwise check stays cheap. Whether two passages are copies does
not depend on which of them is given first.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Sequence

from difflib import SequenceMatcher
from pathlib import PurePosixPath
from typing import Final, TypeVar

from thrift_fp._value import value

CONTAINED_WORDS: Final = 24
SLACK: Final = 0.1
EDGE: Final = 0.25
"""How much of the shorter of two renderings of one page may differ at its edges (a cut elsewhere)."""
RENDERINGS: Final = frozenset({".md", ".markdown", ".rst", ".html", ".htm", ".txt", ".text"})
"""The suffixes of the text renderings a page may have in one folder (the document kinds an index
reads, JSONL aside: its records share one file and are no rendering of a page)."""
_WORD: Final = re.compile(r"[^\W_]+")

_Item = TypeVar("_Item")


@value
class Fingerprint:
    """What copy detection compares of a text: its normalised words in order, and counted."""

    words: tuple[str, ...]
    counts: Counter[str]


@value
class Page:
    """Which page a passage was read from, as renderings are matched (`page_of`): the file's
    folder and name without its suffix, verbatim, its rendering's suffix, and its trust tier."""

    folder: str
    stem: str
    suffix: str
    tier: str


def page_of(path: str, tier: str) -> Page | None:
    """The `Page` a passage read from ``path`` (a file of trust tier ``tier``) renders, or
    ``None`` when its suffix names no text rendering (`RENDERINGS`).

    >>> page_of("/usr/share/doc/git-doc/git-log.HTML", "first-party")
    Page(folder='/usr/share/doc/git-doc', stem='git-log', suffix='.html', tier='first-party')
    >>> page_of("/d/notes.jsonl", "first-party") is None, page_of("/d/.txt", "first-party") is None
    (True, True)
    """
    file = PurePosixPath(path)
    suffix = file.suffix.lower()
    if suffix not in RENDERINGS or not file.stem:
        return None
    return Page(str(file.parent), file.stem, suffix, tier)


def siblings(first: Page | None, second: Page | None) -> bool:
    """Whether two passages come from two renderings of one page: files in the very same folder,
    with the very same name but for a different rendering suffix, of the same trust tier.

    Names are hostile, so nothing is guessed from them: folders and stems compare verbatim (no
    case folding, no Unicode normalisation, so ``Git-Log.txt`` or a look-alike letter is another
    page; one more dot, ``git-log.html.txt``, is another stem; a file in another folder, another
    root or a JSONL record named like the page is not its rendering). A file reaches a page's
    looser rule only by being written into that page's own folder, under its name, in its trust
    tier — by whoever already writes that page's renderings — and then, as any copy, it stands
    for the page only when it outranks it, under its own source and envelope.

    >>> html = page_of("/d/git-log.html", "first-party")
    >>> siblings(html, page_of("/d/git-log.txt", "first-party")), siblings(html, page_of("/e/git-log.txt", "first-party"))
    (True, False)
    >>> siblings(html, page_of("/d/Git-Log.txt", "first-party")), siblings(html, page_of("/d/git-log.txt", "third-party-public"))
    (False, False)
    """
    return (
        first is not None and second is not None and first.suffix != second.suffix
        and first.folder == second.folder and first.stem == second.stem and first.tier == second.tier
    )


def fingerprint(text: str) -> Fingerprint:
    """The `Fingerprint` of ``text``: its words, NFKC-normalised and case-folded.

    >>> fingerprint("The *Budget*: shed, shed!").words
    ('the', 'budget', 'shed', 'shed')
    """
    words = tuple(_WORD.findall(unicodedata.normalize("NFKC", text).casefold()))
    return Fingerprint(words, Counter(words))


def alike(first: Fingerprint, second: Fingerprint, *, renderings: bool = False) -> bool:
    """Whether two texts are copies of each other (see the module's rule); ``renderings`` when
    they come from two renderings of one page (`siblings`), whose edges may differ.

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
    >>> cut_here, cut_there = "Approach 2. " + page, "1. " + page + " Approach 3"
    >>> alike(fingerprint(cut_here), fingerprint(cut_there)), alike(fingerprint(cut_here), fingerprint(cut_there), renderings=True)
    (False, True)
    >>> synopsis = "git stash store [(-m | --message) <message>] [-q | --quiet] <commit>"
    >>> cut = fingerprint("git stash create [<message>]\\n" + synopsis)
    >>> alike(fingerprint(synopsis), cut), alike(fingerprint(synopsis), cut, renderings=True)
    (False, True)
    """
    if first.words == second.words:
        return True
    # The shorter, and of two as long the lesser: the same pair in either order is aligned alike.
    shorter, longer = (first, second) if (len(first.words), first.words) <= (len(second.words), second.words) \
        else (second, first)
    size = len(shorter.words)
    if size < CONTAINED_WORDS:
        # One page's text, cut alone by one rendering: whole, in one run, inside the other's chunk.
        return renderings and size > 0 and SequenceMatcher(None, shorter.words, longer.words, autojunk=False) \
            .find_longest_match(0, size, 0, len(longer.words)).size == size
    missing = math.floor(SLACK * size)
    edges = math.floor(EDGE * size) if renderings else 0
    # Screen: the shorter's words, counted, must already be nearly all in the longer.
    if (shorter.counts & longer.counts).total() < size - missing - edges:
        return False
    operations = SequenceMatcher(None, shorter.words, longer.words, autojunk=False).get_opcodes()
    equal = [n for n, (operation, *_) in enumerate(operations) if operation == "equal"]
    if renderings and equal:
        # A cut elsewhere: what lies before the first and after the last shared word is an edge.
        edge = operations[: equal[0]] + operations[equal[-1] + 1 :]
        if sum(end - start for _, start, end, _, _ in edge) > edges:
            return False
        operations = operations[equal[0] : equal[-1] + 1]
    lost = 0
    for operation, start, end, _, _ in operations:
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
    items: Sequence[_Item], text: Callable[[_Item], str], limit: int | None = None,
    page: Callable[[_Item], Page | None] | None = None,
) -> tuple[tuple[_Item, tuple[_Item, ...]], ...]:
    """``items`` (best first) without the copies of an earlier item, each kept item with the
    copies it stands for (in order): the first of a set of copies, so the best-scored, is the
    one kept. A copy joins the first kept item it matches. With a ``limit``, the walk stops once
    that many are kept (the pairwise check stays small). With ``page`` (the `Page` an item
    renders), two renderings of one page are compared by their looser rule (`siblings`).

    >>> collapse_copies(["Shed the lowest score first.", "budget", "shed the LOWEST score first"], str)
    (('Shed the lowest score first.', ('shed the LOWEST score first',)), ('budget', ()))
    >>> collapse_copies(["a b", "c d", "a b"], str, limit=1)
    (('a b', ()),)
    """
    kept: list[tuple[_Item, list[_Item], Fingerprint, Page | None]] = []
    for item in items:
        if limit is not None and len(kept) >= limit:
            break
        mine, where = fingerprint(text(item)), (None if page is None else page(item))
        twin = next((entry for entry in kept if alike(mine, entry[2], renderings=siblings(where, entry[3]))), None)
        if twin is None:
            kept.append((item, [], mine, where))
        else:
            twin[1].append(item)
    return tuple((item, tuple(copies)) for item, copies, _, _ in kept)
