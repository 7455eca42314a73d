"""The retrieval lifecycle: run an agent's retrieval under a per-request policy.

``run_retrieval(definition, query, context, state)`` returns a
``RetrievalOutcome``: the ``Receipt`` or a ``RetrievalError``, and the next
``RetrievalState``.
"""

from thrift_fp._beartype import check_public
from thrift_fp.retrieval._canonical import canonical_key
from thrift_fp.retrieval._context import OperationContext
from thrift_fp.retrieval._definition import (
    ErrorMessages,
    RetrievalDefinition,
    RetrievalEffect,
    SourceNaming,
    utc_now,
)
from thrift_fp.retrieval._errors import (
    AbortPoint,
    Aborted,
    BudgetExhausted,
    ClockFailed,
    DuplicateQuery,
    EffectFailed,
    ExecutionFailed,
    InvalidQuery,
    InvalidResult,
    KeyFailed,
    LimitFailed,
    NotCanonical,
    PrepareFailed,
    RetrievalError,
    SourceIdFailed,
    Unauthorized,
)
from thrift_fp.retrieval._lifecycle import run_retrieval
from thrift_fp.retrieval._outcome import RetrievalOutcome
from thrift_fp.retrieval._receipt import Receipt
from thrift_fp.retrieval._signal import CancellationController, CancellationSignal
from thrift_fp.retrieval._state import RetrievalState

__all__ = [
    "AbortPoint",
    "Aborted",
    "BudgetExhausted",
    "CancellationController",
    "CancellationSignal",
    "ClockFailed",
    "DuplicateQuery",
    "EffectFailed",
    "ErrorMessages",
    "ExecutionFailed",
    "InvalidQuery",
    "InvalidResult",
    "KeyFailed",
    "LimitFailed",
    "NotCanonical",
    "OperationContext",
    "PrepareFailed",
    "Receipt",
    "RetrievalDefinition",
    "RetrievalEffect",
    "RetrievalError",
    "RetrievalOutcome",
    "RetrievalState",
    "SourceIdFailed",
    "SourceNaming",
    "Unauthorized",
    "canonical_key",
    "run_retrieval",
    "utc_now",
]

# Every public function is type-checked at this boundary (see thrift_fp/_beartype.py).
check_public(globals(), __all__)
