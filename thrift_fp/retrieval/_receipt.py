"""The receipt a successful retrieval hands back."""

from __future__ import annotations

from dataclasses import field
from datetime import datetime
from types import MappingProxyType
from typing import Generic, TypeVar

from thrift_fp._value import value

_Query = TypeVar("_Query")
_Source = TypeVar("_Source")
_Result = TypeVar("_Result")


def _no_extensions() -> MappingProxyType[str, object]:
    return MappingProxyType({})


@value
class Receipt(Generic[_Query, _Source, _Result]):
    """Proof of one accepted retrieval: what was asked, what came back, when.

    ``sequence`` is the 1-based ordinal of this success within the request;
    ``sources`` are the result's sources after naming (they were appended to the
    request state in this order); ``extensions`` are what the effects added.

    >>> from datetime import datetime, timezone
    >>> t = datetime(2026, 1, 1, tzinfo=timezone.utc)
    >>> r = Receipt("manual-search", 1, '"Agent"', "Agent", ("manual",), ("manual",), t, t)
    >>> r.sequence, dict(r.extensions)
    (1, {})
    """

    definition_id: str
    sequence: int
    key: str
    query: _Query
    result: _Result
    sources: tuple[_Source, ...]
    started_at: datetime
    finished_at: datetime
    extensions: MappingProxyType[str, object] = field(default_factory=_no_extensions)
