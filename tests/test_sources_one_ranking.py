"""One ranking on both stores: the same corpus and question give the same top 10 in SQLite and
PostgreSQL, and words in the headings a whole family shares do not decide alone."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from thrift_fp.sources import index_paths, search_index

_QUESTIONS = [
    "how do I read a file with promises",
    "register a test program so that ctest runs it",
    "budget tokens shed",
    "C++ addons",
    "fs.readFile options",
    "option 3 waits",
]


def _corpus(root: Path) -> Path:
    docs = root / "docs"
    docs.mkdir()
    for n in range(12):
        (docs / f"ctest{n}.md").write_text(
            f"# ctest(1)\n\n## Option {n}\n\nOption {n} runs the test programs again when they fail, and waits "
            f"for item {n}.\n"
        )
    (docs / "add_test.md").write_text(
        "# add_test\n\nAdd a test to the project, so that ctest runs the test program with its arguments.\n"
    )
    (docs / "fs.md").write_text(
        "# fs\n\n## Promises API\n\n### fsPromises.readFile(path, options)\n\nReads the entire contents of a file "
        "and resolves a promise with them.\n\n### fsPromises.writeFile(file, data)\n\nWrites data to a file.\n"
    )
    (docs / "cpp.md").write_text("# C++ addons\n\nAddons are dynamically linked shared objects written in C++.\n")
    (docs / "budget.md").write_text("# Budget\n\nShedding drops the lowest score first until the tokens fit the budget.\n")
    for n in range(30):
        (docs / f"note{n}.txt").write_text(f"Note {n}: a file of tokens, tests and promises number {n}.\n" * (1 + n % 4))
    return docs


def test_heading_words_a_family_shares_do_not_outrank_the_passage_that_answers(tmp_path: Path) -> None:
    docs = _corpus(tmp_path)
    index_paths(tmp_path / "i.db", [docs]).unwrap()
    hits = search_index(tmp_path / "i.db", "register a test program so that ctest runs it").unwrap()
    assert hits[0].source == "docs/add_test.md", [hit.source for hit in hits]


@pytest.mark.skipif("THRIFT_FP_TEST_PG_URL" not in os.environ, reason="needs THRIFT_FP_TEST_PG_URL")
def test_sqlite_and_postgresql_give_the_same_top_ten(pg_url: str, tmp_path: Path) -> None:
    from thrift_fp.sources import postgres  # noqa: PLC0415 - the postgres extra

    docs = _corpus(tmp_path)
    index_paths(tmp_path / "i.db", [docs]).unwrap()
    with postgres.open_database(pg_url, create=True).unwrap() as database:
        postgres.index_paths(database, [docs], batch_files=7).unwrap()
        for question in _QUESTIONS:
            lite = search_index(tmp_path / "i.db", question, limit=10).unwrap()
            pg = postgres.search_index(database, question, limit=10).unwrap()
            assert [(h.passage_id, h.score) for h in lite] == [(h.passage_id, h.score) for h in pg], question
            assert lite, question
