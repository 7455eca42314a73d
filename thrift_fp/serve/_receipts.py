"""A session's ledger as the JSON of the ``receipts://session`` resource."""

from __future__ import annotations

from thrift_fp.serve._ledger import CallRecord, SessionLedger
from thrift_fp.serve._outcome import session_summary
from thrift_fp.serve._settings import ServeSettings


def receipts_json(ledger: SessionLedger, settings: ServeSettings) -> dict[str, object]:
    """Every call (its outcome, what it sent, what it named as sent before, its tokens, its
    receipt) and the session's quota figures.

    >>> from thrift_fp.serve import serve_settings
    >>> from thrift_fp.serve._ledger import record_call
    >>> ledger = record_call(SessionLedger(), CallRecord(1, "read", "a#9", "read: no passage 'a#9'"))
    >>> receipts_json(ledger, serve_settings().unwrap())["calls"]
    [{'call': 1, 'tool': 'read', 'query': 'a#9', 'outcome': "read: no passage 'a#9'", 'sent': [], 'repeated': [], 'tokens': 0, 'receipt': None}]
    """
    return {
        "session": session_summary(ledger, settings.max_calls, settings.max_session_tokens),
        "calls": [_call(call) for call in ledger.calls],
    }


def _call(call: CallRecord) -> dict[str, object]:
    receipt = call.receipt
    return {
        "call": call.number,
        "tool": call.tool,
        "query": call.query,
        "outcome": call.outcome,
        "sent": list(call.sent),
        "repeated": list(call.repeated),
        "tokens": call.tokens,
        "receipt": None if receipt is None else {
            "definition_id": receipt.definition_id,
            "sequence": receipt.sequence,
            "key": receipt.key,
            "query": receipt.query,
            "sources": [hit.passage_id for hit in receipt.sources],
            "started_at": receipt.started_at.isoformat(),
            "finished_at": receipt.finished_at.isoformat(),
        },
    }
