"""Drop-in adapters: fit the conversations and documents users already hold, and get them back.

Each submodule takes one ecosystem's own objects, fits them with `thrift_fp.thrift.subtract_to_fit`
(pairing-aware: a tool call and its results leave together) and hands back the same objects, in
the same order, minus what was shed, plus the trace. Import the one you need; this package imports
none of them, and none of their third-party packages:

=================================  =============================================  ==============
module                             objects                                        extra
=================================  =============================================  ==============
``thrift_fp.adapters.openai``      Chat Completions ``list[dict]`` and ``tools``  none
``thrift_fp.adapters.anthropic``   Messages ``system`` + ``messages`` dicts       none
``thrift_fp.adapters.pydantic_ai`` ``list[ModelMessage]``, history processors     ``[pydantic-ai]``
``thrift_fp.adapters.langchain``   ``BaseMessage`` lists, ``Document`` lists      ``[langchain]``
``thrift_fp.adapters.llamaindex``  ``NodeWithScore`` and ``ChatMessage`` lists    ``[llamaindex]``
=================================  =============================================  ==============

The model → encoding table lives in ``thrift_fp.adapters._models`` (one place for every adapter).
"""
