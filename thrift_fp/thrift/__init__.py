"""Context thrift: fit a working set into a context window, shedding lowest-signal items first."""

from thrift_fp.thrift._budget import Budget, resolve_budget
from thrift_fp.thrift._errors import (
    CountingFailed,
    DuplicateId,
    EstimatorRaised,
    InvalidBudget,
    InvalidItemField,
    InvalidOption,
    ThriftError,
    UnmeasurableContent,
)
from thrift_fp.thrift._fit import Fitted, fit_async, subtract_to_fit
from thrift_fp.thrift._options import ThriftOptions
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
from thrift_fp.thrift._trace import Bucket, BucketTrace, ThriftTrace
from thrift_fp.thrift._working_set import WorkingSet

__all__ = [
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
    "InvalidOption",
    "Memory",
    "MemoryLike",
    "Message",
    "MessageLike",
    "WorkingRetrievable",
    "RetrievableLike",
    "ThoughtLike",
    "Thought",
    "ThriftError",
    "ThriftOptions",
    "ThriftTrace",
    "Tool",
    "ToolCall",
    "ToolCallLike",
    "ToolLike",
    "UnmeasurableContent",
    "WorkingSet",
    "fit_async",
    "resolve_budget",
    "subtract_to_fit",
]
