"""The ASGI types the HTTP session layers wrap an app with, and the MCP session header they read.

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
