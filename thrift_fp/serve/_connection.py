"""Whether the client is still there to take a call's answer: the connection a call came on.

A client that walks away mid-call (an HTTP connection closed before its answer was written,
standard input ended over stdio) must cost what a cancelled call costs: nothing. The SDK does
not tell a tool handler that its HTTP request's connection closed (the handler runs on the
session's own task, the response stream just ends), so this layer watches each POST's connection
itself and hands the call a `Connection`: once the client is gone it says so (``dropped``) and
tells every watcher at once, and the server commits a call only after checking it
(`thrift_fp.serve._server`), with no await between the check and the commit.

What "gone" can mean is only what the server has seen: a close the kernel has not reported yet,
or one that comes after the commit, is not a drop of that call (its answer was committed before
it was written, and is charged).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Final

import anyio

from thrift_fp.serve._asgi import Asgi, Message, Receive, Scope, Send

# Where an HTTP request's scope carries its connection (the SDK hands the handler that scope).
CONNECTION_KEY: Final = "thrift_fp.connection"
DROPPED: Final = "the client's connection closed before the answer was sent"


class Connection:
    """One client connection as a call sees it: ``dropped`` once the client closed it before its
    answer went out (``answered``: a close after that is no drop). Thread-safe: standard input
    ends on a reader thread.

    >>> connection = Connection()
    >>> told = []
    >>> stop = connection.watch(lambda: told.append("gone"))
    >>> connection.drop(), connection.dropped, told
    (True, True, ['gone'])
    >>> answered = Connection(); answered.answered(); answered.drop(), answered.dropped
    (False, False)
    """

    __slots__ = ("_answered", "_dropped", "_lock", "_watchers")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._dropped = False
        self._answered = False
        self._watchers: list[Callable[[], object]] = []

    @property
    def dropped(self) -> bool:
        """Whether the client went away before the answer was written."""
        return self._dropped

    @property
    def settled(self) -> bool:
        """Whether nothing more can happen to it (dropped, or answered)."""
        return self._dropped or self._answered

    def watch(self, told: Callable[[], object]) -> Callable[[], None]:
        """Call ``told()`` once when the client goes away (at once if it has); returns the
        function that stops watching.

        >>> connection = Connection(); connection.drop()
        True
        >>> told = []; _ = connection.watch(lambda: told.append(1)); told
        [1]
        """
        with self._lock:
            dropped = self._dropped
            if not dropped:
                self._watchers.append(told)
        if dropped:
            told()

        def stop() -> None:
            with self._lock:
                if told in self._watchers:
                    self._watchers.remove(told)

        return stop

    def drop(self) -> bool:
        """The client went away; whether this made it a drop (not already answered or dropped)."""
        with self._lock:
            if self._dropped or self._answered:
                return False
            self._dropped = True
            watchers, self._watchers = self._watchers, []
        for told in watchers:
            told()
        return True

    def answered(self) -> None:
        """The whole answer was written: a later close is the client's business."""
        with self._lock:
            self._answered = True
            self._watchers = []


def connection_of(scope: Scope | None) -> Connection | None:
    """The connection `connection_asgi` gave a request's scope (``None`` outside it).

    >>> connection = Connection()
    >>> connection_of({CONNECTION_KEY: connection}) is connection, connection_of({}), connection_of(None)
    (True, None, None)
    """
    found = None if scope is None else scope.get(CONNECTION_KEY)
    return found if isinstance(found, Connection) else None


def connection_asgi(app: Asgi) -> Asgi:
    """``app`` with each POST's `Connection` in its scope (`CONNECTION_KEY`), dropped as soon as
    the server reads the client's disconnect before the whole answer was sent.

    Once the request's body is read, a watcher of its own waits for the disconnect, so the drop
    is seen whatever the response streams or buffers (the ASGI server answers every ``receive``
    after the body with the disconnect alone, to each caller)."""

    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("type") != "http" or scope.get("method") != "POST":
            await app(scope, receive, send)
            return
        connection = Connection()
        body_read = anyio.Event()

        async def watched_receive() -> Message:
            message = await receive()
            if message.get("type") == "http.disconnect":
                connection.drop()
            elif not message.get("more_body", False):
                body_read.set()
            return message

        async def watched_send(message: Message) -> None:
            await send(message)
            if message.get("type") == "http.response.body" and not message.get("more_body", False):
                connection.answered()

        async def listen() -> None:
            await body_read.wait()
            while not connection.settled:
                if (await receive()).get("type") == "http.disconnect":
                    connection.drop()

        async with anyio.create_task_group() as group:
            group.start_soon(listen)
            try:
                await app({**scope, CONNECTION_KEY: connection}, watched_receive, watched_send)
            finally:
                group.cancel_scope.cancel()

    return wrapped
