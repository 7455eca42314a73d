"""`TokenCounts`: the counts one fit measured, handed to the next so repeated texts cost nothing.

An agent fits its working set every turn and turn N+1 repeats nearly every text of turn N. The
counts are explicit state, like every other state in thrift_fp: a fit takes the previous
`TokenCounts` in and hands the new one back. Reuse never changes a result:

- an entry is used only with the very `TokenEncoding` object that made it (identity, not name, so
  a custom estimator re-registered under the same name starts cold);
- an entry is keyed by the text itself (exact: ``dict`` compares equal-hash keys in full), or, for
  a text longer than `INLINE_CHARS` characters or past the retained-characters bound, by its
  BLAKE2b-128 digest, so a huge text is never kept alive by the counts.

Memory is bounded: the new value holds only the texts of the call that made it (at most
`MAX_ENTRIES`), and keeps at most `MAX_RETAINED_CHARS` characters of text referenced (the same
``str`` objects the caller's items hold, never copies); past that, entries are digests.

A caller may also carry its own validated state in the value (`carrying`, `carried`): thrift's fit
carries the message history it measured (`thrift_fp.thrift._history`), and hands `count_known` the
texts whose counts that state already holds. The counts never read the carried value.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import field
from types import MappingProxyType
from typing import Final, NamedTuple, cast

from returns.result import Failure, Result, Success

from thrift_fp._args import Each, EachTuple, as_tuple
from thrift_fp._value import value
from thrift_fp.tokens._encoding import TokenEncoding, not_text
from thrift_fp.tokens._errors import EstimatorFailed, NotText

INLINE_CHARS: Final = 16 * 1024
MAX_RETAINED_CHARS: Final = 32 * 1024 * 1024
MAX_ENTRIES: Final = 250_000

_EMPTY: Final[Mapping[str | bytes, int]] = MappingProxyType({})
# The memo is a plain dict that nothing writes after construction (a read-only proxy would cost
# a slower lookup per text per fit); it is private and never handed out.


def _empty() -> Mapping[str | bytes, int]:
    return _EMPTY


def _digest(text: str) -> bytes:
    # surrogatepass: a lone surrogate is valid str content and must not raise here.
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


class Known(NamedTuple):
    """Texts whose counts (under the very encoding of the call) the caller holds already: each at
    most `INLINE_CHARS` characters, ``chars`` characters in all (at most `MAX_RETAINED_CHARS`)."""

    texts: tuple[str, ...]
    counts: tuple[int, ...]
    chars: int


# No known texts: what a plain `TokenCounts.count_many` passes.
NOTHING_KNOWN: Final = Known((), (), 0)


@value
class TokenCounts:
    """Counts of the texts one call measured, reusable by the next call with the same encoding.

    Start with ``TokenCounts()`` (empty); every `count_many` returns the counts and the next value.

    >>> from thrift_fp.tokens import get_encoding
    >>> enc = get_encoding("cl100k_base").unwrap()
    >>> counts, memo = TokenCounts().count_many(enc, ["hello world", "hi"]).unwrap()
    >>> counts, len(memo), memo.encoding
    ((2, 1), 2, 'cl100k_base')
    >>> again, memo = memo.count_many(enc, ["hi", "new text"]).unwrap()
    >>> again, memo.reused
    ((1, 2), 1)
    """

    _encoding: TokenEncoding | None = field(default=None, repr=False)
    _memo: Mapping[str | bytes, int] = field(default_factory=_empty, repr=False)
    reused: int = 0
    # A caller's own state about the texts of this call (see the module docstring); never compared.
    _carry: object = field(default=None, repr=False, compare=False)

    @property
    def encoding(self) -> str | None:
        """The encoding these counts belong to (``None`` when empty)."""
        return None if self._encoding is None else self._encoding.name

    def __len__(self) -> int:
        return len(self._memo)

    def count_many(
        self, encoding: TokenEncoding, texts: Each[str], *, threads: int | None = None
    ) -> Result[tuple[tuple[int, ...], TokenCounts], EstimatorFailed | NotText]:
        """Counts of ``texts`` (known ones from this value, the rest in one batch), and the
        counts of exactly these texts as the next value; ``reused`` says how many were known.

        >>> from thrift_fp.tokens import get_encoding
        >>> o200k = get_encoding("o200k_base").unwrap()
        >>> _, memo = TokenCounts().count_many(get_encoding("cl100k_base").unwrap(), ["x"]).unwrap()
        >>> memo.count_many(o200k, ["x"]).unwrap()[1].reused  # another encoding: nothing reused
        0
        """
        return count_known(self, encoding, as_tuple(texts), threads=threads)


def count_known(
    counts: TokenCounts,
    encoding: TokenEncoding,
    texts: EachTuple[str],
    *,
    threads: int | None = None,
    known: Known = NOTHING_KNOWN,
) -> Result[tuple[tuple[int, ...], TokenCounts], EstimatorFailed | NotText]:
    """`TokenCounts.count_many` of ``texts``, for a caller that also holds the counts of the
    ``known`` texts of the same call: the next value holds both, and counts them as reused.

    >>> from thrift_fp.tokens import get_encoding
    >>> enc = get_encoding("cl100k_base").unwrap()
    >>> counted, memo = count_known(TokenCounts(), enc, ("hi",), known=Known(("hello world",), (2,), 11)).unwrap()
    >>> counted, len(memo), memo.reused, memo.count_many(enc, ["hello world"]).unwrap()[0]
    ((1,), 2, 1, (2,))
    """
    stray = not_text(texts)
    if stray is not None:
        return Failure(stray)
    memo = counts._memo if counts._encoding is encoding else _EMPTY
    # The per-text work of every fit: C-level passes (len, map, dict.get) in the common case
    # of short texts; only a long text, or texts past the retained bound, is digested.
    keys: list[str | bytes] = list(texts)
    lengths = list(map(len, texts))  # one pass of len for both bounds below
    total_chars = sum(lengths) + known.chars
    if total_chars > INLINE_CHARS and (
        total_chars > MAX_RETAINED_CHARS or max(lengths, default=0) > INLINE_CHARS
    ):
        # The known texts are referenced first (they are short and within the bound).
        retained = known.chars
        for at, text in enumerate(texts):
            size = len(text)
            if size <= INLINE_CHARS and retained + size <= MAX_RETAINED_CHARS:
                retained += size
            else:
                keys[at] = _digest(text)
    if memo:
        found = list(map(memo.get, keys))
        # A re-fit misses few texts: find them with C-level scans, not a Python-level loop.
        misses: list[int] = []
        for _ in range(found.count(None)):
            misses.append(found.index(None, misses[-1] + 1 if misses else 0))
        missing: Sequence[str] = [texts[at] for at in misses]
    else:
        found, misses, missing = [], [], texts
    counted = encoding.count_many(missing, threads=threads)
    if isinstance(counted, Failure):
        return Failure(counted.failure())
    if memo:
        for at, value in zip(misses, counted.unwrap(), strict=True):
            found[at] = value
        # Every None was filled just above.
        values = cast(tuple[int, ...], tuple(found))
    else:
        values = counted.unwrap()
    # At most MAX_ENTRIES: zip stops at the shorter side, so only the keys need bounding.
    entries: dict[str | bytes, int]
    if known.texts:
        entries = dict(zip(known.texts[:MAX_ENTRIES], known.counts))
        room = MAX_ENTRIES - len(entries)
        entries.update(zip(keys if len(keys) <= room else keys[:room], values))
    else:
        entries = dict(zip(keys if len(keys) <= MAX_ENTRIES else keys[:MAX_ENTRIES], values))
    reused = len(known.texts) + len(texts) - len(missing)
    return Success((values, TokenCounts(encoding, entries, reused)))


def carrying(counts: TokenCounts, carry: object) -> TokenCounts:
    """``counts`` carrying the caller's ``carry`` (see the module docstring).

    >>> carried(carrying(TokenCounts(), "state")), carried(TokenCounts())
    ('state', None)
    """
    return TokenCounts(counts._encoding, counts._memo, counts.reused, carry)


def carried(counts: TokenCounts) -> object:
    """What the call that made ``counts`` carried in it (``None``: nothing).

    >>> carried(carrying(TokenCounts(), ("any", "value")))
    ('any', 'value')
    """
    return counts._carry
