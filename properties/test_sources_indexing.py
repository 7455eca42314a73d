"""Property: updating an index incrementally gives the same passages as building it afresh."""

from __future__ import annotations

import os
import sqlite3
import tempfile
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from thrift_fp.sources import index_paths

_NAMES = st.sampled_from(["a.md", "b.txt", "sub/c.md", "sub/deep/d.txt"])
_WORDS = st.sampled_from(["budget", "shed", "score", "tier", "nonce", "quota", "window", "."])
_TEXTS = st.lists(st.one_of(_WORDS, st.just("\n\n")), min_size=1, max_size=40).map(" ".join)
# One edit step: a new text for some files, None deletes the file.
_STEPS = st.lists(st.dictionaries(_NAMES, st.none() | _TEXTS, min_size=1), min_size=1, max_size=3)
# Old, distinct modification times: files are never "racy", so the size+mtime path is exercised.
_BASE_NS = 1_600_000_000_000_000_000


def _passages(database: Path) -> list[tuple[str, str, str]]:
    connection = sqlite3.connect(database)
    try:
        # FTS5's own check that the full-text index matches the passages table.
        connection.execute("INSERT INTO passages_fts(passages_fts) VALUES ('integrity-check')")
        rows = connection.execute("SELECT passage_id, text, content_hash FROM passages ORDER BY passage_id")
        return [(str(a), str(b), str(c)) for a, b, c in rows]
    finally:
        connection.close()


@given(initial=st.dictionaries(_NAMES, _TEXTS), steps=_STEPS)
def test_incremental_update_equals_a_fresh_build(initial: dict[str, str], steps: list[dict[str, str | None]]) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / "docs"
        root.mkdir()
        incremental = Path(scratch) / "incremental.db"
        stages: list[dict[str, str | None]] = [dict(initial), *steps]
        for number, step in enumerate(stages):
            for name, text in step.items():
                path = root / name
                if text is None:
                    path.unlink(missing_ok=True)
                    continue
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text)
                stamp = _BASE_NS + number * 1_000_000_000
                os.utime(path, ns=(stamp, stamp))
            index_paths(incremental, [root], max_tokens=16).unwrap()
            fresh = Path(scratch) / f"fresh{number}.db"
            index_paths(fresh, [root], max_tokens=16).unwrap()
            assert _passages(incremental) == _passages(fresh)
