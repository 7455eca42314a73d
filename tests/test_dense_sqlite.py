"""Hybrid ranking over an SQLite index: vectors stored beside the passages, only new or changed
passages embedded, the fused search, and lexical ranking (with its reason) whenever dense cannot run."""

from __future__ import annotations

import os
import sqlite3
import struct
from collections.abc import Sequence
from pathlib import Path

import pytest

from tests._dense_model import (
    CountingEmbedder, onnxruntime_missing, passages_seen, probes_seen, write_dense_docs, write_tiny_model,
)
from thrift_fp.sources import index_paths, search_index, search_ranking
from thrift_fp.sources.dense import EmbeddingFailed, load_onnx_embedder, missing_runtime, probe_questions
from thrift_fp.sources.dense._hybrid import MATCH_FLOOR, MATCH_RULE
from thrift_fp.sources.dense._probes import FLOOR_CAP
from thrift_fp.sources.dense._vectors import embedding_input

pytestmark = pytest.mark.skipif(missing_runtime() is not None, reason="the [dense] extra's runtime is not installed")


def _old(path: Path) -> None:
    # Old files are not "racy": an unchanged one is not read again by the next run.
    os.utime(path, (1e9, 1e9))


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    _old(path)
    return path


def _docs(root: Path) -> Path:
    return write_dense_docs(root)


def _stored(database: Path) -> dict[str, bytes]:
    connection = sqlite3.connect(database)
    try:
        return {str(key): bytes(vector) for key, vector in connection.execute("SELECT key, vector FROM dense_vectors")}
    finally:
        connection.close()


def _inputs(database: Path) -> list[str]:
    connection = sqlite3.connect(database)
    try:
        return [
            embedding_input(" › ".join(__import__("json").loads(metadata).get("heading_path", [])), text)
            for metadata, text in connection.execute("SELECT metadata, text FROM passages ORDER BY id")
        ]
    finally:
        connection.close()


def test_vectors_are_stored_with_the_passages_and_read_back_unchanged(tmp_path: Path) -> None:
    docs, embedder = _docs(tmp_path), CountingEmbedder()
    report = index_paths(tmp_path / "i.db", [docs], dense=embedder).unwrap()
    inputs = _inputs(tmp_path / "i.db")
    assert report.embedded == len(set(inputs)) == len(passages_seen(embedder)) == report.passages
    # Then the index's no-match floor is calibrated: each off-topic probe asked once, after.
    assert embedder.seen[report.passages:] == list(probe_questions())
    stored = _stored(tmp_path / "i.db")
    assert sorted(stored.values()) == sorted(CountingEmbedder().embed(sorted(set(inputs))))
    assert all(len(vector) == 4 * embedder.dimensions for vector in stored.values())


def test_a_rerun_embeds_only_the_new_or_changed_passages(tmp_path: Path) -> None:
    docs, embedder = _docs(tmp_path), CountingEmbedder()
    index_paths(tmp_path / "i.db", [docs], dense=embedder).unwrap()
    before = set(_inputs(tmp_path / "i.db"))
    embedder.seen.clear()
    # Nothing changed: nothing read, nothing embedded.
    assert index_paths(tmp_path / "i.db", [docs], dense=embedder).unwrap().embedded == 0
    assert embedder.seen == []
    # One file gains a section: its other passages keep their vectors.
    _write(docs / "budget.md", (docs / "budget.md").read_text() + "\n## Refill\n\nA shed passage that fits comes back.\n")
    report = index_paths(tmp_path / "i.db", [docs], dense=embedder).unwrap()
    after = set(_inputs(tmp_path / "i.db"))
    assert sorted(passages_seen(embedder)) == sorted(after - before) != []
    assert report.embedded == len(after - before)
    assert probes_seen(embedder) == list(probe_questions())  # the passages changed: the floor is measured again
    # A renamed file holds the same passages: nothing to embed; its old vectors stay in use.
    embedder.seen.clear()
    (docs / "tokens.md").rename(docs / "counting.md")
    _old(docs / "counting.md")
    assert index_paths(tmp_path / "i.db", [docs], dense=embedder).unwrap().embedded == 0
    assert passages_seen(embedder) == []
    # Vectors no passage needs any more are dropped.
    (docs / "folders.md").unlink()
    index_paths(tmp_path / "i.db", [docs], dense=embedder).unwrap()
    assert len(_stored(tmp_path / "i.db")) == len(set(_inputs(tmp_path / "i.db")))


def test_twin_passages_are_embedded_once(tmp_path: Path) -> None:
    docs, embedder = _docs(tmp_path), CountingEmbedder()
    _write(docs / "copy.md", (docs / "budget.md").read_text())
    index_paths(tmp_path / "i.db", [docs], dense=embedder).unwrap()
    assert len(passages_seen(embedder)) == len(set(passages_seen(embedder))) == len(set(_inputs(tmp_path / "i.db")))


def test_hybrid_search_finds_a_paraphrase_that_shares_no_word_with_the_passage(tmp_path: Path) -> None:
    docs = _docs(tmp_path)
    tiny = load_onnx_embedder(*write_tiny_model(tmp_path), model_id="tiny").unwrap()
    index_paths(tmp_path / "i.db", [docs], dense=tiny).unwrap()
    # "make a directory": no word of it is in "Create a folder"; the tiny model's synonyms are.
    lexical = search_index(tmp_path / "i.db", "make directory", dense=False).unwrap()
    hybrid = search_index(tmp_path / "i.db", "make directory", dense=tiny).unwrap()
    assert all(not hit.path.endswith("folders.md") for hit in lexical)
    assert hybrid[0].path.endswith("folders.md")
    ranking = search_ranking(tmp_path / "i.db", dense=tiny).unwrap()
    assert ranking.floor_calibrated and ranking.match_floor is not None and MATCH_FLOOR <= ranking.match_floor <= FLOOR_CAP
    assert ranking.as_json() == {
        "ranking": "hybrid", "dense_model": "tiny", "match_floor": ranking.match_floor,
        "match_floor_from": "this index's probes", "match_rule": MATCH_RULE,
    }
    # A question both rankings answer alike keeps its lexical best first, and the order is stable.
    first = search_index(tmp_path / "i.db", "shed the lowest score", dense=tiny).unwrap()
    assert first[0].path.endswith("budget.md")
    assert first == search_index(tmp_path / "i.db", "shed the lowest score", dense=tiny).unwrap()
    assert all(0.0 < hit.score <= 1.0 for hit in first)


def test_a_lexical_only_run_that_changes_passages_leaves_ranking_lexical_until_embedded_again(tmp_path: Path) -> None:
    docs, embedder = _docs(tmp_path), CountingEmbedder()
    index_paths(tmp_path / "i.db", [docs], dense=embedder).unwrap()
    _write(docs / "tokens.md", "# Tokens\n\nCount tokens exactly, never estimate them.\n")
    assert index_paths(tmp_path / "i.db", [docs], dense=False).unwrap().embedded == 0
    ranking = search_ranking(tmp_path / "i.db", dense=embedder).unwrap()
    assert (ranking.kind, ranking.reason) == (
        "lexical",
        "the index holds no complete set of vectors, not of letters: index it again with the [dense] extra installed",
    )
    assert search_index(tmp_path / "i.db", "count tokens", dense=embedder).unwrap()[0].path.endswith("tokens.md")
    embedder.seen.clear()
    index_paths(tmp_path / "i.db", [docs], dense=embedder).unwrap()
    assert len(passages_seen(embedder)) == 1 and "never estimate them" in embedder.seen[0]
    assert search_ranking(tmp_path / "i.db", dense=embedder).unwrap().kind == "hybrid"


def test_an_embedder_that_fails_keeps_the_passages_and_the_vectors_and_the_next_run_finishes(tmp_path: Path) -> None:
    # Issue 35: embedding is the long part of a run; a failure or an interruption must not throw
    # away the passages or the vectors already made (before, the whole run was rolled back).
    docs, embedder = _docs(tmp_path), CountingEmbedder()
    index_paths(tmp_path / "i.db", [docs], dense=embedder).unwrap()

    class Broken(CountingEmbedder):
        def embed(self, texts: object) -> list[bytes]:
            raise MemoryError("no room")

    _write(docs / "tokens.md", "# Tokens\n\nSomething new.\n")
    failed = index_paths(tmp_path / "i.db", [docs], dense=Broken()).failure()
    assert isinstance(failed, EmbeddingFailed)
    assert failed.message == "embedding with 'letters' failed: it raised MemoryError: no room"
    assert search_index(tmp_path / "i.db", "something new", dense=embedder).unwrap()[0].path.endswith("tokens.md")
    ranking = search_ranking(tmp_path / "i.db", dense=embedder).unwrap()
    held = sum(1 for _ in (docs).rglob("*.md"))
    assert ranking.kind == "lexical" and ranking.incomplete is not None
    embedded, total = ranking.incomplete
    assert embedded == total - 1 and total >= held  # every vector but the new passage's is kept
    assert ranking.as_json()["vectors"] == {"embedded": embedded, "total": total, "complete": False}
    assert ranking.reason == (
        f"the index's vectors are incomplete ({embedded} of {total} passages embedded): "
        "run the index command again to finish them"
    )
    embedder.seen.clear()
    assert index_paths(tmp_path / "i.db", [docs], dense=embedder).unwrap().embedded == 1
    assert len(passages_seen(embedder)) == 1 and "Something new." in embedder.seen[0]
    assert search_ranking(tmp_path / "i.db", dense=embedder).unwrap().kind == "hybrid"


def test_without_the_extra_indexing_and_search_stay_lexical_and_say_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = _docs(tmp_path)
    with onnxruntime_missing(monkeypatch):
        report = index_paths(tmp_path / "i.db", [docs], dense=True).unwrap()
        ranking = search_ranking(tmp_path / "i.db", dense=True).unwrap()
        hits = search_index(tmp_path / "i.db", "shed the lowest score", dense=True).unwrap()
    assert report.embedded == 0 and report.passages > 0
    assert ranking.as_json() == {
        "ranking": "lexical",
        "ranking_reason": "dense ranking needs the [dense] extra (pip install 'thrift_fp[dense]'): "
        "no module named 'onnxruntime'",
    }
    assert hits[0].path.endswith("budget.md")


def test_turning_dense_off_ranks_lexically_even_where_vectors_exist(tmp_path: Path) -> None:
    docs, embedder = _docs(tmp_path), CountingEmbedder()
    index_paths(tmp_path / "i.db", [docs], dense=embedder).unwrap()
    assert search_ranking(tmp_path / "i.db", dense=False).unwrap().reason == "dense ranking is turned off"
    assert struct.calcsize("<8f") == 4 * embedder.dimensions


class _AxisEmbedder:
    """Two-dimensional vectors: texts about folders or directories on one axis, the rest on the
    other (a text about a build program counts as the rest)."""

    model_id, dimensions = "axis", 2

    def embed(self, texts: Sequence[str]) -> list[bytes]:
        def vector(text: str) -> bytes:
            lowered = text.lower()
            on_topic = ("folder" in lowered or "directory" in lowered) and "program" not in lowered
            return struct.pack("<2f", *((0.96, 0.28) if on_topic else (0.28, 0.96)))

        return [vector(text) for text in texts]


def test_every_hybrid_candidate_is_scored_on_both_sides_and_fused_by_score(tmp_path: Path) -> None:
    # The passage nearest the question shares none of its words; a passage that shares them is
    # about something else. Each hit's score is the fusion of its own exact lexical share and
    # cosine, whichever list offered it, so the near one leads by its margin; a source's later
    # passages are shown at that score times SOURCE_REPEAT per earlier passage of the source.
    from thrift_fp.sources.ranking._fusion import SOURCE_REPEAT, fused_score, passage_source

    docs = _docs(tmp_path)
    _write(docs / "make.md", "# Make\n\nMake builds a program in the build directory.\n")
    embedder = _AxisEmbedder()
    index_paths(tmp_path / "i.db", [docs], dense=embedder).unwrap()
    hybrid = search_index(tmp_path / "i.db", "make a directory", limit=5, dense=embedder).unwrap()
    shares = {hit.passage_id: hit.score for hit in search_index(tmp_path / "i.db", "make a directory", limit=50).unwrap()}
    question = struct.unpack("<2f", embedder.embed(["make a directory"])[0])
    assert hybrid[0].path.endswith("folders.md")
    earlier: dict[str, int] = {}
    for hit in hybrid:
        repeats = earlier.get(passage_source(hit.passage_id), 0)
        earlier[passage_source(hit.passage_id)] = repeats + 1
        path = hit.metadata.get("heading_path", [])
        heading = " › ".join(map(str, path)) if isinstance(path, list) else ""
        (vector,) = embedder.embed([embedding_input(heading, hit.text)])
        cosine = sum(a * b for a, b in zip(question, struct.unpack("<2f", vector), strict=True))
        assert hit.score == pytest.approx(fused_score(shares.get(hit.passage_id, 0.0), cosine) * SOURCE_REPEAT**repeats)
