"""Properties of the PostgreSQL source: passwords never shown, any text a query, scores in [0, 1],
and after any sequence of edits, an incremental PostgreSQL index holds what SQLite indexes afresh."""

from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from thrift_fp.sources import index_paths as sqlite_index_paths
from thrift_fp.sources.postgres._errors import redact
from thrift_fp.sources.postgres import PostgresDatabase, index_paths, open_database, search_index
from thrift_fp.sources.postgres._search import rank_to_score, search_terms

_LOWER = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=8)
# Every generated password starts with "Z9", which no lower-case user, host or database holds.
_PASSWORD = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=12).map(lambda s: "Z9" + s)


@settings(max_examples=30)
@given(user=_LOWER, password=_PASSWORD, host=_LOWER, dbname=_LOWER)
def test_a_url_password_is_never_shown(user: str, password: str, host: str, dbname: str) -> None:
    secret = quote(password, safe="")
    for url in (
        f"postgresql://{user}:{secret}@{host}/{dbname}",
        f"postgres://{user}:{secret}@{host}:5432/{dbname}?sslmode=require",
        f"postgresql://{user}@/{dbname}?host=/run/{host}&password={secret}",
    ):
        shown = redact(url)
        assert "Z9" not in shown and "***" in shown
        assert shown.startswith(url.split("://")[0]) and dbname in shown


@given(password=_PASSWORD.filter(lambda s: not any(c.isspace() or c in "'\\" for c in s)), dbname=_LOWER)
def test_a_keyword_password_is_never_shown(password: str, dbname: str) -> None:
    shown = redact(f"host=/run/pg password={password} dbname={dbname}")
    assert "Z9" not in shown and shown.endswith(f"dbname={dbname}")


@given(st.text())
def test_search_terms_carry_no_websearch_operator(query: str) -> None:
    # Each term is a run of letters and digits: no '-', 'or', quote or bracket of the user's can
    # act as an operator in any store, and every store's tokenizer reads it as one word.
    terms = search_terms(query)
    assert len(terms) == len(set(terms)) <= 64
    assert all(term and term.isalnum() and term == term.lower() for term in terms)


@given(st.floats(allow_nan=True), st.floats(allow_nan=True))
def test_scores_are_in_the_unit_interval_and_monotone(a: float, b: float) -> None:
    low, high = rank_to_score(a), rank_to_score(b)
    assert 0.0 <= low <= 1.0 and 0.0 <= high <= 1.0
    if a <= b and a == a:
        assert low <= high


@pytest.fixture(scope="module")
def database(pg_base_url: str) -> Iterator[PostgresDatabase]:
    with open_database(pg_base_url, create=True).unwrap() as opened:
        yield opened


@pytest.fixture(scope="module")
def corpus(database: PostgresDatabase, tmp_path_factory: pytest.TempPathFactory) -> str:
    root = tmp_path_factory.mktemp("corpus")
    (root / "a.md").write_text("Shedding drops the lowest score first. C++ and node:fs are names.")
    collection = f"props-{root.name}"
    index_paths(database, [root], collection=collection).unwrap()
    return collection


@settings(max_examples=40)
@given(query=st.text())
def test_any_text_searches_without_error(database: PostgresDatabase, corpus: str, query: str) -> None:
    hits = search_index(database, query, collection=corpus).unwrap()
    assert all(0.0 <= hit.score <= 1.0 for hit in hits)


_NAMES = st.sampled_from(["a.md", "b.md", "sub/c.txt", "sub/d.md", "e.txt"])
_WORDS = st.lists(st.sampled_from(["shed", "budget", "tier", "trust", "score", "window", "# Head"]), max_size=30)
_TEXT = _WORDS.map(lambda words: "\n\n".join(" ".join(words[i : i + 5]) for i in range(0, len(words), 5)))
_FOLDER = st.dictionaries(_NAMES, _TEXT, max_size=5)


def _write_folder(root: Path, files: dict[str, str], mtime: float) -> None:
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        os.utime(path, (mtime, mtime))


def _sqlite_passages(root: Path, workdir: Path) -> list[tuple[str, str, int]]:
    database = workdir / "fresh.db"
    database.unlink(missing_ok=True)
    sqlite_index_paths(database, [root], max_tokens=16).unwrap()
    with sqlite3.connect(database) as connection:
        rows = connection.execute("SELECT passage_id, content_hash, tokens FROM passages").fetchall()
    return sorted((str(a), str(b), int(c)) for a, b, c in rows)


def _postgres_passages(database: PostgresDatabase, collection: str) -> list[tuple[str, str, int]]:
    with database.pool.connection() as connection:
        rows = connection.execute(
            "SELECT passage_id, content_hash, tokens FROM thrift_fp_passages WHERE collection = %s", (collection,)
        ).fetchall()
    return sorted((str(a), str(b), int(str(c))) for a, b, c in rows)


@settings(max_examples=15)
@given(versions=st.lists(_FOLDER, min_size=1, max_size=3), batch_files=st.integers(1, 3))
def test_incremental_postgres_matches_a_fresh_sqlite_index(
    database: PostgresDatabase, versions: list[dict[str, str]], batch_files: int
) -> None:
    workdir = Path(tempfile.mkdtemp())
    root = workdir / "docs"
    collection = f"incremental-{workdir.name}"
    try:
        for step, files in enumerate(versions):
            # Distinct, old modification times: every edit is seen, none is racy.
            _write_folder(root, files, 1_000_000_000.0 + step)
            index_paths(database, [root], collection=collection, max_tokens=16, batch_files=batch_files).unwrap()
        assert _postgres_passages(database, collection) == _sqlite_passages(root, workdir)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
