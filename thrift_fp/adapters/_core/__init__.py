"""The one framework-neutral adapter core, the face every ecosystem module imports through.

Private to `thrift_fp.adapters`: an adapter reads its ecosystem's objects into `Row` values and
maps the kept positions back; everything between lives here, one concept a module:

- ``_args``: the shared vocabulary (budget, counting choice) checked into values;
- ``_models``: the model → encoding and chat-framing table;
- ``_reads``: guarded reads of a caller's objects (a read that raises becomes a value);
- ``_values``: reading JSON-like values and SDK objects safely;
- ``_groups``: rows, and which of them leave together (tool pairs, turns);
- ``_fit``: the fit of rows and documents, the promise that the count as sent is in budget;
- ``_documents``: retrieved documents into records, with their defaults;
- ``_errors``: the closed union of error values (`AdapterError`);
- ``_report``: the HTML picture of a fit.
"""

from thrift_fp.adapters._core._args import (
    Budgeting,
    Checked,
    CounterArg,
    Counting,
    TokenCounter,
    checked_budget,
    checked_counting,
    registered,
)
from thrift_fp.adapters._core._documents import (
    DEFAULT_TIER,
    UNKNOWN_TIME,
    Document,
    DocumentRow,
    content_id,
    documents_to_records,
    fit_order,
    kept_inputs,
    normalised_scores,
    read_documents,
)
from thrift_fp.adapters._core._errors import (
    AdapterError,
    AdapterFitError,
    CountFailed,
    DuplicateToolCall,
    FitFailed,
    InvalidArgument,
    InvalidDocument,
    InvalidTool,
    MalformedMessage,
    OverBudget,
    PricingFailed,
    ToolCallWithoutResult,
    ToolResultWithoutCall,
    UnknownRole,
    UnreadableField,
)
from thrift_fp.thrift import PricedMessage
from thrift_fp.adapters._core._fit import (
    AGE,
    DOCUMENTS_ROLES,
    REQUEST_ID,
    CoreCarry,
    CoreFit,
    FitTogether,
    Shedding,
    StrippedThought,
    checked_shedding,
    counted_rows,
    fit_rows,
    fit_rows_and_documents,
    one_text_frame,
    working_set,
)
from thrift_fp.adapters._core._collector import paused_collector
from thrift_fp.adapters._core._groups import GroupCarry, Pairing, Row, RowColumns, groups, newest_turn
from thrift_fp.adapters._core._models import MODELS, ModelProfile, UnknownModel, resolve_model
from thrift_fp.adapters._core._reads import Unread, attr, called, entries, got, read_each, unreadable
from thrift_fp.adapters._core._report import Pictured, fit_picture
from thrift_fp.adapters._core._values import MAX_DEPTH, MAX_INT_BITS, as_mapping, call_line, exact_str, json_text, leaves, non_empty_str

__all__ = [
    "AGE",
    "DEFAULT_TIER",
    "DOCUMENTS_ROLES",
    "MAX_DEPTH",
    "MAX_INT_BITS",
    "MODELS",
    "REQUEST_ID",
    "UNKNOWN_TIME",
    "AdapterError",
    "AdapterFitError",
    "Budgeting",
    "Checked",
    "CoreCarry",
    "CoreFit",
    "CountFailed",
    "CounterArg",
    "Document",
    "Counting",
    "DocumentRow",
    "DuplicateToolCall",
    "FitFailed",
    "FitTogether",
    "GroupCarry",
    "InvalidArgument",
    "InvalidDocument",
    "InvalidTool",
    "MalformedMessage",
    "ModelProfile",
    "OverBudget",
    "Pairing",
    "PricedMessage",
    "Pictured",
    "PricingFailed",
    "Row",
    "RowColumns",
    "Shedding",
    "StrippedThought",
    "TokenCounter",
    "ToolCallWithoutResult",
    "ToolResultWithoutCall",
    "UnknownModel",
    "UnknownRole",
    "Unread",
    "UnreadableField",
    "as_mapping",
    "attr",
    "call_line",
    "called",
    "entries",
    "exact_str",
    "checked_budget",
    "checked_counting",
    "checked_shedding",
    "content_id",
    "counted_rows",
    "documents_to_records",
    "fit_order",
    "fit_picture",
    "fit_rows",
    "fit_rows_and_documents",
    "got",
    "groups",
    "json_text",
    "kept_inputs",
    "leaves",
    "newest_turn",
    "non_empty_str",
    "one_text_frame",
    "normalised_scores",
    "paused_collector",
    "read_documents",
    "read_each",
    "registered",
    "resolve_model",
    "unreadable",
    "working_set",
]
