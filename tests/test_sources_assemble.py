"""assemble: one call from query to rendered context, with the lifecycle's rules and one error value."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from thrift_fp.records import SqliteStore
from thrift_fp.render import KeyedNonce
from thrift_fp.retrieval import (
    BudgetExhausted,
    DuplicateQuery,
    InvalidQuery,
    OperationContext,
    RetrievalState,
    Unauthorized,
    run_retrieval,
)
from thrift_fp.sources import (
    CorruptDatabase,
    DatabaseMissing,
    SpoolPolicy,
    assemble,
    fts5_definition,
    index_paths,
)
from thrift_fp.thrift import ThriftOptions
from thrift_fp.tokens import count_tokens


@pytest.fixture
def database(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    for n in range(6):
        (docs / f"budget{n}.md").write_text(
            f"# Budget note {n}\n\n" + f"The budget shrinks by the reserve; note {n} explains why. " * (n + 2)
        )
    web = tmp_path / "web"
    web.mkdir()
    (web / "web.jsonl").write_text('{"id": "w1", "content": "A public page about the budget."}\n')
    db = tmp_path / "index.db"
    index_paths(db, [docs], max_tokens=64).unwrap()
    index_paths(db, [web], max_tokens=64, trust_tier="third-party-public").unwrap()
    return db


def test_the_rendered_context_fits_and_is_counted_exactly(database: Path) -> None:
    done = assemble("budget reserve", database=database, context_window=300, options=ThriftOptions(output_reserve=0)).unwrap()
    assert done.tokens == count_tokens(done.text).unwrap().tokens <= 300
    kept = [d for d in done.decisions if d.kept]
    shed = [d for d in done.decisions if not d.kept]
    assert kept and shed, "a small window keeps some and sheds others"
    assert all(d.reason for d in shed) and all(d.tokens > 0 for d in done.decisions)
    assert min(d.record.score or 0 for d in kept) >= max(d.record.score or 0 for d in shed)


def test_tiers_filter_and_keyed_nonces_render_identically(database: Path) -> None:
    key = KeyedNonce(bytes(range(32)))
    one = assemble("budget", database=database, tiers={"third-party-public"}, nonce=key).unwrap()
    two = assemble("budget", database=database, tiers={"third-party-public"}, nonce=key).unwrap()
    assert [d.record.id for d in one.decisions] == ["web/web.jsonl#w1/1"]
    assert one.text == two.text and "A public page about the budget." in one.text


def test_quota_duplicates_and_empty_queries_are_lifecycle_errors(database: Path) -> None:
    first = assemble(["budget", "reserve"], database=database, max_queries=2).unwrap()
    assert [r.sequence for r in first.receipts] == [1, 2] and first.state.query_count == 2
    over = assemble("note", database=database, state=first.state, max_queries=2).failure()
    assert isinstance(over, BudgetExhausted)
    assert isinstance(assemble("  BUDGET ", database=database, state=first.state).failure(), DuplicateQuery)
    assert isinstance(assemble("?!", database=database).failure(), InvalidQuery)


def test_an_unauthorized_query_is_refused(database: Path) -> None:
    def only_budget(query: str, context: OperationContext[object]) -> None:
        if "secret" in query:
            raise PermissionError("secrets are off limits")

    refused = assemble("secret budget", database=database, authorize=only_budget).failure()
    assert isinstance(refused, Unauthorized) and "secrets are off limits" in refused.message
    assert assemble("budget", database=database, authorize=only_budget).unwrap().receipts


def test_store_failures_surface_as_the_source_error(database: Path, tmp_path: Path) -> None:
    junk = tmp_path / "junk.db"
    junk.write_bytes(os.urandom(4096))
    assert isinstance(assemble("budget", database=junk).failure(), CorruptDatabase)
    assert isinstance(assemble("budget", database=tmp_path / "none.db").failure(), DatabaseMissing)
    # Through the lifecycle directly: the key stays reserved after the failed read.
    outcome = run_retrieval(fts5_definition(junk), "budget", OperationContext(None), RetrievalState())
    assert outcome.state.seen == frozenset({'"budget"'}) and outcome.state.query_count == 0


def test_large_passages_can_be_spooled_into_the_sqlite_store(database: Path, tmp_path: Path) -> None:
    store = SqliteStore(str(tmp_path / "spool.db"))
    done = assemble("budget", database=database, spool=SpoolPolicy(store, min_tokens=40)).unwrap()
    spooled = [d.record for d in done.decisions if d.record.handle_mode]
    assert spooled, "long passages are spooled"
    body = spooled[0].content_text().unwrap()
    assert "budget" in body.lower() and "[spooled artifact" in done.text
