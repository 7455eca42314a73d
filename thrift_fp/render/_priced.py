"""`PricedRetrievable`, the item thrift fits during `fit_and_render`.

No ``from __future__ import annotations`` here: a NamedTuple's generated ``__new__`` carries the
field annotations, which beartype (under the test suite) must resolve.
"""

from typing import NamedTuple

from thrift_fp.records import Retrievable


class _Priced(NamedTuple):
    record: Retrievable
    content: str
    tokens: int


class PricedRetrievable(_Priced):
    """A record as thrift sees it during `fit_and_render`: the text it is charged for and its tokens.

    Fields: ``record``, ``content``, ``tokens``. ``content`` is the record's section (with its separator), plus any block overhead this record
    carries, so even a text measure of it is exact. A named tuple rather than a frozen dataclass:
    one is built per candidate record per fit, and a frozen dataclass costs about four times as
    much to construct.

    >>> from datetime import datetime, timezone
    >>> when = datetime(2026, 1, 2, tzinfo=timezone.utc)
    >>> record = Retrievable("r1", "body", "first-party", when, when, score=0.5)
    >>> priced = PricedRetrievable(record, "<data…>…", 9)
    >>> (priced.id, priced.score, priced.size_unknown, priced.estimate_tokens("cl100k_base"))
    ('r1', 0.5, False, 9)
    """

    __slots__ = ()

    @property
    def id(self) -> str:
        return self.record.id

    @property
    def score(self) -> float | None:
        return self.record.score

    # Never size-unknown; a class attribute, as thrift reads it once per item per fit.
    size_unknown = False

    def estimate_tokens(self, encoding: str) -> int:
        """The section's tokens, counted once before the fit (``encoding`` is the fit's own).

        >>> from datetime import datetime, timezone
        >>> when = datetime(2026, 1, 2, tzinfo=timezone.utc)
        >>> PricedRetrievable(Retrievable("r", "x", "first-party", when, when), "…", 4).estimate_tokens("o200k_base")
        4
        """
        return self.tokens
