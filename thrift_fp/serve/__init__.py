"""``thrift-fp serve``: budgeted, enveloped retrieval for any agent over MCP (the ``mcp`` extra).

Two tools, ``search`` and ``read``, and a ``receipts://session`` resource, over stdio or
streamable HTTP. Each MCP session owns its retrieval state: a quota of calls and tokens,
de-duplication of what it was sent, cancellation through the lifecycle's signal, receipts.
``import thrift_fp`` never imports this package (nor the SDK), and this face imports each name
on first use: ``thrift-fp serve`` answers ``initialize`` from `thrift_fp.serve._handshake`
before the SDK loads.

The face names what a user calls: run the server (`run_server`, or `build_server` with
`serve_stdio` / `serve_http`; `serve_command` is ``thrift-fp serve`` itself), its settings
(`serve_settings`, `ServeSettings`) and sources (`Backend`, `SqliteBackend`); the per-session logic
without MCP (`answer_search`, `answer_read` on a `SessionLedger`, with requests checked from a
client's arguments by `search_request` / `read_request`); and the tool errors (`ServeError`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from thrift_fp._lazy import homes, lazy_face

if TYPE_CHECKING:  # for mypy and Griffe; at run time lazy_face imports each name on first use
    from thrift_fp.serve._address import http_address, is_loopback
    from thrift_fp.serve._arguments import ReadRequest, SearchRequest, read_request, search_request
    from thrift_fp.serve._backend import Backend, SqliteBackend
    from thrift_fp.serve._command import serve_command
    from thrift_fp.serve._errors import (
        Cancelled,
        InvalidSetting,
        InvalidToolArgument,
        NoSession,
        QuotaExhausted,
        RepeatedCall,
        ServeError,
        SourceFailed,
        UnknownPassage,
        UnknownTool,
    )
    from thrift_fp.serve._ledger import (
        CallRecord,
        Delivery,
        SessionLedger,
        grant_budget,
        record_call,
        split_delivered,
    )
    from thrift_fp.serve._outcome import ToolAnswer
    from thrift_fp.serve._read import answer_read
    from thrift_fp.serve._receipts import receipts_json
    from thrift_fp.serve._run import run_server
    from thrift_fp.serve._search import answer_search
    from thrift_fp.serve._server import build_server, serve_http, serve_stdio, session_key
    from thrift_fp.serve._sessions import Session, Sessions
    from thrift_fp.serve._settings import ServeSettings, serve_settings
    from thrift_fp.serve._handshake import RECEIPTS_URI
    from thrift_fp.serve._tools import TOOL_NAMES, receipts_resource, tool_list

# Where each name lives; tests/test_sources_stack.py checks this table against the imports above.
# ``__all__`` names what users call; the rest of the table (_RETIRED below) still imports from
# here, with a warning.
_HOMES = homes({
    "thrift_fp.serve._address": ("http_address", "is_loopback"),
    "thrift_fp.serve._arguments": ("ReadRequest", "SearchRequest", "read_request", "search_request"),
    "thrift_fp.serve._backend": ("Backend", "SqliteBackend"),
    "thrift_fp.serve._command": ("serve_command",),
    "thrift_fp.serve._errors": (
        "Cancelled", "InvalidSetting", "InvalidToolArgument", "NoSession", "QuotaExhausted", "RepeatedCall",
        "ServeError", "SourceFailed", "UnknownPassage", "UnknownTool",
    ),
    "thrift_fp.serve._ledger": (
        "CallRecord", "Delivery", "SessionLedger", "grant_budget", "record_call", "split_delivered",
    ),
    "thrift_fp.serve._outcome": ("ToolAnswer",),
    "thrift_fp.serve._read": ("answer_read",),
    "thrift_fp.serve._receipts": ("receipts_json",),
    "thrift_fp.serve._run": ("run_server",),
    "thrift_fp.serve._search": ("answer_search",),
    "thrift_fp.serve._server": ("build_server", "serve_http", "serve_stdio", "session_key"),
    "thrift_fp.serve._sessions": ("Session", "Sessions"),
    "thrift_fp.serve._settings": ("ServeSettings", "serve_settings"),
    "thrift_fp.serve._handshake": ("RECEIPTS_URI",),
    "thrift_fp.serve._tools": ("TOOL_NAMES", "receipts_resource", "tool_list"),
})

__all__ = [
    "Backend",
    "CallRecord",
    "Cancelled",
    "Delivery",
    "InvalidSetting",
    "InvalidToolArgument",
    "NoSession",
    "QuotaExhausted",
    "ReadRequest",
    "RepeatedCall",
    "SearchRequest",
    "ServeError",
    "ServeSettings",
    "SessionLedger",
    "SourceFailed",
    "SqliteBackend",
    "ToolAnswer",
    "UnknownPassage",
    "UnknownTool",
    "answer_read",
    "answer_search",
    "build_server",
    "read_request",
    "run_server",
    "search_request",
    "serve_command",
    "serve_http",
    "serve_settings",
    "serve_stdio",
]

# Names that left the face (the server's own machinery; issue 37): each still imports from here,
# with a DeprecationWarning saying what to use instead, until a later release.
_INTERNAL = "it is the server's own machinery, not part of the API"
_CHARGED = "answer_search and answer_read charge the ledger themselves"
_ADDRESS = "pass the address to run_server(http=...), which checks it"
_RETIRED = {
    **dict.fromkeys(("RECEIPTS_URI", "TOOL_NAMES", "receipts_resource", "tool_list"), _INTERNAL),
    **dict.fromkeys(("Session", "Sessions", "session_key"), _INTERNAL),
    **dict.fromkeys(("grant_budget", "record_call", "split_delivered"), _CHARGED),
    **dict.fromkeys(("http_address", "is_loopback"), _ADDRESS),
    "receipts_json": "read a SessionLedger's calls (CallRecord) instead",
}

# Every public function is type-checked at this boundary (see thrift_fp/_beartype.py).
if not TYPE_CHECKING:  # mypy checks each import against the static imports above
    __getattr__, __dir__ = lazy_face(globals(), _HOMES, check=True, retired=_RETIRED)
