"""`History`: the messages one fit validated and counted, carried to the next fit in its counts.

An agent's history grows by appending, so turn N+1's messages start with turn N's very objects.
A `Message` is frozen and holds only immutable values, so what one fit validated and counted
about it (its entry: id, age rank, flags, pair, tokens) still holds in the next fit. The fit
carries its history in the `TokenCounts` it hands back (`thrift_fp.tokens._counts.carrying`),
and the next fit reuses the entries of the leading messages that are the same objects (``is``,
never ``==``), only for exact `Message` instances with exact ``str`` ids, and only with the very
encoding object that counted them (any encoding, when every message was priced by its caller:
nothing of theirs was counted). Everything after the shared prefix is validated and counted as usual.

Bounded like the counts: a history is carried only when every message text is at most
`INLINE_CHARS` characters and all of them at most `MAX_RETAINED_CHARS`; it references the
caller's own message objects, never copies.

No ``from __future__ import annotations``: beartype resolves the named tuples' annotations.
"""

from itertools import compress, count
from operator import attrgetter, is_not
from typing import Any, Final, NamedTuple, no_type_check

from thrift_fp.thrift._entry import Entry
from thrift_fp.tokens import TokenCounts, TokenEncoding
from thrift_fp.tokens._counts import carried

_entry_key: Final = attrgetter("key")


@no_type_check
class History(NamedTuple):
    """The messages of one fit (exact `Message` objects, in input order) and what it measured
    of them: their entries before any pass, texts, counts and ids. ``by_position``: the history
    was in time order, so its entries rank by input position (else by epoch seconds).
    ``priced``: every message was priced by its caller (``token_cost``): ``counts`` are those
    costs, no text was counted (``texts`` is empty) and no encoding was involved."""

    encoding: TokenEncoding
    items: tuple[Any, ...]
    entries: tuple[Entry, ...]
    texts: tuple[str, ...]
    counts: tuple[int, ...]
    keys: frozenset[str]
    by_position: bool
    chars: int
    tokens: int
    priced: bool = False


@no_type_check
class Reuse(NamedTuple):
    """The leading ``shared`` messages of a fit are ``history``'s own objects; ``keys`` their ids."""

    history: History
    shared: int
    keys: frozenset[str]

    def texts(self) -> tuple[str, ...]:
        """The shared messages' texts (the history's own tuple when all of it is shared)."""
        return self.history.texts[: self.shared]

    def counts(self) -> tuple[int, ...]:
        """The shared messages' token counts, in input order."""
        return self.history.counts[: self.shared]

    def entries(self) -> tuple[Entry, ...]:
        """The shared messages' entries, as the previous fit measured them."""
        return self.history.entries[: self.shared]

    def whole(self) -> bool:
        """Whether every message of the history is shared (then its totals need no re-summing)."""
        return self.shared == len(self.history.items)


def reuse_of(counts: TokenCounts, messages: object) -> Reuse | None:
    """The part of ``messages`` that the fit which made ``counts`` measured already: its leading
    messages that are that fit's very objects (``None`` when there are none).

    >>> reuse_of(TokenCounts(), ()) is None
    True
    """
    history = carried(counts)
    if type(history) is not History or type(messages) is not tuple:
        return None
    items = history.items
    shorter = min(len(items), len(messages))
    # The first position whose objects differ, in C-level passes (``map`` stops at the shorter).
    shared = next(compress(count(), map(is_not, items, messages)), shorter)
    if shared == 0:
        return None
    keys = history.keys if shared == len(items) else frozenset(map(_entry_key, history.entries[:shared]))
    return Reuse(history, shared, keys)
