"""thrift_fp: decide what retrieved knowledge an LLM agent sees, and prove it fits.

The names a user needs for the main jobs (count, retrieve, fit, render, assemble, and
handle a ``Result``) are here; ``docs/surface.md`` lists them and says which type to use
when. Everything else is public from its subpackage (``thrift_fp.records``, ...).

Subpackages are imported on first use of one of their names (PEP 562), so
``import thrift_fp`` costs almost nothing and a command imports only what it uses.

>>> import thrift_fp
>>> thrift_fp.count_tokens("hello world").unwrap().tokens
2
>>> sorted(set(dir(thrift_fp)) & {"Result", "Success", "Failure"})
['Failure', 'Result', 'Success']
"""

from __future__ import annotations

import importlib
import logging
from typing import TYPE_CHECKING, Final

# A library adds no handler of its own: records go wherever the application sends them, and
# nowhere (not Python's last-resort stderr handler) when it configures nothing.
logging.getLogger(__name__).addHandler(logging.NullHandler())

# Static re-exports for type checkers and IDEs; at run time __getattr__ imports them lazily.
if TYPE_CHECKING:
    from returns.result import Failure as Failure
    from returns.result import Result as Result
    from returns.result import Success as Success

    from thrift_fp._errors import ThriftFpError as ThriftFpError
    from thrift_fp.records import Retrievable as Retrievable
    from thrift_fp.records import TrustTier as TrustTier
    from thrift_fp.records import parse_retrievable as parse_retrievable
    from thrift_fp.render import FitRendered as FitRendered
    from thrift_fp.render import KeyedNonce as KeyedNonce
    from thrift_fp.render import RandomNonce as RandomNonce
    from thrift_fp.render import fit_and_render as fit_and_render
    from thrift_fp.render import render_retrievables as render_retrievables
    from thrift_fp.retrieval import OperationContext as OperationContext
    from thrift_fp.retrieval import RetrievalDefinition as RetrievalDefinition
    from thrift_fp.retrieval import RetrievalState as RetrievalState
    from thrift_fp.retrieval import run_retrieval as run_retrieval
    from thrift_fp.sources import Assembled as Assembled
    from thrift_fp.sources import assemble as assemble
    from thrift_fp.sources import index_paths as index_paths
    from thrift_fp.thrift import Fitted as Fitted
    from thrift_fp.thrift import Image as Image
    from thrift_fp.thrift import Memory as Memory
    from thrift_fp.thrift import Message as Message
    from thrift_fp.thrift import ThriftOptions as ThriftOptions
    from thrift_fp.thrift import Thought as Thought
    from thrift_fp.thrift import Tool as Tool
    from thrift_fp.thrift import ToolCall as ToolCall
    from thrift_fp.thrift import WorkingSet as WorkingSet
    from thrift_fp.thrift import fit_async as fit_async
    from thrift_fp.thrift import subtract_to_fit as subtract_to_fit
    from thrift_fp.tokens import count_tokens as count_tokens
    from thrift_fp.tokens import get_encoding as get_encoding

# Where each top-level name lives, in data-flow order; docs/surface.md documents the same table.
_HOMES: Final = {
    "Result": "returns.result",
    "Success": "returns.result",
    "Failure": "returns.result",
    "ThriftFpError": "thrift_fp._errors",
    "count_tokens": "thrift_fp.tokens",
    "get_encoding": "thrift_fp.tokens",
    "Retrievable": "thrift_fp.records",
    "TrustTier": "thrift_fp.records",
    "parse_retrievable": "thrift_fp.records",
    "RetrievalDefinition": "thrift_fp.retrieval",
    "RetrievalState": "thrift_fp.retrieval",
    "OperationContext": "thrift_fp.retrieval",
    "run_retrieval": "thrift_fp.retrieval",
    "WorkingSet": "thrift_fp.thrift",
    "Message": "thrift_fp.thrift",
    "Memory": "thrift_fp.thrift",
    "Thought": "thrift_fp.thrift",
    "Tool": "thrift_fp.thrift",
    "ToolCall": "thrift_fp.thrift",
    "Image": "thrift_fp.thrift",
    "ThriftOptions": "thrift_fp.thrift",
    "Fitted": "thrift_fp.thrift",
    "subtract_to_fit": "thrift_fp.thrift",
    "fit_async": "thrift_fp.thrift",
    "fit_and_render": "thrift_fp.render",
    "render_retrievables": "thrift_fp.render",
    "KeyedNonce": "thrift_fp.render",
    "RandomNonce": "thrift_fp.render",
    "FitRendered": "thrift_fp.render",
    "assemble": "thrift_fp.sources",
    "index_paths": "thrift_fp.sources",
    "Assembled": "thrift_fp.sources",
}

__all__ = list(_HOMES)

# The distribution's version (pyproject.toml reads it from here).
__version__ = "0.1.0"

_SUBPACKAGES: Final = frozenset({"tokens", "records", "retrieval", "thrift", "render", "sources", "cli"})


def __getattr__(name: str) -> object:
    if name in _SUBPACKAGES:
        return importlib.import_module(f"thrift_fp.{name}")  # the import binds it here too
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'thrift_fp' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
