"""How long an HTTP session's ledger lives: until its client closes the session, or until it has
been idle for the operator's ``session_idle_timeout``.

The SDK's transport ends a session on ``DELETE`` and after the same idle time, and then answers
404 to its id; this layer frees the session's ledger at those moments too, so a server that
sees many short sessions holds only the live ones. The idle sweep waits a little longer than
the transport does, so a ledger is never freed while the transport could still accept a
request of its session (which would start the session's quotas afresh).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Final

import anyio

from thrift_fp.serve._asgi import SESSION_HEADER, Asgi, Message, Receive, Scope, Send
from thrift_fp.serve._sessions import Sessions

# The sweep frees a session this much later than the transport ends it (seconds, and a share).
_MARGIN_S: Final = 1.0
_MARGIN_SHARE: Final = 0.05


def session_of(scope: Scope) -> str | None:
    """The session key (``"http:"`` and its id) a request names, if any.

    >>> session_of({"headers": [(b"mcp-session-id", b"abc")]}), session_of({"headers": []})
    ('http:abc', None)
    """
    found = next((value for name, value in scope.get("headers", ()) if name == SESSION_HEADER), None)
    return None if found is None else f"http:{found.decode('latin-1')}"


def session_lifetimes_asgi(app: Asgi, sessions: Sessions, clock: Callable[[], float] = time.monotonic) -> Asgi:
    """``app`` with each session's activity told to ``sessions``, and its ledger freed as soon as
    a ``DELETE`` of the session succeeds."""

    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        key = session_of(scope) if scope.get("type") == "http" else None
        if key is None:
            await app(scope, receive, send)
            return
        status = 0

        async def watched(message: Message) -> None:
            nonlocal status
            if message.get("type") == "http.response.start":
                status = int(message.get("status", 0))
            await send(message)

        sessions.started(key, clock())
        try:
            await app(scope, receive, watched)
        finally:
            sessions.ended(key, clock())
            if scope.get("method") == "DELETE" and 200 <= status < 300:
                sessions.forget(key)

    return wrapped


def sweep_after(idle: float) -> float:
    """How long after its last request a session's ledger is freed: a little after the transport
    has ended the session.

    >>> sweep_after(1800.0)
    1891.0
    """
    return idle * (1 + _MARGIN_SHARE) + _MARGIN_S


async def sweep_idle(sessions: Sessions, idle: float, clock: Callable[[], float] = time.monotonic) -> None:
    """Free idle sessions' ledgers (`sweep_after` ``idle`` seconds without a request), checking
    a few times per idle period, until cancelled."""
    after = sweep_after(idle)
    while True:
        await anyio.sleep(min(max(after / 4, 0.05), 30.0))
        sessions.forget_idle(after, clock())
