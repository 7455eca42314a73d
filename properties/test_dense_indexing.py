"""Properties of embedding at index time: a run embeds exactly the passage inputs the index did not
hold, once each, and afterwards holds one vector for every input and no other."""

from __future__ import annotations

import json
import os
import sqlite3
import tempfile
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from tests._dense_model import CountingEmbedder, passages_seen, probes_seen
from thrift_fp.sources import index_paths
from thrift_fp.sources.dense import probe_questions
from thrift_fp.sources.dense._vectors import embedding_input

words = st.sampled_from(["budget", "shed", "token", "score", "window", "reserve", "folder", "refill"])
paragraphs = st.lists(words, min_size=1, max_size=6).map(" ".join)
documents = st.lists(paragraphs, min_size=1, max_size=4).map(lambda parts: "\n\n".join(parts) + "\n")
folders = st.dictionaries(st.sampled_from(["a.md", "b.md", "c.md", "d.txt"]), documents, min_size=1, max_size=4)


def _write(root: Path, files: dict[str, str]) -> None:
    for path in root.iterdir():
        if path.name not in files:
            path.unlink()
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
        os.utime(root / name, (1e9, 1e9))


def _inputs(database: Path) -> set[str]:
    connection = sqlite3.connect(database)
    try:
        return {
            embedding_input(" › ".join(json.loads(metadata).get("heading_path", [])), text)
            for metadata, text in connection.execute("SELECT metadata, text FROM passages")
        }
    finally:
        connection.close()


def _vectors(database: Path) -> int:
    connection = sqlite3.connect(database)
    try:
        return int(connection.execute("SELECT count(*) FROM dense_vectors").fetchone()[0])
    finally:
        connection.close()


@given(folders, folders)
def test_a_run_embeds_exactly_the_inputs_the_index_lacked(before: dict[str, str], after: dict[str, str]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root, database = Path(folder) / "docs", Path(folder) / "i.db"
        root.mkdir()
        embedder = CountingEmbedder()
        _write(root, before)
        index_paths(database, [root], dense=embedder, max_tokens=16).unwrap()
        held = _inputs(database)
        assert sorted(passages_seen(embedder)) == sorted(held)  # each input once
        assert probes_seen(embedder) == list(probe_questions())  # then the floor, calibrated once
        embedder.seen.clear()
        _write(root, after)
        report = index_paths(database, [root], dense=embedder, max_tokens=16).unwrap()
        now = _inputs(database)
        assert sorted(passages_seen(embedder)) == sorted(now - held)
        assert report.embedded == len(now - held)
        # The floor is measured again exactly when the run changed passages (a rename too: a
        # passage's path is part of what its lexical score reads).
        changed = bool(report.chunked or report.removed)
        assert probes_seen(embedder) == (list(probe_questions()) if changed else [])
        assert _vectors(database) == len(now)


class _Interrupted(BaseException):
    """Stands in for Ctrl-C (not an ``Exception``: it is not turned into an error value)."""


@given(folders, st.integers(min_value=0, max_value=6))
def test_an_interrupted_embedding_keeps_its_batches_and_the_next_run_embeds_only_the_rest(
    files: dict[str, str], batches: int
) -> None:
    from unittest import mock

    with tempfile.TemporaryDirectory() as folder, mock.patch("thrift_fp.sources.dense._vectors.EMBED_CHUNK", 1):
        root, database = Path(folder) / "docs", Path(folder) / "i.db"
        root.mkdir()
        _write(root, files)
        first = CountingEmbedder()
        real = first.embed

        def embed_then_stop(texts: list[str]) -> list[bytes]:
            # Interrupts the passages' embedding; the probes of the calibration after it run.
            if len(passages_seen(first)) >= batches and not set(texts) <= set(probe_questions()):
                raise _Interrupted
            return real(texts)

        first.embed = embed_then_stop  # type: ignore[method-assign, assignment]  # the interruption under test
        try:
            outcome = index_paths(database, [root], dense=first, max_tokens=16).unwrap().embedded
        except _Interrupted:
            outcome = -1
        inputs = _inputs(database)  # the passages are committed whatever happened to the vectors
        kept = min(batches, len(inputs))
        assert outcome == (len(inputs) if batches >= len(inputs) else -1)
        assert _vectors(database) == kept
        second = CountingEmbedder()
        report = index_paths(database, [root], dense=second, max_tokens=16).unwrap()
        assert sorted(passages_seen(first) + passages_seen(second)) == sorted(inputs)  # each input once in all
        assert probes_seen(first) + probes_seen(second) == list(probe_questions())  # calibrated once, when complete
        assert report.embedded == len(inputs) - kept and _vectors(database) == len(inputs)
