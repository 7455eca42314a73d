"""Batching is invisible: whatever the batches (sorted by length, run on several workers at once),
each text gets the vector it gets alone (issue 35's faster embedding loop)."""

from __future__ import annotations

import tempfile
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests._dense_model import VOCABULARY, write_tiny_model
from thrift_fp.sources.dense import OnnxEmbedder, load_onnx_embedder, missing_runtime

pytestmark = pytest.mark.skipif(missing_runtime() is not None, reason="the [dense] extra is not installed")

words = st.sampled_from([word for word in VOCABULARY if not word.startswith(("[", "##"))] + ["zebra"])
# Past 32 texts (one batch) up to three batches: sizes, orders and workers all vary.
texts = st.lists(st.lists(words, max_size=12).map(" ".join), min_size=33, max_size=100) | st.lists(
    st.lists(words, max_size=12).map(" ".join), min_size=1, max_size=8
)


@cache
def _tiny(workers: int) -> OnnxEmbedder:
    folder = Path(tempfile.mkdtemp())
    model, vocabulary = write_tiny_model(folder)
    return load_onnx_embedder(model, vocabulary, model_id="tiny", threads=1, workers=workers).unwrap()


@settings(deadline=None)
@given(texts)
def test_each_text_gets_its_own_vector_whatever_the_batches_and_workers(batch: list[str]) -> None:
    alone = [_tiny(1).embed([text])[0] for text in batch]
    assert list(_tiny(2).embed(batch)) == alone
    assert list(_tiny(1).embed(batch)) == alone
