"""A budget too small to answer is a tool error naming the smallest budget that answers, for
`read` as for `search` (tests/test_serve_stdio.py): exact (that budget answers, one token less
does not), and nothing is kept, so the same call comes again with it."""

from __future__ import annotations

import re
from pathlib import Path

from returns.result import Failure

from tests._serve_harness import build_index
from thrift_fp.serve import ReadRequest, SearchRequest, SessionLedger, SqliteBackend, answer_read, answer_search, serve_settings


def test_a_read_too_small_for_its_passage_names_the_smallest_budget_exactly(tmp_path: Path) -> None:
    settings = serve_settings().unwrap()
    backend = SqliteBackend(build_index(tmp_path), dense=False)
    ledger, found = answer_search(SessionLedger(), SearchRequest("walker gitignore parser", 400, settings.tiers), backend, settings)
    rows = found.unwrap().structured["passages"]
    assert isinstance(rows, list)
    shed = next(row["id"] for row in rows if not row["kept"])
    after, refused = answer_read(ledger, ReadRequest(shed, 10), backend, settings)
    assert isinstance(refused, Failure)
    said = re.fullmatch(
        r"read: a budget of 10 tokens cannot carry the safety directive and one passage; the smallest useful budget here is (\d+)",
        refused.failure().message,
    )
    assert said is not None, refused.failure().message
    smallest = int(said.group(1))
    assert after.tokens_used == ledger.tokens_used and after.delivered == ledger.delivered
    assert isinstance(answer_read(after, ReadRequest(shed, smallest - 1), backend, settings)[1], Failure)
    _, answered = answer_read(after, ReadRequest(shed, smallest), backend, settings)
    assert answered.unwrap().structured["cut"] is True and answered.unwrap().tokens <= smallest
