"""The MCP server: the low-level SDK ``Server`` with the two tools and the receipts resource,
served over stdio or streamable HTTP.

Each call's work (retrieval, fit, render: synchronous and CPU-bound) runs in a worker thread
on a snapshot of the session's ledger and yields a `CallCommit` (nothing kept yet), so the event
loop keeps reading the connection: a client's cancel notification cancels the call's scope here,
which aborts the lifecycle's signal so the worker stops early. A client that walks away (its
HTTP connection closed, standard input ended) aborts it the same way (`thrift_fp.serve._connection`).
Back on the loop, the commit is applied only after the cancel and drop check, with no await
between them: a cancelled call charges nothing, records nothing as sent, reserves no question,
and shows as cancelled in the receipts.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import re
import socket
import sys
import weakref
from collections.abc import Callable
from typing import IO, Any, Final, cast

import anyio
import anyio.lowlevel
import anyio.to_thread
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from returns.result import Failure, Result

from thrift_fp._shown import shown
from thrift_fp.retrieval import CancellationController
from thrift_fp.serve._arguments import SearchRequest, read_request, search_request
from thrift_fp.serve._backend import Backend
from thrift_fp.serve._connection import DROPPED, Connection, connection_asgi, connection_of
from thrift_fp.serve._frames import TamedLines, tamed_asgi
from thrift_fp.serve._handshake import RECEIPTS_URI, SERVER_NAME, Handshake, instructions
from thrift_fp.serve._asgi import Asgi
from thrift_fp.serve._lifetimes import session_lifetimes_asgi, sweep_idle
from thrift_fp.serve._operator_log import log_failure, secrets_of
from thrift_fp.serve._commit import MAX_ATTEMPTS
from thrift_fp.serve._errors import Cancelled, NoSession, RepeatedCall, ServeError, SourceFailed, UnknownTool
from thrift_fp.serve._ledger import CallRecord, SessionLedger, record_call
from thrift_fp.serve._outcome import ToolAnswer
from thrift_fp.serve._read import answer_read
from thrift_fp.serve._receipts import receipts_json
from thrift_fp.serve._search import answer_search
from thrift_fp.serve._shared_http import CancelRelay, SharedSessions, relay_cancellation, shared_sessions_asgi
from thrift_fp.serve._session_store import Replay, SessionHandle, SessionStore
from thrift_fp.serve._sessions import Sessions
from thrift_fp.serve._settings import ServeSettings
from thrift_fp.serve._tools import TOOL_NAMES, receipts_resource, tool_list

_log: Final = logging.getLogger("thrift_fp.serve")
STDIO_SESSION: Final = "stdio"
CANCELLED_BY_CLIENT: Final = "the client cancelled the request"
INTERNAL_ERROR: Final = "internal error (the server's log has the details); the server keeps serving"

Context = ServerRequestContext[Any, Any]
_SERVED: Final[weakref.WeakKeyDictionary[Server[Any], tuple[SessionStore, ServeSettings]]] = weakref.WeakKeyDictionary()
# The standard input a server serves over stdio (`serve_stdio`): its end is every call's drop.
_STDIO: Final[weakref.WeakKeyDictionary[Server[Any], Connection]] = weakref.WeakKeyDictionary()


def _served(server: Server[Any]) -> tuple[SessionStore | None, ServeSettings]:
    found = _SERVED.get(server)
    return (None, ServeSettings()) if found is None else found


def session_key(ctx: Context) -> str | None:
    """The session a request belongs to: the whole connection on stdio (one client per
    process), the transport's ``Mcp-Session-Id`` over HTTP (``None`` without one)."""
    request = ctx.request
    if request is None:
        return STDIO_SESSION
    headers = getattr(request, "headers", None)
    found = headers.get("mcp-session-id") if headers is not None else None
    return f"http:{found}" if isinstance(found, str) and found else None


def call_connection(request: object, stdio: Connection | None) -> Connection | None:
    """The connection a call came on: its HTTP ``request``'s (`connection_asgi`), else ``stdio``
    (a call over stdio has no request).

    >>> stdio = Connection()
    >>> call_connection(None, stdio) is stdio, call_connection(object(), stdio)
    (True, None)
    """
    if request is None:
        return stdio
    return connection_of(getattr(request, "scope", None))


def error_kind(error: ServeError) -> str:
    """What kind of tool error ``error`` is, as structured content names it: plain words in snake
    case, not the Python class behind it.

    >>> error_kind(NoSession()), error_kind(SourceFailed("search", "the source failed"))
    ('no_session', 'source_failed')
    """
    return re.sub(r"(?<!^)(?=[A-Z])", "_", type(error).__name__).lower()


def _internal_error(tool: str) -> types.CallToolResult:
    # The agent reads plain words; the exception's type, text and traceback are in the log.
    return _error_result(SourceFailed(tool, INTERNAL_ERROR))


def _error_result(error: ServeError) -> types.CallToolResult:
    structured: dict[str, object] = {"error": error_kind(error), "message": error.message}
    if isinstance(error, RepeatedCall):
        # Names documents chose stay out of the text; the JSON carries them as data.
        structured |= {"answer": error.answer, "outcome": error.outcome, "passages": list(error.passage_ids)}
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=error.message)],
        structured_content=structured,
        is_error=True,
    )


def _answer_result(answer: ToolAnswer) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=answer.text)],
        structured_content=dict(answer.structured),
        is_error=False,
    )


def build_server(backend: Backend, settings: ServeSettings, *, sessions: SessionStore | None = None) -> Server[Any]:
    """The MCP server over ``backend`` under ``settings`` (serve it with `serve_stdio` or
    `serve_http`); ``sessions`` keeps the ledgers (in this process unless given).

    >>> import pathlib
    >>> from thrift_fp.serve import SqliteBackend, serve_settings
    >>> server = build_server(SqliteBackend(pathlib.Path("docs.db")), serve_settings().unwrap())
    >>> server.name, server.get_capabilities().tools is not None
    ('thrift-fp', True)
    """
    from thrift_fp import __version__  # noqa: PLC0415 - the package's own constant

    registry: SessionStore = sessions if sessions is not None else Sessions()
    tools = tool_list(settings, backend.describe())
    # What the operator's log must never show (the database's password, in every spelling).
    secrets = secrets_of(backend)

    async def list_tools(ctx: Context, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Context, params: types.CallToolRequestParams) -> types.CallToolResult:
        key = session_key(ctx)
        if key is None:
            return _error_result(NoSession())
        if params.name not in TOOL_NAMES:
            return _error_result(UnknownTool(params.name, TOOL_NAMES))
        try:
            return await _call(
                registry.session(key), params.name, params.arguments, backend, settings,
                request_key(ctx.request_id, params), None if ctx.request_id is None else str(ctx.request_id),
                call_connection(ctx.request, _STDIO.get(server)),
            )
        except Exception as exc:  # noqa: BLE001 - the one boundary: a bug (or a lost database) must not end the session
            log_failure(_log, f"tool {params.name}", exc, secrets)
            return _internal_error(params.name)

    async def list_resources(ctx: Context, params: types.PaginatedRequestParams | None) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=[receipts_resource()])

    async def read_resource(ctx: Context, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        key = session_key(ctx)
        if params.uri != RECEIPTS_URI or key is None:
            raise MCPError(types.INVALID_PARAMS, f"no resource {params.uri!r} here; read {RECEIPTS_URI} in a session")
        # A shared store reads the database: off the event loop.
        try:
            ledger = await anyio.to_thread.run_sync(lambda: registry.session(key).ledger)
        except Exception as exc:  # noqa: BLE001 - the SDK would send the exception's text to the client
            log_failure(_log, f"reading {RECEIPTS_URI}", exc, secrets)
            raise MCPError(types.INTERNAL_ERROR, f"{RECEIPTS_URI} could not be read: {INTERNAL_ERROR}") from None
        text = json.dumps(receipts_json(ledger, settings), ensure_ascii=False)
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=RECEIPTS_URI, mime_type="application/json", text=text)]
        )

    server: Server[Any] = Server(
        SERVER_NAME,
        version=__version__,
        # The same text `thrift-fp serve` answers `initialize` with before the SDK loads.
        instructions=instructions(backend.describe(), settings.max_calls, settings.max_session_tokens),
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_read_resource=read_resource,
    )
    # serve_http frees this server's sessions and applies its limits.
    _SERVED[server] = (registry, settings)
    return server


def request_key(request_id: object, params: types.CallToolRequestParams) -> str | None:
    """What recognises a request sent again: its JSON-RPC id (unique within a session, by the
    protocol) with a digest of the call, so an id a client wrongly reuses is a new call.

    >>> request_key(7, types.CallToolRequestParams(name="search", arguments={"question": "q"}))
    '7:bb2627af7d9071523839'
    >>> request_key(7, types.CallToolRequestParams(name="search", arguments={"budget": 10**5000})) is None
    True
    """
    if request_id is None:
        return None
    try:
        call = json.dumps([params.name, params.arguments], sort_keys=True, ensure_ascii=False, default=str)
    except (ValueError, RecursionError):
        return None  # arguments no JSON frame carries (an int of thousands of digits): never replayed
    return f"{request_id}:{hashlib.sha256(call.encode('utf-8', 'surrogatepass')).hexdigest()[:20]}"


def _as_tool_result(step: tuple[SessionLedger, Result[ToolAnswer, ServeError]]) -> tuple[SessionLedger, types.CallToolResult]:
    ledger, done = step
    return ledger, (_error_result(done.failure()) if isinstance(done, Failure) else _answer_result(done.unwrap()))


def _replay(request: str | None) -> Replay[types.CallToolResult] | None:
    if request is None:
        return None
    return Replay(
        request, lambda result: result.model_dump_json(by_alias=True, exclude_none=True), types.CallToolResult.model_validate_json
    )


async def _call(
    session: SessionHandle,
    name: str,
    arguments: dict[str, Any] | None,
    backend: Backend,
    settings: ServeSettings,
    request: str | None = None,
    request_id: str | None = None,
    connection: Connection | None = None,
) -> types.CallToolResult:
    controller = CancellationController()
    parsed = search_request(arguments, settings) if name == "search" else read_request(arguments, settings)
    if isinstance(parsed, Failure):
        refused = parsed.failure()
        # Refused arguments are in the receipts too (bounded: they may be hostile), costing nothing.
        await anyio.to_thread.run_sync(lambda: session.step(
            lambda ledger: (record_call(ledger, CallRecord(ledger.next_call, name, shown(arguments), refused.message)), None)
        ))
        return _error_result(refused)

    asked = parsed.unwrap()

    def answer(ledger: SessionLedger) -> tuple[SessionLedger, types.CallToolResult]:
        if isinstance(asked, SearchRequest):
            return _as_tool_result(answer_search(ledger, asked, backend, settings, controller.signal))
        return _as_tool_result(answer_read(ledger, asked, backend, settings, controller.signal))

    def record_cancelled(reason: str) -> None:
        query = asked.question if isinstance(asked, SearchRequest) else asked.passage_id
        message = Cancelled(name, reason).message
        session.step(lambda ledger: (record_call(ledger, CallRecord(ledger.next_call, name, query, message)), None))

    def why_cancelled() -> str:
        # A scope cancelled by the SDK (a cancel notification, standard input ended) or a signal
        # aborted here (a drop, a cancel relayed from another worker): say which.
        if connection is not None and connection.dropped:
            return DROPPED
        return controller.signal.reason or CANCELLED_BY_CLIENT

    # Over a shared store the answer is kept with the call, so a retried request gets it back.
    replay = _replay(request)
    stop_relay = None
    # A client that walks away before its answer is committed has cancelled the call.
    stop_watch = None if connection is None else connection.watch(lambda: controller.abort(DROPPED))
    if isinstance(session, CancelRelay) and request_id is not None:
        # On shared workers a cancel may reach another worker: it is relayed through the database.
        relayed_id = request_id
        stop_relay = relay_cancellation(
            lambda: session.cancel_requested(relayed_id), lambda: controller.abort(CANCELLED_BY_CLIENT)
        )
    try:
        for _ in range(MAX_ATTEMPTS):
            prepared = await anyio.to_thread.run_sync(session.prepare, answer, replay, abandon_on_cancel=True)
            # The cancel check and the commit, with no await between them: a cancel or a drop of
            # the client's connection seen before this point ends the call uncommitted (nothing
            # charged, nothing sent, its question free to ask again); the SDK checks for a cancel
            # again, with no await either, before it writes the answer. A drop seen after the
            # commit is too late: the answer is charged, whether or not it reaches the client.
            await anyio.lowlevel.checkpoint_if_cancelled()
            if controller.signal.aborted or (connection is not None and connection.dropped):
                break  # a drop, or a cancel relayed from another worker: dropped the same way
            if prepared.replayed or session.commit(prepared):
                return prepared.answer
        else:
            return _error_result(
                SourceFailed(name, f"too many calls of this session at once ({MAX_ATTEMPTS} retries); try again")
            )
        reason = why_cancelled()
        await anyio.to_thread.run_sync(record_cancelled, reason)
        return _error_result(Cancelled(name, reason))
    except anyio.get_cancelled_exc_class():
        # The worker (if still running) sees the abort at the lifecycle's next check; its result
        # is never committed. The call is recorded as cancelled, costing nothing.
        controller.abort(CANCELLED_BY_CLIENT)
        reason = why_cancelled()
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(record_cancelled, reason)
        raise
    finally:
        if stop_relay is not None:
            stop_relay()
        if stop_watch is not None:
            stop_watch()


async def serve_stdio(server: Server[Any], first: bytes = b"", handshake: Handshake | None = None) -> None:
    """Serve one client over standard input and output until it closes them.

    ``first`` is a frame already read from standard input (``thrift-fp serve`` reads it before
    the SDK loads); it is read again first. When it was an ``initialize`` the command already
    answered (``handshake``, `thrift_fp.serve._handshake`), the SDK's own answer to it is dropped:
    the SDK still reads the request, so the session is initialized as usual.
    """
    from mcp.server.stdio import stdio_server  # noqa: PLC0415

    # Undecodable bytes become U+FFFD, as the SDK's own reader does; hostile frames are tamed.
    text = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace")
    source = _ReadAgain(first.decode("utf-8", errors="replace"), text) if first else text
    # Standard input ended: the client is gone, and a call not yet committed costs nothing.
    connection = _STDIO[server] = Connection()
    tamed = TamedLines(source, at_end=connection.drop)
    try:
        async with stdio_server(stdin=anyio.wrap_file(cast(IO[str], tamed))) as (read_stream, write_stream):
            written = write_stream if handshake is None else _AnsweredOnce(write_stream, handshake)
            await server.run(read_stream, written, server.create_initialization_options())
    finally:
        # Standard input's buffer is the process's, not this wrapper's to close when it is collected.
        text.detach()


class _ReadAgain(io.TextIOBase):
    """``first`` (a line already read), then the lines of ``rest``."""

    def __init__(self, first: str, rest: io.TextIOBase) -> None:
        self._first: str | None = first
        self._rest = rest

    def readline(self, size: int | None = -1) -> str:  # type: ignore[override]  # io's own signature varies
        """The line read before, then ``rest``'s lines.

        >>> source = _ReadAgain("one\\n", io.StringIO("two\\n"))
        >>> source.readline(), source.readline(), source.readline()
        ('one\\n', 'two\\n', '')
        """
        if self._first is not None:
            first, self._first = self._first, None
            return first
        return self._rest.readline()

    def readable(self) -> bool:
        """It is read from."""
        return True


class _AnsweredOnce:
    """The SDK's write stream without its answer to the ``initialize`` already answered by hand.

    The two answers are the same by construction (``tests/test_serve_handshake.py``); should
    they ever differ, the server says so in its log (the client has the hand answer).
    """

    def __init__(self, stream: Any, handshake: Handshake) -> None:
        self._stream = stream
        self._pending: Handshake | None = handshake

    async def send(self, item: Any) -> None:
        message = getattr(item, "message", None)
        pending = self._pending
        if pending is not None and isinstance(message, types.JSONRPCResponse | types.JSONRPCError) and (
            message.id == pending.request_id
        ):
            self._pending = None
            if message.model_dump_json(by_alias=True, exclude_unset=True) + "\n" != pending.frame:
                _log.warning("initialize was answered before the SDK loaded, and the SDK answers it otherwise")
            return
        await self._stream.send(item)

    async def aclose(self) -> None:
        await self._stream.aclose()

    async def __aenter__(self) -> _AnsweredOnce:
        await self._stream.__aenter__()
        return self

    async def __aexit__(self, *exc: object) -> bool | None:
        done: bool | None = await self._stream.__aexit__(*exc)
        return done


async def serve_http(
    server: Server[Any],
    host: str,
    port: int,
    ready: Callable[[str], None] | None = None,
    shared: SharedSessions | None = None,
) -> None:
    """Serve streamable HTTP at ``http://HOST:PORT/mcp`` (port 0: a free one) until interrupted;
    ``ready(url)`` is called once the socket listens. On a loopback host the SDK's DNS-rebinding
    protection is on (only loopback Host and Origin headers are accepted). With ``shared``
    sessions (kept in a database), any server sharing it serves any session (`shared_sessions_asgi`).
    A body over the operator's ``max_request_bytes`` is refused while it streams in; a session's
    ledger is freed when its client closes it and after ``session_idle_timeout`` idle
    (`thrift_fp.serve._lifetimes`)."""
    import uvicorn  # noqa: PLC0415

    registry, settings = _served(server)
    limits: dict[str, Any] = {
        "host": host, "session_idle_timeout": settings.session_idle_timeout,
        "max_request_body_size": settings.max_request_bytes,
    }
    app: Asgi
    if shared is None:
        app = server.streamable_http_app(**limits)
        if isinstance(registry, Sessions):
            app = session_lifetimes_asgi(app, registry)
        app = tamed_asgi(app, settings.max_request_bytes)
    else:
        app = tamed_asgi(
            shared_sessions_asgi(server.streamable_http_app(**limits, stateless_http=True), shared), settings.max_request_bytes
        )
    # Outermost: it sees the client's disconnect, whatever the layers inside read.
    app = connection_asgi(app)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((host, port))
    # Listening before saying so: a client may connect as soon as it reads the address.
    listener.listen(2048)
    bound = listener.getsockname()[1]
    shown_host = f"[{host}]" if family == socket.AF_INET6 else host
    config = uvicorn.Config(app, log_level="warning", lifespan="on", timeout_graceful_shutdown=2)
    if ready is not None:
        ready(f"http://{shown_host}:{bound}/mcp")
    async with anyio.create_task_group() as group:
        if shared is None and isinstance(registry, Sessions):
            group.start_soon(sweep_idle, registry, settings.session_idle_timeout)
        await uvicorn.Server(config).serve(sockets=[listener])
        group.cancel_scope.cancel()


def announce(url: str) -> None:
    """Say where the server listens, on standard error (standard output may be a protocol)."""
    print(f"thrift-fp: serving MCP at {url}", file=sys.stderr, flush=True)
