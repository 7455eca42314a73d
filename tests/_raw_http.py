"""An MCP session over streamable HTTP written by hand (no SDK client), for the frames and the
connections no SDK client makes: bytes that are not UTF-8, a client that walks away mid-call."""

from __future__ import annotations

import json
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

PROTOCOL_VERSION = "2025-11-25"


def post(url: str, body: bytes, session: str | None = None) -> tuple[dict[str, str], list[dict[str, object]]]:
    """POST ``body`` (in ``session``): the answer's headers and its JSON-RPC messages."""
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if session is not None:
        headers |= {"Mcp-Session-Id": session, "Mcp-Protocol-Version": PROTOCOL_VERSION}
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            text = response.read().decode("utf-8")
            answer_headers = {key.lower(): value for key, value in response.headers.items()}
    except urllib.error.HTTPError as error:
        text, answer_headers = error.read().decode("utf-8"), {}
    lines = [line[len("data: "):] for line in text.splitlines() if line.startswith("data: ")]
    messages = [json.loads(line) for line in lines] if lines else ([json.loads(text)] if text.strip() else [])
    return answer_headers, messages


def raw_session(url: str) -> str:
    """A new session's id, after the ``initialize`` handshake."""
    initialize = {
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": PROTOCOL_VERSION, "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}},
    }
    headers, _ = post(url, json.dumps(initialize).encode())
    session = headers["mcp-session-id"]
    post(url, b'{"jsonrpc": "2.0", "method": "notifications/initialized"}', session)
    return session


def tool_call(number: int, tool: str, arguments: dict[str, Any]) -> bytes:
    """The body of a ``tools/call`` request."""
    message = {"jsonrpc": "2.0", "id": number, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}
    return json.dumps(message).encode()


def call(url: str, session: str, number: int, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """A tool call's result."""
    _, messages = post(url, tool_call(number, tool, arguments), session)
    result: dict[str, Any] = messages[-1]["result"]  # type: ignore[assignment]  # a tools/call result is an object
    return result


def receipts(url: str, session: str) -> dict[str, Any]:
    """The session's ``receipts://session``."""
    _, messages = post(url, b'{"jsonrpc": "2.0", "id": 999, "method": "resources/read", "params": {"uri": "receipts://session"}}', session)
    result: dict[str, Any] = messages[0]["result"]  # type: ignore[assignment]
    loaded: dict[str, Any] = json.loads(result["contents"][0]["text"])
    return loaded


def walk_away(url: str, session: str, body: bytes, once: Path, *, reset: bool = False) -> bytes:
    """POST ``body`` on a socket of its own and close the socket as soon as the file ``once``
    exists (the server's call has reached its slow point): the client walks away mid-call.
    ``reset`` closes with a TCP reset instead of an orderly close. What the server had sent by
    then (its answer must not be among it)."""
    parsed = urllib.parse.urlsplit(url)
    head = (
        f"POST {parsed.path} HTTP/1.1\r\nHost: {parsed.netloc}\r\nContent-Type: application/json\r\n"
        f"Accept: application/json, text/event-stream\r\nMcp-Session-Id: {session}\r\n"
        f"Mcp-Protocol-Version: {PROTOCOL_VERSION}\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    connection = socket.create_connection((parsed.hostname, parsed.port), timeout=30)
    received = b""
    try:
        connection.sendall(head.encode() + body)
        deadline = time.monotonic() + 30  # the call never reached its slow point: fail, not hang
        while not once.exists():
            assert time.monotonic() < deadline, f"the call never reached {once.name}"
            time.sleep(0.01)
        connection.setblocking(False)
        try:
            received = connection.recv(65536)
        except BlockingIOError:
            pass
        if reset:
            connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
    finally:
        connection.close()
    return received


def calls_once(url: str, session: str, count: int, wait: float = 20.0) -> list[dict[str, Any]]:
    """The session's calls, once there are ``count`` of them (a dropped call is recorded as the
    server drops it), or as they are after ``wait`` seconds."""
    deadline = time.monotonic() + wait
    found: list[dict[str, Any]] = receipts(url, session)["calls"]
    while len(found) < count and time.monotonic() < deadline:
        time.sleep(0.05)
        found = receipts(url, session)["calls"]
    return found
