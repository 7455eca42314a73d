"""`PricedRetrievable`, the item thrift fits during `fit_and_render`.

No ``from __future__ import annotations`` here: a NamedTuple's generated ``__new__`` carries the
field annotations, which beartype (under the test suite) must resolve.
"""

from collections.abc import Sequence
from itertools import repeat
from operator import attrgetter
from typing import NamedTuple, cast

from thrift_fp.records import Retrievable


class _Priced(NamedTuple):
    record: Retrievable
    content: str
    tokens: int
    # The record's own id and score, copied: thrift reads each once or twice per item per fit,
    # and a named tuple's field is a C-level read where a property is a Python call.
    id: str
    score: float | None


class PricedRetrievable(_Priced):
    """A record as thrift sees it during `fit_and_render`: the text it is charged for and its tokens.

    Fields: ``record``, ``content``, ``tokens``, and the record's ``id`` and ``score``. ``content``
    is the record's section (with its separator), plus any block overhead this record carries, so
    even a text measure of it is exact. A named tuple rather than a frozen dataclass: one is built
    per candidate record per fit, and a frozen dataclass costs about four times as much to
    construct. `fit_and_render` builds them (`priced_many`); they are never built by hand.

    >>> from datetime import datetime, timezone
    >>> when = datetime(2026, 1, 2, tzinfo=timezone.utc)
    >>> record = Retrievable("r1", "body", "first-party", when, when, score=0.5)
    >>> item = priced(record, "<data…>…", 9)
    >>> (item.id, item.score, item.size_unknown, item.estimate_tokens("cl100k_base"))
    ('r1', 0.5, False, 9)
    """

    __slots__ = ()

    # Never size-unknown; a class attribute, as thrift reads it once per item per fit.
    size_unknown = False

    def estimate_tokens(self, encoding: str) -> int:
        """The section's tokens, counted once before the fit (``encoding`` is the fit's own).

        >>> from datetime import datetime, timezone
        >>> when = datetime(2026, 1, 2, tzinfo=timezone.utc)
        >>> priced(Retrievable("r", "x", "first-party", when, when), "…", 4).estimate_tokens("o200k_base")
        4
        """
        return self.tokens


def priced(record: Retrievable, content: str, tokens: int) -> PricedRetrievable:
    """``record`` charged ``tokens`` for ``content``, with its id and score copied.

    >>> from datetime import datetime, timezone
    >>> when = datetime(2026, 1, 2, tzinfo=timezone.utc)
    >>> priced(Retrievable("r", "x", "first-party", when, when, score=0.25), "…", 4)[2:]
    (4, 'r', 0.25)
    """
    return PricedRetrievable(record, content, tokens, record.id, record.score)


def priced_many(
    records: Sequence[Retrievable], contents: Sequence[str], tokens: Sequence[int]
) -> list[PricedRetrievable]:
    """`priced` for each record in turn, built in C-level passes (once per candidate per fit).

    >>> from datetime import datetime, timezone
    >>> when = datetime(2026, 1, 2, tzinfo=timezone.utc)
    >>> [item.id for item in priced_many([Retrievable(n, "x", "first-party", when, when) for n in "ab"], ["1", "2"], [1, 1])]
    ['a', 'b']
    """
    rows = zip(records, contents, tokens, map(_id, records), map(_score, records), strict=True)
    return cast(list[PricedRetrievable], list(map(_new, repeat(PricedRetrievable), rows)))


_id, _score = attrgetter("id"), attrgetter("score")
_new = tuple.__new__
