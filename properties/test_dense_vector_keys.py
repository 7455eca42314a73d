"""Kept vector keys and the kept block are never stale: whatever sequence of index runs
(embedding, lexical only, interrupted while embedding) follows whatever changes to the files
(written, touched, removed) or to the index file by hand (passages, vectors or keys edited,
replaced or deleted), and whether the index was made before keys or blocks were kept, every kept
key is its passage's own, and the matrix a search loads (from the block where one is kept) is the
one computed from the passages' texts."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from unittest import mock

from hypothesis import event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from tests._dense_model import CountingEmbedder, passages_seen
from tests._vector_keys import (
    HAND_EDITS, as_made_before_blocks, as_made_before_kept_keys, block_kept, computed, edit_by_hand, fields,
    has_vectors, kept, loaded, passages, stale_keys,
)
from thrift_fp.sources import index_paths
from thrift_fp.sources.dense import probe_questions

names = st.sampled_from(["a.md", "b.md", "c.txt"])
words = st.sampled_from(["budget", "shed", "token", "score", "window", "reserve"])
documents = st.lists(st.lists(words, min_size=1, max_size=5).map(" ".join), min_size=1, max_size=3).map(
    lambda parts: "# Head\n\n" + "\n\n".join(parts) + "\n"
)


class _Interrupted(BaseException):
    """Stands in for Ctrl-C (not an ``Exception``: it is not turned into an error value)."""


class VectorKeys(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.folder = Path(tempfile.mkdtemp())
        self.docs, self.database = self.folder / "docs", self.folder / "i.db"
        self.docs.mkdir()
        self.embedder = CountingEmbedder()
        self.tick = 1_000_000_000  # each change gets a later modification time, far from "now"

    def teardown(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)

    def _stamp(self, path: Path) -> None:
        self.tick += 10
        os.utime(path, (self.tick, self.tick))

    @initialize(first=documents, second=documents)
    def embedded_index(self, first: str, second: str) -> None:
        # Every sequence starts from an embedded index: the changes that follow meet kept keys.
        self.write("a.md", first)
        self.write("b.md", second)
        self.index()

    @rule(name=names, text=documents)
    def write(self, name: str, text: str) -> None:
        (self.docs / name).write_text(text, encoding="utf-8")
        self._stamp(self.docs / name)

    @rule(name=names)
    def touch(self, name: str) -> None:
        if (self.docs / name).exists():
            self._stamp(self.docs / name)

    @rule(name=names)
    def remove(self, name: str) -> None:
        (self.docs / name).unlink(missing_ok=True)

    @rule()
    def index(self) -> None:
        index_paths(self.database, [self.docs], dense=self.embedder, max_tokens=16).unwrap()
        # A finished embedding run keeps every passage's key, and the block.
        assert kept(self.database) == passages(self.database)
        assert block_kept(self.database, self.embedder.model_id)

    @rule()
    def index_lexically(self) -> None:
        index_paths(self.database, [self.docs], dense=False, max_tokens=16).unwrap()

    @rule(batches=st.integers(min_value=0, max_value=3))
    def index_interrupted(self, batches: int) -> None:
        self.embedder.seen.clear()
        real = self.embedder.embed

        def embed_then_stop(texts: list[str]) -> list[bytes]:
            if len(passages_seen(self.embedder)) >= batches and not set(texts) <= set(probe_questions()):
                raise _Interrupted
            return real(texts)

        with mock.patch("thrift_fp.sources.dense._vectors.EMBED_CHUNK", 1), \
                mock.patch.object(self.embedder, "embed", embed_then_stop):
            try:
                index_paths(self.database, [self.docs], dense=self.embedder, max_tokens=16).unwrap()
            except _Interrupted:
                pass

    @rule()
    def made_before_kept_keys(self) -> None:
        as_made_before_kept_keys(self.database)

    @rule()
    def made_before_blocks(self) -> None:
        as_made_before_blocks(self.database)

    @rule(edit=st.sampled_from(HAND_EDITS))
    def edited_by_hand(self, edit: str) -> None:
        edit_by_hand(self.database, edit)

    @invariant()
    def every_kept_key_is_current_and_the_matrix_is_the_computed_one(self) -> None:
        if not self.database.exists():
            return
        assert stale_keys(self.database) == []
        if has_vectors(self.database):  # else no search loads a matrix
            matrix = loaded(self.database, self.embedder)
            assert fields(matrix) == fields(computed(self.database, self.embedder))
            held, rows = kept(self.database), passages(self.database)
            event(f"block kept: {block_kept(self.database, self.embedder.model_id)}")
            event(f"keys kept: {'none' if held == 0 else 'all' if held == rows else 'some'}, "
                  f"vectors: {'none' if matrix is None or not matrix.rows else 'all' if len(matrix.rows) == rows else 'some'}")


VectorKeys.TestCase.settings = settings(max_examples=40, stateful_step_count=10, deadline=None)
test_vector_keys = VectorKeys.TestCase
