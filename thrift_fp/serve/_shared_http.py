"""Streamable HTTP sessions that any worker sharing the database can serve.

The SDK's own sessions live in the memory of the process that saw ``initialize``: behind a
round-robin balancer the next request lands on a worker that answers 404. With a shared store
the SDK runs stateless (every request stands alone) and this layer keeps the session: it gives
an ``initialize`` a new ``Mcp-Session-Id`` (a row in the database), answers 404 to an id no
worker started (or one ended), ends a session on ``DELETE``, and lets the rest through, where
the tools find the session's ledger by that id in the database.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Final, Protocol, runtime_checkable

import anyio.to_thread

from thrift_fp.serve._asgi import SESSION_HEADER, Asgi, Message, Receive, Scope, Send, replaying
from thrift_fp.serve._session_store import SessionHandle


@runtime_checkable
class SharedSessions(Protocol):
    """A session store several servers share: sessions by key, started, checked and ended by id."""

    def session(self, key: str) -> SessionHandle:
        """The session for ``key`` (``"http:"`` and its id)."""
        ...

    def start(self) -> str:
        """A new session's id."""
        ...

    def known(self, token: str) -> bool:
        """Whether ``token`` is a started session not ended."""
        ...

    def end(self, token: str) -> bool:
        """End ``token``; whether it was open."""
        ...

    def cancel(self, token: str, request_id: str) -> None:
        """Note that ``token``'s client cancelled its request ``request_id``."""
        ...


@runtime_checkable
class CancelRelay(Protocol):
    """A session that learns of cancellations sent to other workers."""

    def cancel_requested(self, request_id: str) -> bool:
        """Whether the client cancelled its request ``request_id``."""
        ...


# How often a running call asks whether it was cancelled on another worker.
CANCEL_POLL_SECONDS: Final = 0.1


def relay_cancellation(
    cancelled: Callable[[], bool], abort: Callable[[], object], interval: float = CANCEL_POLL_SECONDS
) -> Callable[[], None]:
    """Ask ``cancelled()`` every ``interval`` seconds, on a thread of its own, and ``abort()`` once
    it says so; returns the function that stops asking.

    >>> import threading
    >>> aborted = threading.Event()
    >>> stop = relay_cancellation(lambda: True, aborted.set, 0.01)
    >>> aborted.wait(5), stop()
    (True, None)
    """
    stopped = threading.Event()

    def poll() -> None:
        while not stopped.wait(interval):
            try:
                found = cancelled()
            except Exception:  # noqa: BLE001 - a lost connection: the call goes on, ask again
                continue
            if found:
                abort()
                return

    threading.Thread(target=poll, name="thrift-fp-cancel-relay", daemon=True).start()
    return stopped.set


def cancelled_request(body: bytes) -> str | None:
    """The request id a ``notifications/cancelled`` body names (``None`` for any other body).

    >>> cancelled_request(b'{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 4}}')
    '4'
    >>> cancelled_request(b'{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": true}}')
    """
    try:
        message = json.loads(body)
    except ValueError:
        return None
    if not isinstance(message, dict) or message.get("method") != "notifications/cancelled":
        return None
    params = message.get("params")
    found = params.get("requestId") if isinstance(params, dict) else None
    return str(found) if isinstance(found, str | int) and not isinstance(found, bool) else None


def is_initialize(body: bytes) -> bool:
    """Whether a request body is a JSON-RPC ``initialize`` request.

    >>> is_initialize(b'{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}')
    True
    >>> is_initialize(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}'), is_initialize(b"\\xff")
    (False, False)
    """
    try:
        message = json.loads(body)
    except ValueError:
        return False
    return isinstance(message, dict) and message.get("method") == "initialize" and "id" in message


def _status(status: int, message: str, headers: tuple[tuple[bytes, bytes], ...] = ()) -> tuple[Message, Message]:
    body = json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": message}}).encode()
    start: Message = {
        "type": "http.response.start",
        "status": status,
        "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), *headers],
    }
    return start, {"type": "http.response.body", "body": body}


async def _respond(send: Send, status: int, message: str, headers: tuple[tuple[bytes, bytes], ...] = ()) -> None:
    start, body = _status(status, message, headers)
    await send(start)
    await send(body)


def shared_sessions_asgi(app: Asgi, sessions: SharedSessions) -> Asgi:
    """``app`` (the SDK's stateless streamable HTTP app) with its sessions kept in ``sessions``."""

    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("type") != "http":
            await app(scope, receive, send)
            return
        method = scope.get("method")
        token = next((value.decode("latin-1") for name, value in scope.get("headers", ()) if name == SESSION_HEADER), None)
        if token is None:
            if method != "POST":
                await app(scope, receive, send)
                return
            first = await receive()
            started = await anyio.to_thread.run_sync(sessions.start) if is_initialize(first.get("body", b"")) else None

            async def with_session(message: Message) -> None:
                if started is not None and message.get("type") == "http.response.start":
                    message = {**message, "headers": [*message.get("headers", ()), (SESSION_HEADER, started.encode())]}
                await send(message)

            await app(scope, replaying(first, receive), with_session)
            return
        if not await anyio.to_thread.run_sync(sessions.known, token):
            # The spec's answer to an unknown or ended session: the client starts a new one.
            await _respond(send, 404, "Session not found")
            return
        if method == "DELETE":
            await anyio.to_thread.run_sync(sessions.end, token)
            await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"0")]})
            await send({"type": "http.response.body", "body": b""})
            return
        if method == "POST":
            first = await receive()
            request_id = cancelled_request(first.get("body", b""))
            if request_id is not None:
                # The call may run on another worker: it learns of this from the database.
                await anyio.to_thread.run_sync(sessions.cancel, token, request_id)
            await app(scope, replaying(first, receive), send)
            return
        if method == "GET":
            # No stream of server-initiated messages: this server sends none outside a call.
            await _respond(send, 405, "Method Not Allowed: no server-initiated stream", ((b"allow", b"POST, DELETE"),))
            return
        await app(scope, receive, send)

    return wrapped
