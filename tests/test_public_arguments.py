"""Arguments like Python: every public function that takes a path takes a ``str``, every one that
takes a collection takes a list, and a bare ``str`` where strings are expected is one item."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from thrift_fp.records import (
    MemoryStore,
    SpooledArtifact,
    from_snapshot,
    open_reader,
    parse_retrievable,
    spool_retrievables,
    to_snapshot,
)
from thrift_fp.render import fit_and_render, render_retrievables
from thrift_fp.retrieval import OperationContext, RetrievalState, run_retrieval
from thrift_fp.sources import assemble, fts5_definition, index_paths, search_index
from thrift_fp.thrift import (
    Message,
    Tool,
    WorkingSet,
    fit_async,
    group_history_into_turns,
    select_naive_turns,
    select_relevant_turns,
    subtract_to_fit,
)
from thrift_fp.thrift._relevance import turn_tokens
from thrift_fp.tokens import count_tokens_batch

NOW = datetime(2026, 1, 2, tzinfo=UTC)


@pytest.fixture
def index(tmp_path: Path) -> str:
    (tmp_path / "a.md").write_text("Shedding drops the lowest score first.")
    database = str(tmp_path / "i.db")
    index_paths(database, [str(tmp_path / "a.md")]).unwrap()
    return database


def test_index_paths_takes_str_paths_and_one_path_as_one_item(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("Budgets are tokens.")
    one = index_paths(str(tmp_path / "one.db"), str(tmp_path / "a.md")).unwrap()
    listed = index_paths(str(tmp_path / "list.db"), [str(tmp_path / "a.md")]).unwrap()
    assert one.chunked == listed.chunked == (str((tmp_path / "a.md").resolve()),)


def test_assemble_takes_a_str_database_and_a_bare_tier(index: str) -> None:
    bare = assemble("shedding", database=index, tiers="first-party").unwrap()
    listed = assemble("shedding", database=index, tiers=["first-party"]).unwrap()
    assert [d.record.id for d in bare.decisions] == [d.record.id for d in listed.decisions] == ["a.md#1"]
    # Not read letter by letter: the whole str is the tier named in the error.
    assert "trust tier 'internal'" in assemble("x", database=index, tiers="internal").failure().message
    assert assemble(["shedding", "score"], database=index).unwrap().receipts[1].sequence == 2


def test_search_and_definition_take_str_databases_and_bare_tiers(index: str) -> None:
    assert [h.passage_id for h in search_index(index, "shedding", tiers="first-party").unwrap()] == ["a.md#1"]
    assert search_index(index, "shedding", tiers="third-party-public").unwrap() == ()
    definition = fts5_definition(index, tiers=["first-party"])
    done = run_retrieval(definition, "shedding", OperationContext(None), RetrievalState())
    assert [hit.passage_id for hit in done.result.unwrap().sources] == ["a.md#1"]


def test_count_tokens_batch_takes_a_list_and_a_bare_str_is_one_text() -> None:
    assert count_tokens_batch(["hello world", ""]).unwrap() == count_tokens_batch(("hello world", "")).unwrap()
    assert len(count_tokens_batch("hello world").unwrap()) == 1


def _tools_set() -> WorkingSet:
    return WorkingSet(
        messages=(Message("m1", "search the docs", NOW, role="user"),),
        tools=(Tool("search", "find passages"), Tool("shell", "run a command")),
    )


def test_relevant_tool_names_take_a_list_and_a_bare_str_is_one_name() -> None:
    listed = subtract_to_fit(_tools_set(), 10_000, ["search"]).unwrap()
    bare = subtract_to_fit(_tools_set(), 10_000, "search").unwrap()
    assert listed.working_set.visible_tool_names == bare.working_set.visible_tool_names == frozenset({"search"})
    rendered = fit_and_render(_tools_set(), 10_000, "search").unwrap()
    assert rendered.working_set.visible_tool_names == frozenset({"search"})


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_fit_async_takes_a_list() -> None:
    import asyncio

    done = asyncio.run(fit_async(_tools_set(), 10_000, ["search"])).unwrap()
    assert done.working_set.visible_tool_names == frozenset({"search"})


def test_record_functions_take_lists() -> None:
    records = [parse_retrievable({"id": n, "content": f"text {n}", "trust_tier": "first-party",
                                  "created_at": NOW, "updated_at": NOW}).unwrap() for n in ("a", "b")]
    assert "text a" in render_retrievables(records).unwrap().text
    store = MemoryStore()
    spooled = spool_retrievables(records, store).unwrap()
    snapshot = to_snapshot(spooled[0]).unwrap()
    assert from_snapshot(snapshot, stores=[store]).unwrap() == spooled[0]
    content = spooled[0].content
    assert isinstance(content, SpooledArtifact)
    descriptor = content.reader.describe()
    assert descriptor is not None
    assert open_reader(descriptor, [store]).unwrap().read_all().unwrap() == "text a"


def test_relevance_functions_take_lists() -> None:
    history = [Message("u1", "budget question", NOW, role="user"), Message("a1", "an answer", NOW, role="assistant")]
    turns = list(group_history_into_turns(history))
    assert len(turn_tokens(turns).unwrap()) == len(turns) == 1
    assert select_naive_turns(turns, 1000).unwrap() == tuple(turns)
    assert select_relevant_turns(turns, "budget", 1000).unwrap() == tuple(turns)


def test_the_stores_take_a_str_or_any_path_like(tmp_path: Path) -> None:
    from thrift_fp.records import FolderStore, SqliteStore  # noqa: PLC0415

    assert FolderStore(tmp_path) == FolderStore(str(tmp_path))
    assert FolderStore(tmp_path).folder == str(tmp_path.resolve())
    for store in (FolderStore(tmp_path / "f"), SqliteStore(tmp_path / "s.db"), SqliteStore(str(tmp_path / "t.db"))):
        assert store.write("a", "x").unwrap().read_all().unwrap() == "x"


def test_select_files_takes_a_str_root_and_bare_str_patterns(tmp_path: Path) -> None:
    from thrift_fp.sources import select_files  # noqa: PLC0415

    (tmp_path / "a.md").write_text("x")
    (tmp_path / "b.txt").write_text("x")
    one = select_files(str(tmp_path), include="*.md").unwrap()
    listed = select_files([str(tmp_path)], include=["*.md"], exclude=[]).unwrap()
    assert [found.path.name for found in one.files] == [found.path.name for found in listed.files] == ["a.md"]
