"""Indexing input that Python or SQLite cannot take as text: error values, never exceptions.

Regressions: each of these used to raise out of ``index_paths`` (``thrift-fp`` printed an
"internal error", exit 70).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from returns.result import Failure

from thrift_fp.sources import (
    CorruptDatabase,
    IndexProblems,
    InvalidJsonlRecord,
    UnreadableFile,
    index_paths,
    search_index,
)
from thrift_fp.sources.documents._documents import MAX_JSONL_DEPTH


@pytest.mark.skipif(sys.platform != "linux", reason="needs a filesystem that allows non-UTF-8 file names")
def test_a_file_name_that_is_not_utf8_is_an_error_value(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    (root / "fine.md").write_text("budget")
    os.close(os.open(os.fsencode(root) + b"/latin\xe9.md", os.O_CREAT | os.O_WRONLY))
    # The file is skipped with its reason, the rest indexed (a strict run writes nothing).
    strict = index_paths(tmp_path / "index.db", [root], strict=True)
    assert isinstance(strict, Failure) and list(tmp_path.iterdir()) == [root], "no database, no temporary file"
    (skipped,) = index_paths(tmp_path / "index.db", [root]).unwrap().skipped
    assert isinstance(skipped.error, UnreadableFile)
    assert "not valid UTF-8" in skipped.message and "latin" in skipped.message
    assert [h.passage_id for h in search_index(tmp_path / "index.db", "budget").unwrap()] == ["docs/fine.md#1"]


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ('{"id": "a", "text": "x \\ud800 y"}', "lone surrogate"),
        ('{"id": "\\udfff", "text": "x"}', "lone surrogate"),
        ('{"id": "a", "text": "x", "metadata": {"\\ud800": 1}}', "lone surrogate"),
        ('{"id": "a", "text": "x", "metadata": {"deep": ' + "[" * 100_000 + "]" * 100_000 + "}}", "nested too deeply"),
        # Deep enough to decode here, too deep to decode again deeper in a search's call stack.
        ('{"id": "a", "text": "x", "metadata": {"deep": ' + "[" * 900 + "]" * 900 + "}}", "nested too deeply"),
        ('{"id": "a", "text": "x", "metadata": {"n": ' + "1" * 5000 + "}}", "digits"),
    ],
    ids=["surrogate-text", "surrogate-id", "surrogate-metadata-key", "deep-nesting", "nesting-900", "huge-integer"],
)
def test_jsonl_text_python_cannot_hold_is_an_invalid_record(tmp_path: Path, line: str, reason: str) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    (root / "records.jsonl").write_text('{"id": "ok", "text": "fine"}\n' + line + "\n", encoding="utf-8")
    result = index_paths(tmp_path / "index.db", [root], strict=True)
    assert isinstance(result, Failure) and isinstance(result.failure(), IndexProblems), result
    (skipped,) = result.failure().skipped
    assert isinstance(skipped.error, InvalidJsonlRecord)
    assert "line 2" in skipped.message and reason in skipped.message, skipped.message
    assert list(tmp_path.iterdir()) == [root]


def test_a_surrogate_pair_escape_in_jsonl_is_ordinary_text(tmp_path: Path) -> None:
    (tmp_path / "records.jsonl").write_text('{"id": "a", "text": "smile \\ud83d\\ude00"}\n', encoding="utf-8")
    assert index_paths(tmp_path / "index.db", [tmp_path / "records.jsonl"]).unwrap().passages == 1


def test_a_folder_named_as_the_database_is_a_clear_error_value(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("budget")
    folder = tmp_path / "index.db"
    folder.mkdir()
    # Was "could not write the index ...: disk I/O error" and "no index at ...; build one first".
    for failure in (index_paths(folder, [tmp_path / "a.md"]).failure(), search_index(folder, "budget").failure()):
        assert isinstance(failure, CorruptDatabase), failure
        assert failure.message == f"{folder} is not a usable thrift_fp index: it is a folder, not an index file"
    assert list(folder.iterdir()) == [] and sorted(p.name for p in tmp_path.iterdir()) == ["a.md", "index.db"]


def test_a_modification_time_past_2262_is_indexed(tmp_path: Path) -> None:
    # Nanoseconds since 1970 overflow SQLite's 64-bit INTEGER after 2262-04-11; ext4 goes to 2446.
    note = tmp_path / "future.md"
    note.write_text("budget")
    os.utime(note, ns=(0, 2**63 + 10**18))
    if note.stat().st_mtime_ns <= 2**63 - 1:
        pytest.skip("this filesystem cannot store a modification time past 2262")
    assert index_paths(tmp_path / "index.db", [note]).unwrap().passages == 1
    again = index_paths(tmp_path / "index.db", [note]).unwrap()
    assert again.passages == 1 and again.chunked == ()
    (hit,) = search_index(tmp_path / "index.db", "budget").unwrap()
    assert hit.created_at.year == 2262


def test_metadata_nested_to_the_limit_is_indexed_and_searchable(tmp_path: Path) -> None:
    deep = "[" * (MAX_JSONL_DEPTH - 2) + "]" * (MAX_JSONL_DEPTH - 2)  # the record and metadata are 2 levels
    (tmp_path / "r.jsonl").write_text('{"id": "a", "text": "budget", "metadata": {"deep": ' + deep + "}}\n")
    index_paths(tmp_path / "index.db", [tmp_path / "r.jsonl"]).unwrap()
    (hit,) = search_index(tmp_path / "index.db", "budget").unwrap()
    assert hit.metadata["record_id"] == "a"
