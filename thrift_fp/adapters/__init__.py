"""Drop-in adapters: fit the conversations and documents users already hold, and get them back.

Each submodule reads one ecosystem's own objects into the neutral rows of the one adapter core
(``thrift_fp.adapters._core``: each message priced as sent, its tool-call ids, turn and pin),
which groups what leaves together, fits (documents rendered in trust-tier envelopes), keeps the
budget as sent or returns ``OverBudget``, and hands back the kept positions; the module returns
the caller's same objects, in the same order, minus what was shed, plus the trace. Every adapter
takes one vocabulary: ``context_window``, ``output_reserve``, ``reserve_fraction``, ``model=`` /
``encoding=`` / ``token_counter=``, and where documents exist ``shed_order=``, ``refill=``,
``nonce=``, ``tier=``. Import the one you need; this package imports none of them, and none of
their third-party packages. It holds what they share: the error values every adapter returns
(the union `AdapterError`: `OverBudget`, `MalformedMessage`, `UnreadableField`, ...),
`AdapterFitError` (what a framework hook raises, holding the value) and `TokenCounter`:

=================================  =============================================  ==============
module                             objects                                        extra
=================================  =============================================  ==============
``thrift_fp.adapters.openai``      Chat Completions dicts / SDK messages, tools   none
``thrift_fp.adapters.anthropic``   Messages dicts, SDK content blocks, tools      none
``thrift_fp.adapters.pydantic_ai`` ``list[ModelMessage]``, history processors     ``[pydantic-ai]``
``thrift_fp.adapters.langchain``   ``BaseMessage`` lists, ``Document`` lists      ``[langchain]``
``thrift_fp.adapters.llamaindex``  ``NodeWithScore`` and ``ChatMessage`` lists    ``[llamaindex]``
=================================  =============================================  ==============

The model → encoding table lives in ``thrift_fp.adapters._core._models`` (one place for every adapter).
"""

from thrift_fp.adapters._core import (
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
    UnknownModel,
    UnknownRole,
    UnreadableField,
    TokenCounter,
)

__all__ = [
    "AdapterError",
    "AdapterFitError",
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
    "UnknownModel",
    "UnknownRole",
    "UnreadableField",
    "TokenCounter",
]
