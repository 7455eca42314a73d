"""The default index is the nearest `thrift-fp.db` at or above the current folder."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from thrift_fp.cli._paths import DEFAULT_INDEX, chosen_corpus, nearest_index


@given(depth=st.integers(0, 6), holding=st.sets(st.integers(0, 6)))
def test_the_nearest_index_is_the_deepest_folder_holding_one(depth: int, holding: set[int]) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        folders = [Path(scratch).resolve() / "top"]
        for level in range(depth):
            folders.append(folders[-1] / f"level{level}")
        folders[-1].mkdir(parents=True)
        for level in holding & set(range(depth + 1)):
            (folders[level] / DEFAULT_INDEX).touch()
        # A folder by that name is not an index.
        (folders[0].parent / DEFAULT_INDEX).mkdir()
        found = nearest_index(folders[-1])
        below = sorted(holding & set(range(depth + 1)))
        assert found == (folders[below[-1]] / DEFAULT_INDEX if below else None)


@given(st.text(min_size=1).filter(lambda text: "\x00" not in text))
def test_a_given_database_is_used_as_given(db: str) -> None:
    assert chosen_corpus(db).database == db and chosen_corpus(db, creating=True).chosen == "given"
