"""Context thrift: fit a working set into a context window, shedding lowest-signal items first."""

from thrift_fp._beartype import check_public
from thrift_fp.thrift._budget import Budget, resolve_budget
from thrift_fp.thrift._errors import (
    CountingFailed,
    DuplicateId,
    EstimatorRaised,
    InvalidBudget,
    InvalidItemField,
    MalformedItem,
    InvalidOption,
    ThriftError,
    UnmeasurableContent,
)
from thrift_fp.thrift._fit import Fitted, fit_async, subtract_to_fit
from thrift_fp.thrift._options import AGENT, RAG, SHED_ORDERS, SHED_PASSES, ShedOrder, ShedPass, ThriftOptions
from thrift_fp.thrift._relevance import (
    Turn,
    content_words,
    group_history_into_turns,
    scaled_relevance_floor,
    select_naive_turns,
    select_relevant_turns,
    turn_relevance,
    turn_tokens,
)
from thrift_fp.thrift._shapes import (
    Image,
    ImageLike,
    Memory,
    MemoryLike,
    Message,
    MessageLike,
    WorkingRetrievable,
    RetrievableLike,
    Thought,
    ThoughtLike,
    Tool,
    ToolCall,
    ToolCallLike,
    ToolLike,
)
from thrift_fp.thrift._trace import Bucket, BucketTrace, RefillTrace, ThriftTrace
from thrift_fp.thrift._working_set import WorkingSet

__all__ = [
    "AGENT",
    "RAG",
    "SHED_ORDERS",
    "SHED_PASSES",
    "Bucket",
    "BucketTrace",
    "Budget",
    "CountingFailed",
    "DuplicateId",
    "EstimatorRaised",
    "Fitted",
    "Image",
    "ImageLike",
    "InvalidBudget",
    "InvalidItemField",
    "MalformedItem",
    "InvalidOption",
    "Memory",
    "MemoryLike",
    "Message",
    "MessageLike",
    "WorkingRetrievable",
    "RefillTrace",
    "RetrievableLike",
    "ShedOrder",
    "ShedPass",
    "ThoughtLike",
    "Thought",
    "ThriftError",
    "ThriftOptions",
    "ThriftTrace",
    "Tool",
    "ToolCall",
    "ToolCallLike",
    "ToolLike",
    "Turn",
    "UnmeasurableContent",
    "WorkingSet",
    "content_words",
    "fit_async",
    "group_history_into_turns",
    "resolve_budget",
    "scaled_relevance_floor",
    "select_naive_turns",
    "select_relevant_turns",
    "subtract_to_fit",
    "turn_relevance",
    "turn_tokens",
]

# Every public function is type-checked at this boundary (see thrift_fp/_beartype.py).
check_public(globals(), __all__)
