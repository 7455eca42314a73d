"""The server's logic over PostgreSQL (in process): the same answers, de-duplication and
surroundings as over an index file."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests._serve_harness import DOCUMENTS, counted, envelopes, notes
from thrift_fp.serve import ReadRequest, SearchRequest, SessionLedger, answer_read, answer_search, serve_settings
from thrift_fp.serve._postgres import PostgresBackend, open_postgres_backend
from thrift_fp.serve._tools import tool_list
from thrift_fp.sources import postgres


@pytest.fixture
def backend(pg_url: str, tmp_path: Path) -> Iterator[PostgresBackend]:
    for name, text in DOCUMENTS.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    with postgres.open_database(pg_url, create=True).unwrap() as database:
        postgres.index_paths(database, [tmp_path]).unwrap()
    opened = open_postgres_backend(pg_url).unwrap()
    yield opened
    opened.database.close()


def test_search_then_read_with_surroundings_over_postgres(backend: PostgresBackend) -> None:
    settings = serve_settings().unwrap()
    # 150 tokens keep handles.md's short passage and shed walk.md's long one (retrieved, not sent).
    question = SearchRequest("gitignore patterns spooled artifacts", 150, settings.tiers)
    ledger, found = answer_search(SessionLedger(), question, backend, settings)
    passages = found.unwrap().structured["passages"]
    assert isinstance(passages, list)
    [row] = [row for row in passages if not row["kept"]]
    ledger, read = answer_read(ledger, ReadRequest(str(row["id"]), 1000), backend, settings)
    text = read.unwrap().text
    assert counted(text) <= 1000 and len(envelopes(text)) == 3
    surroundings = read.unwrap().structured["surroundings"]
    assert isinstance(surroundings, list) and len(surroundings) == 2
    ledger, again = answer_search(ledger, SearchRequest("walker lists folders", 2000, settings.tiers), backend, settings)
    assert notes(again.unwrap().text).startswith("Already sent earlier in this session, not repeated: ")
    assert 'walk.md#1" (answer 2)' in notes(again.unwrap().text)


def test_the_tools_and_instructions_name_the_collection_never_the_database_address(backend: PostgresBackend, pg_url: str) -> None:
    from thrift_fp.serve import build_server  # noqa: PLC0415

    server = build_server(backend, serve_settings().unwrap())
    described = " ".join(
        [server.instructions or "", *(tool.description or "" for tool in tool_list(serve_settings().unwrap(), backend.describe()))]
    )
    assert f"the collection {backend.collection!r}" in described, described
    for leak in ("postgresql", "host=", "@", "thrift_fp_test", pg_url):
        assert leak not in described, leak
