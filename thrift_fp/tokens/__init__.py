"""Token counting with real tiktoken vocabularies, offline."""

from thrift_fp._beartype import check_public
from thrift_fp.tokens._count import TokenCount, count_tokens, count_tokens_batch
from thrift_fp.tokens._counts import TokenCounts
from thrift_fp.tokens._encoding import (
    Estimator,
    Precision,
    TokenEncoding,
    builtin_encoding_names,
    estimate_by_length,
    get_encoding,
    known_encoding_names,
    register_token_estimator,
    unregister_token_estimator,
)
from thrift_fp.tokens._errors import (
    EncodingUnavailable,
    EstimatorFailed,
    EstimatorNameTaken,
    EvaluatorFailed,
    InvalidEstimatorName,
    NotText,
    TokenError,
    UnknownEncoding,
    VocabularyCorrupt,
)
from thrift_fp.tokens._rank_cache import use_rank_cache
from thrift_fp.tokens._tokenizable import Evaluator, Tokenizable
from thrift_fp.tokens._vocabulary import OFFLINE_ENCODINGS

__all__ = [
    "OFFLINE_ENCODINGS",
    "EncodingUnavailable",
    "Estimator",
    "EstimatorFailed",
    "EstimatorNameTaken",
    "Evaluator",
    "EvaluatorFailed",
    "InvalidEstimatorName",
    "NotText",
    "Precision",
    "TokenCount",
    "TokenCounts",
    "TokenEncoding",
    "TokenError",
    "Tokenizable",
    "UnknownEncoding",
    "VocabularyCorrupt",
    "builtin_encoding_names",
    "count_tokens",
    "count_tokens_batch",
    "estimate_by_length",
    "get_encoding",
    "known_encoding_names",
    "register_token_estimator",
    "unregister_token_estimator",
    "use_rank_cache",
]

# Every public function is type-checked at this boundary (see thrift_fp/_beartype.py).
check_public(globals(), __all__)
