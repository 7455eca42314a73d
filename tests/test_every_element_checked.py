"""Regressions: a wrongly typed element inside a list is an error value every time.

beartype checks one sampled element of a list, so before ``Each[T]`` (thrift_fp._args) a bad
element raised a beartype violation only when the draw hit it. Fifty calls make a draw that
hits it all but certain, so each test fails on the old annotations.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace

from returns.result import Failure

from thrift_fp.records import MemoryStore, ReaderDescriptor, open_reader, parse_retrievable, spool_retrievables
from thrift_fp.render import NotRenderable, fit_and_render, render_retrievables
from thrift_fp.retrieval import OperationContext, RetrievalState, run_retrieval
from thrift_fp.sources import (
    InvalidArgument,
    InvalidTrustTier,
    assemble,
    embedded_corpus,
    fts5_definition,
    index_paths,
    search_index,
    select_files,
)
from thrift_fp.thrift import MalformedItem, Message, Tool, WorkingSet, group_history_into_turns, subtract_to_fit
from thrift_fp.thrift._relevance import turn_tokens
from thrift_fp.tokens import NotText, TokenCounts, count_tokens_batch, get_encoding

_CALLS = 50
_RECORD = parse_retrievable(
    {"id": "d", "content": "x", "trust_tier": "first-party", "created_at": 0, "updated_at": 0}
).unwrap()
_TOOLS = WorkingSet(tools=(Tool("search", "Search."),))


def test_a_non_record_among_records_to_spool() -> None:
    for _ in range(_CALLS):
        failed = spool_retrievables([_RECORD, "d", _RECORD], MemoryStore())  # type: ignore[list-item]  # on purpose
        assert isinstance(failed, Failure) and "records[1]: expected a Retrievable, got str" in failed.failure().message


def test_a_non_store_among_the_stores_of_a_snapshot() -> None:
    for _ in range(_CALLS):
        failed = open_reader(ReaderDescriptor("memory", "m", "x"), [MemoryStore(), object()])  # type: ignore[list-item]  # on purpose
        assert isinstance(failed, Failure) and "stores[1] is a object, not a ByteStore" in failed.failure().message


def test_a_non_str_among_the_relevant_tool_names() -> None:
    for _ in range(_CALLS):
        for fit in (subtract_to_fit, fit_and_render):
            failed = fit(_TOOLS, 100, ["search", 3])  # type: ignore[list-item]  # on purpose
            assert isinstance(failed, Failure) and "relevant_tool_names[1]" in failed.failure().message


def test_a_non_record_among_records_to_render() -> None:
    for _ in range(_CALLS):
        failed = render_retrievables([_RECORD, "d"])  # type: ignore[list-item]  # on purpose
        assert isinstance(failed, Failure)
        assert failed.failure() == NotRenderable(1, "str", "records")
        assert failed.failure().message.startswith("records[1] is a str, not a Retrievable")


def test_a_non_str_among_texts_to_count() -> None:
    encoding = get_encoding("cl100k_base").unwrap()
    for _ in range(_CALLS):
        for failed in (
            count_tokens_batch(["a", "b", 3]),  # type: ignore[list-item]  # on purpose
            encoding.count_many(["a", b"b"]),  # type: ignore[list-item]  # on purpose
            TokenCounts().count_many(encoding, [None, "a"]),  # type: ignore[list-item]  # on purpose
        ):
            assert isinstance(failed, Failure) and isinstance(failed.failure(), NotText)
    assert count_tokens_batch(["a", 3]).failure().message == "texts[1] is a int, not a str"  # type: ignore[list-item]  # on purpose


def test_a_non_path_or_non_pattern_among_index_arguments(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A\n\nhello\n")
    database = tmp_path / "i.db"
    for _ in range(_CALLS):
        for failed, parameter in (
            (index_paths(database, [tmp_path, 3]), "roots[1]"),  # type: ignore[list-item]  # on purpose
            (index_paths(database, [tmp_path], include=["*.md", 3]), "include[1]"),  # type: ignore[list-item]  # on purpose
            (index_paths(database, [tmp_path], exclude=["x", None]), "exclude[1]"),  # type: ignore[list-item]  # on purpose
            (select_files([str(tmp_path), b"/tmp"]), "roots[1]"),  # type: ignore[list-item]  # on purpose
        ):
            assert isinstance(failed, Failure) and isinstance(failed.failure(), InvalidArgument)
            assert failed.failure().message.startswith(parameter), failed.failure().message
    assert not database.exists()  # refused before anything was written


def test_a_pattern_pathspec_refuses_is_an_error_value(tmp_path: Path) -> None:
    failed = index_paths(tmp_path / "i.db", [tmp_path], exclude=["build/", "!"])
    assert failed.failure() == InvalidArgument(
        "exclude", 1, "!", "a gitignore-style pattern (Invalid git pattern: '!')"
    )


def test_one_pattern_as_a_str_is_one_pattern(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A\n\nhello\n")
    (tmp_path / "b.txt").write_text("hello\n")
    report = index_paths(tmp_path / "i.db", tmp_path, include="*.md").unwrap()
    assert [Path(path).name for path in report.chunked] == ["a.md"]


def test_a_non_tier_among_tiers_is_an_error_value() -> None:
    corpus = embedded_corpus()
    for _ in range(_CALLS):
        for failed in (
            search_index(corpus, "budget", tiers=["first-party", 3]),  # type: ignore[list-item]  # on purpose
            assemble("budget", database=corpus, tiers=["first-party", []]),  # type: ignore[list-item]  # on purpose
        ):
            assert isinstance(failed, Failure) and isinstance(failed.failure(), InvalidTrustTier)
    unhashable = fts5_definition(corpus, tiers=["first-party", []])  # type: ignore[list-item]  # on purpose
    outcome = run_retrieval(unhashable, "budget", OperationContext(None), RetrievalState())
    assert isinstance(outcome.result, Failure)
    assert "trust tier [] is not one of" in outcome.result.failure().message


def test_a_malformed_item_in_a_working_set_is_an_error_value() -> None:
    at = datetime(2026, 1, 1, tzinfo=UTC)
    good = Message("a", "hello", at, role="user")
    for _ in range(_CALLS):
        failed = subtract_to_fit(WorkingSet(messages=(good, 3, good)), 100)  # type: ignore[arg-type]  # on purpose
        assert failed.failure() == MalformedItem(
            "messages", 1, "int", "id", "AttributeError: 'int' object has no attribute 'id'"
        )
        turns = group_history_into_turns([good, object()])  # type: ignore[list-item]  # on purpose
        assert isinstance(turn_tokens(turns).failure(), MalformedItem)
    no_content = SimpleNamespace(id="m", created_at=at)
    failed = subtract_to_fit(WorkingSet(messages=(no_content,)), 100)
    assert failed.failure().message == (
        "messages[0] (a SimpleNamespace) has no usable content:"
        " AttributeError: 'types.SimpleNamespace' object has no attribute 'content'"
    )


def test_a_non_document_among_documents_to_records() -> None:
    from thrift_fp.adapters._core import DocumentRow, documents_to_records, read_documents

    for _ in range(_CALLS):
        failed = read_documents([{"content": "x"}, 3])
        assert failed.failure().message == "documents[1].(document): expected a mapping or a Retrievable, got 3"
        stray = documents_to_records([DocumentRow("x", score=2.0), DocumentRow("y", score="x")])
        assert stray.failure().message == "documents[1].score: expected a finite number or None, got 'x'"


def test_an_index_bound_past_any_passage_is_clamped_not_a_crash(tmp_path: Path) -> None:
    # Found by the nightly hostile run: str() of a 4301-digit bound raised while storing settings.
    (tmp_path / "a.md").write_text("# Budget\n\nShed the lowest score first.\n")
    os.utime(tmp_path / "a.md", (1e9, 1e9))  # an old file: not modified while being indexed
    report = index_paths(tmp_path / "i.db", [tmp_path], max_tokens=10**4300).unwrap()
    assert report.passages == 1
    again = index_paths(tmp_path / "i.db", [tmp_path], max_tokens=2**64).unwrap()  # the same bound
    assert again.unchanged == report.chunked
