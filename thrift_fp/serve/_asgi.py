"""The ASGI types the server's HTTP layers wrap an app with, the MCP session header, and a
``receive`` that replays the message a layer read first (`replaying`).

>>> SESSION_HEADER
b'mcp-session-id'
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, Final

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
Asgi = Callable[[Scope, Receive, Send], Awaitable[None]]

SESSION_HEADER: Final = b"mcp-session-id"


def replaying(first: Message, receive: Receive) -> Receive:
    """A ``receive`` that hands back ``first`` (a message a layer already read, or one it made in
    its place) once, then reads on from ``receive``.

    >>> import asyncio
    >>> async def rest() -> Message:
    ...     return {"type": "http.disconnect"}
    >>> again = replaying({"type": "http.request"}, rest)
    >>> asyncio.run(again())["type"], asyncio.run(again())["type"]
    ('http.request', 'http.disconnect')
    """
    delivered = False

    async def replay() -> Message:
        nonlocal delivered
        if delivered:
            return await receive()
        delivered = True
        return first

    return replay
