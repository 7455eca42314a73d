"""A session's ledger, call after call: the token quota is never exceeded, the call quota is
never passed, and no content is sent twice (a repeat is always named with its first delivery)."""

from __future__ import annotations

from dataclasses import fields, replace
from datetime import datetime, timezone
from types import MappingProxyType

from hypothesis import given
from hypothesis import strategies as st
from returns.result import Failure

from thrift_fp.serve import CallRecord, SessionLedger, serve_settings
from thrift_fp.serve._ledger import grant_budget, record_call, split_delivered
from thrift_fp.serve._ledger import MIN_USEFUL_TOKENS
from thrift_fp.sources import Hit

_AT = datetime(2026, 1, 1, tzinfo=timezone.utc)


def _hit(content: int, copy: int) -> Hit:
    # Two passage ids may hold the same content (copy): de-duplication goes by content. Built by
    # field name, only the fields Hit has, so that a field it gains with a default changes nothing.
    values: dict[str, object] = {
        "passage_id": f"doc{content}.md#{copy}", "source": f"doc{content}.md", "path": "/x", "kind": "markdown",
        "trust_tier": "first-party", "created_at": _AT, "updated_at": _AT, "content_hash": f"hash{content}",
        "tokens": 10, "text": f"text {content}", "rank": -1.0, "score": 0.5, "metadata": MappingProxyType({}),
        "heading_path": (),
    }
    return Hit(**{field.name: values[field.name] for field in fields(Hit) if field.name in values})  # type: ignore[arg-type]  # values by name, typed object


_call = st.tuples(
    st.lists(st.tuples(st.integers(0, 12), st.integers(0, 2)), max_size=8, unique_by=lambda pair: pair[0]),
    st.integers(1, 5000),  # the budget asked for
    st.data(),
)


@given(
    max_calls=st.integers(1, 8),
    max_tokens=st.integers(1, 3000),
    calls=st.lists(_call, max_size=12),
)
def test_quotas_hold_and_no_content_is_sent_twice(
    max_calls: int, max_tokens: int, calls: list[tuple[list[tuple[int, int]], int, st.DataObject]]
) -> None:
    settings = serve_settings(max_calls=max_calls, max_session_tokens=max_tokens).unwrap()
    ledger = SessionLedger()
    first_sent: dict[str, int] = {}
    for hits_spec, requested, data in calls:
        number = ledger.next_call
        granted = grant_budget(ledger, requested, settings)
        left = max_tokens - ledger.tokens_used
        if isinstance(granted, Failure):
            assert ledger.retrieval.query_count >= max_calls or left < min(requested, MIN_USEFUL_TOKENS)
            ledger = record_call(ledger, CallRecord(number, "search", "q", granted.failure().message))
            continue
        budget = granted.unwrap()
        assert 1 <= budget <= min(requested, left)
        hits = [_hit(content, copy) for content, copy in hits_spec]
        fresh, repeated = split_delivered(ledger, hits)
        assert {hit.content_hash for hit in fresh}.isdisjoint(first_sent)
        for hit, delivery in repeated:
            assert first_sent[hit.content_hash] == delivery.answer
        kept = [fresh[i] for i in data.draw(st.lists(st.integers(0, len(fresh) - 1), unique=True))] if fresh else []
        tokens = data.draw(st.integers(0, budget))
        ledger = record_call(
            ledger,
            CallRecord(number, "search", "q", "answered", tuple(hit.passage_id for hit in kept), (), tokens),
            [(hit.content_hash, hit.passage_id) for hit in kept],
            retrieval=replace(ledger.retrieval, query_count=ledger.retrieval.query_count + 1),
        )
        for hit in kept:
            first_sent.setdefault(hit.content_hash, number)
        assert ledger.tokens_used <= max_tokens
        assert ledger.retrieval.query_count <= max_calls
    assert {content: delivery.answer for content, delivery in ledger.delivered.items()} == first_sent
    assert ledger.tokens_used == sum(call.tokens for call in ledger.calls)
