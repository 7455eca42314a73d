"""Queries: technical tokens survive, stop words do not decide, scores mean something."""

from __future__ import annotations

from pathlib import Path

import pytest

from thrift_fp.sources import index_paths, search_index
from thrift_fp.sources.ranking import query_terms


@pytest.fixture
def database(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    notes = {
        "cpp.md": "# C++ bindings\n\nWrite addons in C++ with node-gyp.",
        "c.md": "# C API\n\nThe C API is stable across versions of C.",
        "fs.md": "# node:fs\n\nImport the module as node:fs to read files.",
        "node.md": "# Node\n\nNode runs JavaScript. The fs object is not global here; node is a runtime.",
        "snake.md": "# snake_case\n\nOption names use snake_case in CMake.",
        "case.md": "# Case study\n\nA snake appears in this case study about something else.",
        "read.md": "# fsPromises.readFile(path)\n\nReads the entire contents of a file.",
        "other.md": "# Promises\n\nPromises of fs are many; readFile is mentioned in passing here.",
        "stop.md": "# Words\n\nWhat is the thing that we do with this and that, when there is the one?",
        "budget.md": "# Budget\n\nThe context budget is the window minus the reserve.",
    }
    for name, text in notes.items():
        (docs / name).write_text(text)
    db = tmp_path / "i.db"
    index_paths(db, [docs]).unwrap()
    return db


def _top(database: Path, query: str) -> str:
    return search_index(database, query).unwrap()[0].source


@pytest.mark.parametrize(
    ("query", "best"),
    [
        ("How do I write C++ addons?", "docs/cpp.md"),
        ("what is the C API", "docs/c.md"),
        ("import node:fs", "docs/fs.md"),
        ("snake_case options", "docs/snake.md"),
        ("fsPromises.readFile", "docs/read.md"),
        ("what is the budget when there is the window", "docs/budget.md"),
    ],
)
def test_technical_tokens_and_content_words_decide_the_ranking(database: Path, query: str, best: str) -> None:
    assert _top(database, query) == best


def test_cpp_is_not_searched_as_c(database: Path) -> None:
    assert [hit.source for hit in search_index(database, "C++").unwrap()] == ["docs/cpp.md"]


def test_query_terms_keep_technical_tokens_and_drop_stop_words() -> None:
    assert query_terms("how do I use target_link_libraries with C++ and http.createServer?") == (
        '"target link libraries"', '"target"', '"link"', '"libraries"', '"C++"', '"http createServer"',
        '"http"', '"createServer"',
    )


def test_scores_spread_with_the_strength_of_the_match(database: Path) -> None:
    strong = search_index(database, "fsPromises.readFile").unwrap()
    assert strong[0].source == "docs/read.md" and strong[0].score > 0.5
    # other.md names every part of fsPromises.readFile but never the name itself: it counts as
    # evidence (the parts are real words), clearly below the passage that names it exactly.
    weak = [hit for hit in strong if hit.source == "docs/other.md"]
    assert weak and weak[0].score < strong[0].score * 0.6
    # A passage that shares only a common word with the question scores near zero.
    common = search_index(database, "the budget").unwrap()
    assert common[0].source == "docs/budget.md"
    assert all(hit.score < 0.2 for hit in common[1:])
