"""Drive a real ``thrift-fp serve`` through the SDK's own client, from synchronous tests.

A `Client` holds one MCP session open in a blocking portal (an event loop on its own thread),
so one server per test module serves many tests. Servers are started by the tests themselves,
bound to 127.0.0.1 only, and always stopped.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager
from pathlib import Path
from typing import Any, Final

import mcp_types as types
from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from properties.render_parser import ParsedEnvelope, split_served
from tests._serve_process import announced_url, stop
from thrift_fp.sources import index_paths
from thrift_fp.tokens import count_tokens

# Six documents in two tiers: enough hits for a budget to shed, and for a second question to
# find passages the first one already sent.
DOCUMENTS: Final = {
    "shedding.md": "# Shedding\n\nShedding drops the lowest score first, until the working set fits the budget.\n",
    "budgets.md": "# Budgets\n\nA budget is the window minus the reserve, counted in real tokens.\n",
    "envelopes.md": "# Envelopes\n\nEnvelopes carry a nonce, so retrieved text cannot close them early.\n",
    "quotas.md": "# Quotas\n\nEach session has a quota of calls and of tokens; shedding keeps answers in budget.\n",
    "receipts.md": "# Receipts\n\nA receipt names the query, its sources and when it ran; budgets are in it.\n",
    "handles.md": "# Handles\n\nHandles name spooled artifacts by length and lines, never by text.\n",
    # Three sections, each too long to share a passage with another (the bound is 256 tokens).
    "walk.md": "".join(
        f"## {title}\n\n{first}" + " It proceeds in name order, one entry after another, below the root." * 14 + "\n\n"
        for title, first in (
            ("Walk", "First the walker lists folders."),
            ("Filter", "Then gitignore patterns filter files."),
            ("Parse", "Last each parser yields sections."),
        )
    ),
}
THIRD_PARTY: Final = {"forum.md": "# Forum post\n\nSomeone says shedding should drop the oldest first.\n"}


def build_index(root: Path) -> Path:
    """An index of `DOCUMENTS` (first-party) and `THIRD_PARTY` (third-party-public) under ``root``."""
    for folder, documents in (("docs", DOCUMENTS), ("forum", THIRD_PARTY)):
        (root / folder).mkdir(parents=True, exist_ok=True)
        for name, text in documents.items():
            (root / folder / name).write_text(text, encoding="utf-8")
    database = root / "index.db"
    index_paths(database, [root / "docs"]).unwrap()
    index_paths(database, [root / "forum"], trust_tier="third-party-public").unwrap()
    return database


def serve_command(database: Path, *options: str) -> list[str]:
    """The command line that serves ``database`` (this interpreter, this checkout)."""
    return [sys.executable, "-m", "thrift_fp", "serve", "--db", str(database), *options]


def counted(text: str) -> int:
    """The tokens of ``text``, counted afresh (cl100k_base)."""
    return count_tokens(text).unwrap().tokens


def envelopes(text: str) -> tuple[ParsedEnvelope, ...]:
    """The envelopes in an answer (the directive leads; its notes come after the blocks)."""
    return split_served(text)[0]


def notes(text: str) -> str:
    """The text of an answer outside its directive and envelopes."""
    return split_served(text)[1]


class Client:
    """One MCP session, called synchronously."""

    def __init__(self, portal: BlockingPortal, session: ClientSession) -> None:
        self.portal = portal
        self.session = session

    def tools(self) -> list[types.Tool]:
        return self.portal.call(self.session.list_tools).tools

    def call(self, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        result: types.CallToolResult = self.portal.call(self.session.call_tool, name, arguments)
        return result

    def text(self, result: types.CallToolResult) -> str:
        block = result.content[0]
        assert isinstance(block, types.TextContent)
        return block.text

    def receipts(self) -> dict[str, Any]:
        read = self.portal.call(self.session.read_resource, "receipts://session")
        contents = read.contents[0]
        assert isinstance(contents, types.TextResourceContents)
        loaded: dict[str, Any] = json.loads(contents.text)
        return loaded


@contextmanager
def _session(portal: BlockingPortal, transport: AbstractContextManager[Any]) -> Iterator[Client]:
    with transport as streams:
        read_stream, write_stream = streams[0], streams[1]
        with portal.wrap_async_context_manager(ClientSession(read_stream, write_stream)) as session:
            portal.call(session.initialize)
            yield Client(portal, session)


@contextmanager
def stdio_session(command: list[str]) -> Iterator[Client]:
    """A server spawned over stdio (the SDK stops it when the session ends)."""
    parameters = StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))
    with start_blocking_portal() as portal, open(os.devnull, "w") as errlog:
        with _session(portal, portal.wrap_async_context_manager(stdio_client(parameters, errlog=errlog))) as client:
            yield client


@contextmanager
def http_server(command: list[str]) -> Iterator[str]:
    """A server started with ``--http 127.0.0.1:0``: its URL; stopped (and waited for) on exit.
    ``command`` runs on this interpreter (`serve_command`): the suite starts no other program."""
    assert command[0] == sys.executable, command
    process = subprocess.Popen([sys.executable, *command[1:], "--http", "127.0.0.1:0"], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
    try:
        found, said = announced_url(process)
        assert found is not None, f"the server did not start: {said}"
        yield found
    finally:
        stop(process, timeout=15)
        if process.stderr is not None:
            process.stderr.close()


class HttpSessions:
    """Opens MCP sessions on one HTTP server, each its own SDK client; all closed at the end."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._stack = ExitStack()
        self._portal = self._stack.enter_context(start_blocking_portal())

    def open(self) -> Client:
        transport = self._portal.wrap_async_context_manager(streamable_http_client(self.url))
        return self._stack.enter_context(_session(self._portal, transport))

    def close(self) -> None:
        self._stack.close()
