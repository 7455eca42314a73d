"""Context thrift: fit a working set into a context window, shedding lowest-signal items first."""

from typing import TYPE_CHECKING

from thrift_fp._beartype import check_public
from thrift_fp._lazy import retired_face
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
from thrift_fp.thrift._priced import FittedColumns, PricedColumns, PricedMessage, priced_messages, subtract_priced
from thrift_fp.thrift._picture import (
    BarSegment,
    ReportPassage,
    ReportShed,
    SegmentKind,
    fit_report_bar,
    fit_report_html,
    report_passages,
    report_shed,
)
from thrift_fp.thrift._options import AGENT, RAG, SHED_ORDERS, SHED_PASSES, ShedOrder, ShedPass, ThriftOptions
from thrift_fp.thrift._relevance import Turn, group_history_into_turns, select_naive_turns, select_relevant_turns
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
    "BarSegment",
    "ReportPassage",
    "ReportShed",
    "SegmentKind",
    "fit_report_bar",
    "fit_report_html",
    "report_passages",
    "report_shed",
    "SHED_ORDERS",
    "SHED_PASSES",
    "Bucket",
    "BucketTrace",
    "Budget",
    "CountingFailed",
    "DuplicateId",
    "EstimatorRaised",
    "Fitted",
    "FittedColumns",
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
    "PricedColumns",
    "PricedMessage",
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
    "fit_async",
    "group_history_into_turns",
    "priced_messages",
    "resolve_budget",
    "select_naive_turns",
    "select_relevant_turns",
    "subtract_priced",
    "subtract_to_fit",
]

# Every public function is type-checked at this boundary (see thrift_fp/_beartype.py).
check_public(globals(), __all__)

# Names that left the face (the turn selection's inner steps; issue 37): each still imports,
# with a warning, until a later release.
_TURNS = "select_relevant_turns applies it; it is not part of the API"
_RETIRED = dict.fromkeys(("content_words", "scaled_relevance_floor", "turn_relevance", "turn_tokens"), ("thrift_fp.thrift._relevance", _TURNS))
if not TYPE_CHECKING:  # to mypy these names are gone; at run time they still resolve
    __getattr__ = retired_face(__name__, _RETIRED)
