"""Indexing unchanged files again under another trust tier re-tiers them.

Regression: the incremental check looked at size, modification time and hash only, so
`thrift-fp index docs --tier third-party-private` over an index that held `docs` as
first-party reported the files "unchanged" and kept rendering them as trusted first-party
content, while a file edited in between took the new tier: one run, two tiers.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from thrift_fp.sources import index_paths, search_index


def _old_file(path: Path, text: str) -> None:
    path.write_text(text)
    hour_ago = time.time_ns() - 3_600_000_000_000
    os.utime(path, ns=(hour_ago, hour_ago))


def _tiers(database: Path) -> dict[str, str]:
    return {hit.passage_id: hit.trust_tier for hit in search_index(database, "budget").unwrap()}


def test_a_new_tier_applies_to_unchanged_files(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    _old_file(docs / "a.md", "budget one")
    _old_file(docs / "b.jsonl", '{"id": "r", "text": "budget two"}\n{"id": "s", "content": "budget three"}\n')
    database = tmp_path / "index.db"
    index_paths(database, [docs]).unwrap()
    report = index_paths(database, [docs], trust_tier="third-party-private").unwrap()
    assert len(report.chunked) == 2 and report.unchanged == ()
    assert _tiers(database) == {
        "docs/a.md#1": "third-party-private",
        "docs/b.jsonl#r/1": "third-party-private",
        "docs/b.jsonl#s/1": "third-party-private",  # a record never chooses its own tier
    }
    again = index_paths(database, [docs], trust_tier="third-party-private").unwrap()
    assert len(again.unchanged) == 2 and again.chunked == ()
