"""One source contract, run against the SQLite FTS5 source and the PostgreSQL source alike."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
from returns.result import Failure, Result

from thrift_fp.records import TRUST_TIERS
from thrift_fp.retrieval import (
    BudgetExhausted,
    DuplicateQuery,
    InvalidQuery,
    OperationContext,
    RetrievalState,
    run_retrieval,
)
from thrift_fp.sources import (
    Assembled,
    FtsDefinition,
    Hit,
    IndexSettingsMismatch,
    InvalidChunkBound,
    InvalidTrustTier,
    PathNotFound,
    assemble,
    fts5_definition,
    hit_to_retrievable,
    index_paths,
    search_index,
)

OLD = 1_000_000_000.0  # a modification time far from "now": never racy


@dataclass(frozen=True, slots=True)
class Report:
    chunked: tuple[str, ...]
    touched: tuple[str, ...]
    unchanged: tuple[str, ...]
    removed: tuple[str, ...]
    passages: int


@dataclass(frozen=True, slots=True)
class Backend:
    """The four operations of a source, bound to one store."""

    name: str
    index: Callable[..., Result[Report, object]]
    search: Callable[..., Result[tuple[Hit, ...], object]]
    definition: Callable[..., FtsDefinition]
    assemble: Callable[..., Result[Assembled, object]]


def _report(raw: object) -> Report:
    return Report(
        getattr(raw, "chunked"), getattr(raw, "touched"), getattr(raw, "unchanged"),
        getattr(raw, "removed"), getattr(raw, "passages"),
    )


def _sqlite(folder: Path) -> Backend:
    database = folder / "index.db"

    def index(paths: Sequence[Path], **options: object) -> Result[Report, object]:
        return index_paths(database, paths, **options).map(_report)  # type: ignore[arg-type]  # test options

    def search(query: str, *, limit: int = 8, tiers: Iterable[str] = TRUST_TIERS) -> Result[tuple[Hit, ...], object]:
        return search_index(database, query, limit=limit, tiers=tiers)

    def definition(**options: object) -> FtsDefinition:
        return fts5_definition(database, **options)  # type: ignore[arg-type]  # test options

    def assemble_(query: str, **options: object) -> Result[Assembled, object]:
        return assemble(query, database=database, **options)  # type: ignore[arg-type]  # test options

    return Backend("sqlite", index, search, definition, assemble_)


def _postgres(url: str) -> Iterator[Backend]:
    from thrift_fp.sources import postgres

    with postgres.open_database(url, create=True).unwrap() as database:

        def index(paths: Sequence[Path], **options: object) -> Result[Report, object]:
            return postgres.index_paths(database, paths, **options).map(_report)  # type: ignore[arg-type]

        def search(
            query: str, *, limit: int = 8, tiers: Iterable[str] = TRUST_TIERS
        ) -> Result[tuple[Hit, ...], object]:
            return postgres.search_index(database, query, limit=limit, tiers=tiers)

        def definition(**options: object) -> FtsDefinition:
            return postgres.postgres_definition(database, **options)  # type: ignore[arg-type]

        def assemble_(query: str, **options: object) -> Result[Assembled, object]:
            return postgres.assemble(query, database=database, **options)  # type: ignore[arg-type]

        yield Backend("postgres", index, search, definition, assemble_)


@pytest.fixture(params=["sqlite", "postgres"])
def source(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    if request.param == "sqlite":
        yield _sqlite(tmp_path)
    else:
        yield from _postgres(request.getfixturevalue("pg_url"))


def _write(path: Path, text: str, mtime: float = OLD) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    os.utime(path, (mtime, mtime))
    return path


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    _write(root / "shedding.md", "# Shedding\n\nShedding drops the lowest score first when over budget.")
    _write(root / "tiers.md", "# Tiers\n\nTrust tiers come from the operator, never from the content.")
    _write(root / "budget.txt", "A budget is the context window minus the reserve for the answer.")
    return root


def test_index_then_search_returns_the_passage_with_its_fields(source: Backend, docs: Path) -> None:
    report = source.index([docs]).unwrap()
    assert len(report.chunked) == 3 and report.passages == 3
    hits = source.search("lowest score").unwrap()
    best = hits[0]
    assert best.passage_id == "docs/shedding.md#1"
    assert best.source == "docs/shedding.md" and best.path == str((docs / "shedding.md").resolve())
    assert best.kind == "markdown" and best.trust_tier == "first-party"
    assert "lowest score" in best.text and best.tokens > 0
    assert best.created_at.utcoffset() is not None and best.created_at.timestamp() == OLD
    assert hit_to_retrievable(best).unwrap().id == best.passage_id


def test_scores_lie_in_the_unit_interval_best_first(source: Backend, docs: Path) -> None:
    source.index([docs]).unwrap()
    hits = source.search("the budget score operator context").unwrap()
    assert len(hits) >= 2
    scores = [hit.score for hit in hits]
    assert all(0.0 <= score <= 1.0 for score in scores)
    assert scores == sorted(scores, reverse=True)


def test_an_unchanged_reindex_reads_nothing(source: Backend, docs: Path) -> None:
    first = source.index([docs]).unwrap()
    again = source.index([docs]).unwrap()
    assert again.chunked == () and again.touched == () and sorted(again.unchanged) == sorted(first.chunked)
    assert again.passages == first.passages


def test_a_changed_file_is_chunked_again_and_its_old_text_leaves(source: Backend, docs: Path) -> None:
    source.index([docs]).unwrap()
    _write(docs / "shedding.md", "# Shedding\n\nEviction removes memories by importance.", OLD + 10)
    report = source.index([docs]).unwrap()
    assert report.chunked == (str((docs / "shedding.md").resolve()),)
    assert [hit.passage_id for hit in source.search("eviction").unwrap()] == ["docs/shedding.md#1"]
    assert source.search("lowest").unwrap() == ()


def test_same_content_with_a_new_time_is_only_touched(source: Backend, docs: Path) -> None:
    source.index([docs]).unwrap()
    os.utime(docs / "tiers.md", (OLD + 50, OLD + 50))
    report = source.index([docs]).unwrap()
    assert report.touched == (str((docs / "tiers.md").resolve()),) and report.chunked == ()


def test_a_deleted_file_is_pruned(source: Backend, docs: Path) -> None:
    source.index([docs]).unwrap()
    (docs / "budget.txt").unlink()
    report = source.index([docs]).unwrap()
    assert report.removed == (str((docs / "budget.txt").resolve()),) and report.passages == 2
    assert source.search("reserve answer").unwrap() == ()


def test_each_passage_keeps_the_tier_its_run_gave_and_tiers_filter(source: Backend, tmp_path: Path) -> None:
    ours = _write(tmp_path / "ours.md", "Shedding policy, written by us.")
    theirs = _write(tmp_path / "theirs.md", "Shedding advice from a public forum.")
    source.index([ours], trust_tier="first-party").unwrap()
    source.index([theirs], trust_tier="third-party-public").unwrap()
    tiers = {hit.source: hit.trust_tier for hit in source.search("shedding").unwrap()}
    assert tiers == {"ours.md": "first-party", "theirs.md": "third-party-public"}
    only = source.search("shedding", tiers=["third-party-public"]).unwrap()
    assert [hit.source for hit in only] == ["theirs.md"]


def test_another_tier_chunks_an_unchanged_file_again(source: Backend, docs: Path) -> None:
    source.index([docs]).unwrap()
    report = source.index([docs / "tiers.md"], trust_tier="third-party-private").unwrap()
    assert report.chunked == (str((docs / "tiers.md").resolve()),)
    assert {hit.trust_tier for hit in source.search("operator").unwrap()} == {"third-party-private"}


def test_equal_content_is_one_hit(source: Backend, tmp_path: Path) -> None:
    _write(tmp_path / "a" / "note.md", "Identical guidance about shedding.")
    _write(tmp_path / "b" / "note.md", "Identical guidance about shedding.")
    source.index([tmp_path / "a", tmp_path / "b"]).unwrap()
    assert len(source.search("shedding guidance").unwrap()) == 1


def test_two_folders_of_one_name_keep_distinct_passage_ids(source: Backend, tmp_path: Path) -> None:
    _write(tmp_path / "a" / "docs" / "x.md", "Alpha shedding.")
    second = _write(tmp_path / "b" / "docs" / "x.md", "Beta shedding.")
    source.index([tmp_path / "a" / "docs"]).unwrap()
    source.index([tmp_path / "b" / "docs"]).unwrap()
    _write(second, "Beta shedding, edited.", OLD + 5)
    source.index([tmp_path / "b" / "docs"]).unwrap()
    ids = sorted(hit.passage_id for hit in source.search("shedding").unwrap())
    assert ids == sorted(["docs/x.md#1", f"{second.resolve()}#1"])


@pytest.mark.parametrize(
    "query",
    ['"AND (', "NEAR(x", "a & b | !c:*", "-shedding", "OR", "'; DROP TABLE x; --", "\\", "C++ node:fs", "*", ""],
)
def test_any_text_is_a_query_never_an_error(source: Backend, docs: Path, query: str) -> None:
    source.index([docs]).unwrap()
    assert isinstance(source.search(query).unwrap(), tuple)


def test_limit_bounds_the_hits(source: Backend, docs: Path) -> None:
    source.index([docs]).unwrap()
    assert len(source.search("the budget operator", limit=1).unwrap()) == 1
    assert source.search("the budget operator", limit=0).unwrap() == ()


def test_jsonl_records_become_passages(source: Backend, tmp_path: Path) -> None:
    rows = '{"id": "r1", "text": "Alpha shedding note."}\n{"id": "r2", "text": "Beta budget note."}\n'
    source.index([_write(tmp_path / "notes.jsonl", rows)]).unwrap()
    assert [hit.passage_id for hit in source.search("beta").unwrap()] == ["notes.jsonl#r2/1"]


def test_the_retrieval_lifecycle_applies(source: Backend, docs: Path) -> None:
    source.index([docs]).unwrap()
    search = source.definition(max_queries=2, max_results=2)
    context = OperationContext(None)
    first = run_retrieval(search, "Shedding", context, RetrievalState())
    assert first.result.unwrap().sources[0].passage_id == "docs/shedding.md#1"
    duplicate = run_retrieval(search, " shedding ", context, first.state)
    assert isinstance(duplicate.result.failure(), DuplicateQuery)
    empty = run_retrieval(search, ' " ', context, duplicate.state)
    assert isinstance(empty.result.failure(), InvalidQuery)
    second = run_retrieval(search, "operator", context, empty.state)
    assert second.result.unwrap().sequence == 2
    third = run_retrieval(search, "budget", context, second.state)
    assert isinstance(third.result.failure(), BudgetExhausted)


def test_assemble_renders_what_fits(source: Backend, docs: Path) -> None:
    source.index([docs]).unwrap()
    done = source.assemble("how does shedding work", context_window=2048).unwrap()
    assert "Shedding drops the lowest score first" in done.text and done.tokens <= done.budget
    assert done.decisions[0].record.id == "docs/shedding.md#1" and done.decisions[0].kept
    refused = source.assemble("shedding", tiers=["internal"])
    assert isinstance(refused.failure(), InvalidTrustTier)


def test_bad_index_arguments_are_error_values(source: Backend, docs: Path) -> None:
    assert isinstance(source.index([docs / "missing.md"]).failure(), PathNotFound)
    assert isinstance(source.index([docs], trust_tier="internal").failure(), InvalidTrustTier)
    assert isinstance(source.index([docs], max_tokens=1).failure(), InvalidChunkBound)
    unknown = source.index([docs], encoding="no-such-encoding")
    assert isinstance(unknown, Failure) and "no-such-encoding" in unknown.failure().message


def test_other_chunking_settings_are_refused(source: Backend, docs: Path) -> None:
    source.index([docs]).unwrap()
    mismatch = source.index([docs], max_tokens=128).failure()
    assert isinstance(mismatch, IndexSettingsMismatch) and mismatch.setting == "max_tokens"
