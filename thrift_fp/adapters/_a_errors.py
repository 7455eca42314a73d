"""The adapters' errors now live in `thrift_fp.adapters._core_errors`; re-exported here (the same
classes) for the modules that have not moved to the one core yet."""

from thrift_fp.adapters._core_errors import (
    AdapterError,
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
)

__all__ = [
    "AdapterError",
    "CountFailed",
    "DuplicateToolCall",
    "FitFailed",
    "InvalidArgument",
    "InvalidDocument",
    "InvalidTool",
    "MalformedMessage",
    "OverBudget",
    "PricingFailed",
    "ToolCallWithoutResult",
    "ToolResultWithoutCall",
    "UnknownRole",
]
