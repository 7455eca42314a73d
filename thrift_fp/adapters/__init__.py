"""Adapters: fit the objects of other ecosystems (LangChain, LlamaIndex, ...) in one call.

Each third-party adapter is its own module, imported explicitly (``thrift_fp.adapters.langchain``);
nothing here imports an optional dependency.
"""
