"""What one run hands back: the receipt or the error, and the next state."""

from __future__ import annotations

from typing import Generic, TypeVar

from returns.result import Result

from thrift_fp._value import value
from thrift_fp.retrieval._errors import RetrievalError
from thrift_fp.retrieval._receipt import Receipt
from thrift_fp.retrieval._state import RetrievalState

_Query = TypeVar("_Query")
_Source = TypeVar("_Source")
_Result = TypeVar("_Result")


@value
class RetrievalOutcome(Generic[_Query, _Source, _Result]):
    """``result``: the receipt or the error; ``state``: the next state, always
    (a failed run may still have reserved its key).

    >>> from returns.result import Failure
    >>> from thrift_fp.retrieval._errors import InvalidQuery
    >>> outcome = RetrievalOutcome(Failure(InvalidQuery("docs", "empty query")), RetrievalState())
    >>> outcome.result.failure().message, outcome.state.query_count
    ("retrieval 'docs': invalid query: empty query", 0)
    """

    result: Result[Receipt[_Query, _Source, _Result], RetrievalError]
    state: RetrievalState[_Source]
