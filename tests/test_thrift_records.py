"""A real `thrift_fp.records.Retrievable` works as a thrift retrievable (the thrift layer itself
never imports records; it only sees the structural shape)."""

from __future__ import annotations

from datetime import datetime, timezone

from thrift_fp.records import MemoryStore, Retrievable, SpooledArtifact
from thrift_fp.thrift import RetrievableLike, ThriftOptions, WorkingSet, subtract_to_fit
from thrift_fp.tokens import Tokenizable, count_tokens

AT = datetime(2026, 1, 1, tzinfo=timezone.utc)


def record(ident: str, content: str | Tokenizable | SpooledArtifact, score: float | None = None) -> Retrievable:
    return Retrievable(ident, content, "first-party", AT, AT, score=score)


def tokens(text: str, encoding: str = "cl100k_base") -> int:
    return count_tokens(text, encoding).unwrap().tokens


def test_retrievable_satisfies_the_protocol() -> None:
    assert isinstance(record("a", "text"), RetrievableLike)


def test_records_are_measured_by_their_own_estimate() -> None:
    plain = record("plain", "Refunds take five business days.", 0.9)
    dynamic = record("dynamic", Tokenizable("a tokenizable body of text"), 0.5)
    for encoding in ("cl100k_base", "o200k_base"):
        fitted = subtract_to_fit(WorkingSet(retrievables=(plain, dynamic)), 10_000, encoding=encoding).unwrap()
        assert fitted.trace.total_after == tokens(plain.content_text().unwrap(), encoding) + tokens(
            dynamic.content_text().unwrap(), encoding
        )
        assert fitted.working_set.retrievables == (plain, dynamic)


def test_hinted_handle_mode_costs_its_handle_text_and_unhinted_is_excluded() -> None:
    store = MemoryStore()
    body = "line of a very large log\n" * 200
    hinted = record("hinted", SpooledArtifact(store.write("hinted", body).unwrap(), len(body), 200), 0.1)
    unknown = record("unknown", SpooledArtifact(store.write("unknown", body).unwrap()), 1.0)
    assert (hinted.size_unknown, unknown.size_unknown) == (False, True)
    fitted = subtract_to_fit(WorkingSet(retrievables=(hinted, unknown)), 10_000).unwrap()
    assert fitted.working_set.retrievables == (hinted,)
    assert fitted.trace.buckets[0].ids == ("unknown",)
    assert fitted.trace.total_after == tokens(hinted.rendered_body().unwrap())
    assert fitted.trace.total_after < tokens(body)


def test_records_shed_lowest_score_first() -> None:
    records = tuple(record(f"r{i}", "some retrieved passage text " * 5, score=i / 10) for i in range(6))
    one = tokens(records[0].content_text().unwrap())
    fitted = subtract_to_fit(WorkingSet(retrievables=records), 3 * one, None, ThriftOptions(output_reserve=0)).unwrap()
    assert fitted.trace.buckets[5].ids == ("r0", "r1", "r2")
    assert fitted.working_set.retrievables == (records[5], records[4], records[3])
