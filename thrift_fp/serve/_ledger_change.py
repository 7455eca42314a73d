"""What one call adds to a session's ledger, as a value: the unit a shared ledger stores.

A ledger only grows: a call appends its record, delivers contents not sent before, reserves its
key, appends the hits it retrieved, and counts its call and tokens. `ledger_change` reads that
growth off two ledgers; `apply_change` replays it; replaying every stored change in order
rebuilds the ledger (`thrift_fp.serve._ledger_postgres` keeps one row per change).
"""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType

from thrift_fp._value import value
from thrift_fp.retrieval import RetrievalState
from thrift_fp.serve._ledger import CallRecord, Delivery, SessionLedger
from thrift_fp.sources import Hit


@value
class LedgerChange:
    """One call's growth of a ledger: the ``calls`` it appends, the contents it ``delivered``
    (content hash, where), the keys it reserved (``seen``, sorted), the ``sources`` it appends,
    and what it adds to the ``query_count`` and to the ``tokens`` used.

    >>> LedgerChange().empty, LedgerChange(tokens=3).empty
    (True, False)
    """

    calls: tuple[CallRecord, ...] = ()
    delivered: tuple[tuple[str, Delivery], ...] = ()
    seen: tuple[str, ...] = ()
    sources: tuple[Hit, ...] = ()
    query_count: int = 0
    tokens: int = 0

    @property
    def empty(self) -> bool:
        """Whether the change changes nothing (a call that left no trace)."""
        return self == LedgerChange()


class NotAGrowth(ValueError):
    """The later ledger is not the earlier one grown (a bug: ledgers only grow)."""


def ledger_change(before: SessionLedger, after: SessionLedger) -> LedgerChange:
    """What ``after`` adds to ``before``; `NotAGrowth` when ``after`` drops or rewrites anything.

    >>> from thrift_fp.serve._ledger import record_call
    >>> after = record_call(SessionLedger(), CallRecord(1, "search", "q", "answered", ("a#1",), (), 90), [("h", "a#1")])
    >>> change = ledger_change(SessionLedger(), after)
    >>> change.tokens, change.delivered, apply_change(SessionLedger(), change) == after
    (90, (('h', Delivery(passage_id='a#1', answer=1)),), True)
    """
    old, new = before.retrieval, after.retrieval
    grown = (
        after.calls[: len(before.calls)] == before.calls
        and new.sources[: len(old.sources)] == old.sources
        and old.seen <= new.seen
        and all(after.delivered.get(content) == delivery for content, delivery in before.delivered.items())
    )
    if not grown:
        raise NotAGrowth("a call's ledger must extend the ledger it started from")
    return LedgerChange(
        calls=after.calls[len(before.calls):],
        delivered=tuple((content, delivery) for content, delivery in after.delivered.items() if content not in before.delivered),
        seen=tuple(sorted(new.seen - old.seen)),
        sources=new.sources[len(old.sources):],
        query_count=new.query_count - old.query_count,
        tokens=after.tokens_used - before.tokens_used,
    )


def apply_change(ledger: SessionLedger, change: LedgerChange) -> SessionLedger:
    """``ledger`` grown by ``change`` (a content delivered before keeps its first delivery).

    >>> apply_change(SessionLedger(), LedgerChange(seen=("k",), query_count=1, tokens=5)).tokens_used
    5
    """
    delivered = dict(ledger.delivered)
    for content, delivery in change.delivered:
        delivered.setdefault(content, delivery)
    state = ledger.retrieval
    retrieval: RetrievalState[Hit] = RetrievalState(
        query_count=state.query_count + change.query_count,
        seen=state.seen | frozenset(change.seen),
        sources=(*state.sources, *change.sources),
    )
    return replace(
        ledger,
        retrieval=retrieval,
        delivered=MappingProxyType(delivered),
        tokens_used=ledger.tokens_used + change.tokens,
        calls=(*ledger.calls, *change.calls),
    )
