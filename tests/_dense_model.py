"""A tiny ONNX sentence encoder made by the tests (onnx's helper API): a word-piece embedding table
whose output has the shape of a BERT model's last hidden state, loaded through the real loading code."""

from __future__ import annotations

import importlib.util
import os
import struct
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest

VOCABULARY = (
    "[PAD]", "[UNK]", "[CLS]", "[SEP]", "shed", "##ding", "budget", "token", "##s", "score", "low", "first",
    "folder", "directory", "make", "create", "drop", "the", "a", "of",
)
DIMENSIONS = 8


def write_tiny_model(folder: Path, seed: int = 0) -> tuple[Path, Path]:
    """Write ``tiny.onnx`` and its ``vocab.txt`` into ``folder``; return both paths."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    table = np.random.default_rng(seed).standard_normal((len(VOCABULARY), DIMENSIONS)).astype(np.float32)
    # Synonyms share a row, so a dense ranking finds "folder" for "directory" where words cannot.
    table[VOCABULARY.index("folder")] = table[VOCABULARY.index("directory")]
    table[VOCABULARY.index("make")] = table[VOCABULARY.index("create")]
    # Special and unknown pieces carry no direction: a text's vector is that of its known words.
    table[:4] = 0.0
    graph = helper.make_graph(
        [helper.make_node("Gather", ["embeddings", "input_ids"], ["last_hidden_state"])],
        "tiny-encoder",
        [
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "sequence"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "sequence"]),
        ],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "sequence", DIMENSIONS])],
        [numpy_helper.from_array(table, "embeddings")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8  # readable by every onnxruntime the extra allows
    onnx.checker.check_model(model)
    model_path, vocabulary_path = folder / "tiny.onnx", folder / "vocab.txt"
    model_path.write_bytes(model.SerializeToString())
    vocabulary_path.write_text("\n".join(VOCABULARY) + "\n", encoding="utf-8")
    return model_path, vocabulary_path


@dataclass
class CountingEmbedder:
    """A fixture embedder (the `Embedder` shape, no model): a text's vector is the unit vector of its
    letter counts over a-h, and every text it was asked to embed is recorded."""

    model_id: str = "letters"
    dimensions: int = DIMENSIONS
    seen: list[str] = field(default_factory=list)

    def embed(self, texts: Sequence[str]) -> list[bytes]:
        self.seen.extend(texts)
        vectors = []
        for text in texts:
            counts = [text.lower().count(letter) + 0.01 for letter in "abcdefgh"]
            norm = sum(value * value for value in counts) ** 0.5
            vectors.append(struct.pack(f"<{DIMENSIONS}f", *(value / norm for value in counts)))
        return vectors


def passages_seen(embedder: CountingEmbedder) -> list[str]:
    """What ``embedder`` embedded for passages: its texts less the off-topic probes an index run
    asks when it calibrates the index's no-match floor (`probe_questions`)."""
    from thrift_fp.sources.dense import probe_questions

    probes = set(probe_questions())
    return [text for text in embedder.seen if text not in probes]


def probes_seen(embedder: CountingEmbedder) -> list[str]:
    """The off-topic probes ``embedder`` embedded, in order (one calibration asks each once)."""
    from thrift_fp.sources.dense import probe_questions

    probes = set(probe_questions())
    return [text for text in embedder.seen if text in probes]


@contextmanager
def onnxruntime_missing(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """As if the [dense] extra were not installed: ``find_spec`` finds no onnxruntime (until the
    test ends), and the cached default embedder is forgotten on entry and on exit."""
    from thrift_fp.sources.dense._embedder import default_embedder

    real = importlib.util.find_spec

    def without_onnxruntime(name: str, package: str | None = None) -> object:
        return None if name == "onnxruntime" else real(name, package)

    monkeypatch.setattr(importlib.util, "find_spec", without_onnxruntime)
    default_embedder.cache_clear()
    try:
        yield
    finally:
        default_embedder.cache_clear()


def write_dense_docs(root: Path) -> Path:
    """``root/docs`` with three old Markdown files (budget, tokens, folders) whose words a dense
    ranking and a lexical one rank differently; the folder."""
    from tests._files import write_old

    docs = root / "docs"
    write_old(docs / "budget.md", "# Budget\n\nThe budget is the window less the reserve.\n\n## Shedding\n\nShed the lowest score first.\n")
    write_old(docs / "tokens.md", "# Tokens\n\nCount tokens with the encoding of the model.\n")
    write_old(docs / "folders.md", "# Folders\n\nCreate a folder for each project.\n")
    return docs


def two_docs(root: Path) -> Path:
    """``root/docs`` with two small Markdown pages (folders, budget) at a fixed mtime."""
    docs = root / "docs"
    docs.mkdir()
    (docs / "folders.md").write_text("# Folders\n\nCreate a folder for each project.\n", encoding="utf-8")
    (docs / "budget.md").write_text("# Budget\n\nShed the lowest score first.\n", encoding="utf-8")
    for path in docs.iterdir():
        os.utime(path, (1e9, 1e9))
    return docs
