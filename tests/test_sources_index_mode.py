"""The index file's permissions: a new one follows the umask, an updated one keeps its mode.

Regression: the index was built in a `tempfile.mkstemp` file (always 0600) and renamed over
the target, so every `index` run made a shared index private to its owner.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from thrift_fp.sources import IndexReport, index_paths

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX permission bits")


@pytest.fixture
def umask_022() -> Iterator[None]:
    previous = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(previous)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_index_follows_the_umask(tmp_path: Path, umask_022: None) -> None:
    (tmp_path / "a.md").write_text("budget")
    index_paths(tmp_path / "index.db", [tmp_path / "a.md"]).unwrap()
    assert _mode(tmp_path / "index.db") == 0o644


def _updated(folder: Path, mode: int) -> tuple[IndexReport, Path]:
    """An index of one file, set to ``mode``, then updated with a second file: the update's report
    and the index."""
    (folder / "a.md").write_text("budget")
    database = folder / "index.db"
    index_paths(database, [folder / "a.md"]).unwrap()
    database.chmod(mode)
    (folder / "b.md").write_text("shedding")
    return index_paths(database, [folder / "a.md", folder / "b.md"]).unwrap(), database


def test_an_updated_index_keeps_its_mode(tmp_path: Path, umask_022: None) -> None:
    report, database = _updated(tmp_path, 0o664)
    assert report.chunked
    assert _mode(database) == 0o664


def test_a_read_only_index_can_still_be_updated_and_stays_read_only(tmp_path: Path, umask_022: None) -> None:
    report, database = _updated(tmp_path, 0o444)
    assert report.passages == 2
    assert _mode(database) == 0o444
