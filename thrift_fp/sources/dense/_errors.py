"""The error values of dense ranking: the extra missing, a model that cannot load, an embedder that fails."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from thrift_fp._errors import ThriftFpError


@dataclass(frozen=True, slots=True)
class DenseUnavailable(ThriftFpError):
    """Dense ranking cannot run here: a package of the ``[dense]`` extra is not installed.

    >>> DenseUnavailable("onnxruntime").message
    "dense ranking needs the [dense] extra (pip install 'thrift_fp[dense]'): no module named 'onnxruntime'"
    """

    module: str

    message_template: ClassVar[str] = (
        "dense ranking needs the [dense] extra (pip install 'thrift_fp[dense]'): no module named {module!r}"
    )


@dataclass(frozen=True, slots=True)
class DenseModelInvalid(ThriftFpError):
    """An embedding model file that cannot be used: missing, not the expected bytes, or not a text encoder.

    >>> DenseModelInvalid("/m/model.onnx", "sha256 1234 differs from the expected abcd").message
    'cannot use the embedding model /m/model.onnx: sha256 1234 differs from the expected abcd'
    """

    path: str
    reason: str
    cause: BaseException | None = None

    message_template: ClassVar[str] = "cannot use the embedding model {path}: {reason}"


@dataclass(frozen=True, slots=True)
class EmbeddingFailed(ThriftFpError):
    """The embedder raised, or returned something other than one vector per text.

    >>> EmbeddingFailed("all-MiniLM-L6-v2", "it returned 1 vectors for 2 texts").message
    "embedding with 'all-MiniLM-L6-v2' failed: it returned 1 vectors for 2 texts"
    """

    model_id: str
    reason: str
    cause: BaseException | None = None

    message_template: ClassVar[str] = "embedding with {model_id!r} failed: {reason}"


DenseError = DenseUnavailable | DenseModelInvalid | EmbeddingFailed
