"""LlamaIndex adapter: fit ``NodeWithScore`` lists and ``ChatMessage`` lists, get the same objects back.

Needs the ``[llamaindex]`` extra (``llama-index-core``). Importing it downloads nothing: counting
uses thrift_fp's offline tiktoken vocabularies, never LlamaIndex's global tokenizer (which would
fetch ``cl100k_base``) or nltk data. Every entry point takes the shared budget vocabulary
(``context_window``, ``output_reserve``, ``reserve_fraction``) and counting choice (``model=``,
``encoding=``, ``token_counter=``; with none of them, ``cl100k_base``):

- `ThriftNodePostprocessor`: a ``BaseNodePostprocessor`` keeping the nodes that fit in
  ``max_tokens`` (the postprocessor's own field: the tokens the nodes' text may take, since the
  response synthesizer formats them itself and owns the window), lowest ``score`` shed first,
  an unscored node before every scored one.
- `fit_nodes`: fit nodes alone, rendered in trust-tier envelopes (priced as rendered), or by
  their text with ``render=False``.
- `fit_chat_messages`: a ``ChatMessage`` history, pair-safe: an assistant message and the
  ``tool`` messages answering its tool calls leave together (all of them), oldest first; system
  and developer messages are never shed (``keep_system=True``); retrieved ``nodes`` share the
  budget, rendered in envelopes (``shed_order=``, ``refill=`` on by default, ``nonce=``, ``tier=``).
- `ThriftChatMemory`: a LlamaIndex chat memory (``BaseChatStoreMemory``, for agents and chat
  engines taking ``memory=``) whose ``get()`` is `fit_chat_messages` of the stored chat.

**What an item costs** (exact for the encoding): a node costs ``node.get_content(metadata_mode)``
(``MetadataMode.LLM`` by default: the text a response synthesizer sends), or its rendered
envelope when rendered. A chat message costs the count of one text (`message_text`)::

    <role>[ <tool_call_id>]
    <text blocks, thinking blocks' content, [<block_type>] for any other block, newline-joined>
    <one JSON line per tool call: {"id", "name", "args"} for a ToolCallBlock, the entry itself for
     additional_kwargs["tool_calls"]>

A message's tool call ids come from its ``ToolCallBlock`` blocks and its
``additional_kwargs["tool_calls"]`` entries (dicts or objects with an ``id``); a ``tool`` message
answers ``additional_kwargs["tool_call_id"]``. Defaults for missing fields are those of
`thrift_fp.adapters._core._documents`: order stands for age; scores outside [0, 1] are min-max
rescaled over the call; an unscored node sheds first. Trace ids: ``messages[i]`` and node ids.
Bad input is an error value naming index and field.
"""

from thrift_fp.adapters._core import (
    AdapterError,
    AdapterFitError,
    DuplicateToolCall,
    FitFailed,
    InvalidArgument,
    InvalidDocument,
    MalformedMessage,
    OverBudget,
    TokenCounter,
    ToolResultWithoutCall,
)
from thrift_fp.adapters.llamaindex._fit import (
    FittedChat,
    FittedNodes,
    ThriftNodePostprocessor,
    fit_chat_messages,
    fit_nodes,
    message_text,
)
from thrift_fp.adapters.llamaindex._memory import (
    ThriftChatMemory,
)
from thrift_fp.thrift import (
    AGENT,
    RAG,
)

__all__ = [
    "FittedChat",
    "FittedNodes",
    "ThriftChatMemory",
    "ThriftNodePostprocessor",
    "fit_chat_messages",
    "fit_nodes",
    "message_text",
]
