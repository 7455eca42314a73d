"""The error values of dense ranking: the extra missing, a model that cannot load, an embedder that fails."""

from __future__ import annotations

from thrift_fp._errors import ErrorValue


class DenseUnavailable(
    ErrorValue,
    template="dense ranking needs the [dense] extra (pip install 'thrift_fp[dense]'): no module named {module!r}",
):
    """Dense ranking cannot run here: a package of the ``[dense]`` extra is not installed.

    >>> DenseUnavailable("onnxruntime").message
    "dense ranking needs the [dense] extra (pip install 'thrift_fp[dense]'): no module named 'onnxruntime'"
    """

    module: str


class DenseModelInvalid(ErrorValue, template="cannot use the embedding model {path}: {reason}"):
    """An embedding model file that cannot be used: missing, not the expected bytes, or not a text encoder.

    >>> DenseModelInvalid("/m/model.onnx", "sha256 1234 differs from the expected abcd").message
    'cannot use the embedding model /m/model.onnx: sha256 1234 differs from the expected abcd'
    """

    path: str
    reason: str
    cause: BaseException | None = None


class EmbeddingFailed(ErrorValue, template="embedding with {model_id!r} failed: {reason}"):
    """The embedder raised, or returned something other than one vector per text.

    >>> EmbeddingFailed("all-MiniLM-L6-v2", "it returned 1 vectors for 2 texts").message
    "embedding with 'all-MiniLM-L6-v2' failed: it returned 1 vectors for 2 texts"
    """

    model_id: str
    reason: str
    cause: BaseException | None = None


DenseError = DenseUnavailable | DenseModelInvalid | EmbeddingFailed
