"""An HTTP session's ledger lives until its client closes the session (freed at once) or until it
has been idle past the operator's time (freed by the sweep, a little after the transport ends it)."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from thrift_fp.serve._lifetimes import session_lifetimes_asgi, sweep_after, sweep_idle
from thrift_fp.serve._sessions import Sessions


def _request(method: str, session: str) -> dict[str, Any]:
    return {"type": "http", "method": method, "headers": [(b"mcp-session-id", session.encode())]}


def _app(status: int) -> Any:
    async def app(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": status, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    return app


async def _nothing() -> dict[str, Any]:
    return {"type": "http.disconnect"}


async def _ignore(message: Any) -> None:
    return None


@pytest.mark.parametrize(("status", "kept"), [(200, 0), (404, 1)])
def test_a_session_its_client_closes_is_freed_at_once(status: int, kept: int) -> None:
    sessions = Sessions()
    _ = sessions.session("http:a")
    anyio.run(session_lifetimes_asgi(_app(status), sessions), _request("DELETE", "a"), _nothing, _ignore)
    assert len(sessions) == kept


def test_an_idle_session_is_freed_after_the_operators_time_and_a_busy_one_is_not() -> None:
    sessions = Sessions()
    now = [0.0]
    wrapped = session_lifetimes_asgi(_app(200), sessions, clock=lambda: now[0])
    for key in ("idle", "busy"):
        anyio.run(wrapped, _request("POST", key), _nothing, _ignore)
        _ = sessions.session(f"http:{key}")
    sessions.started("http:busy", 0.0)  # a request still running (a long call)

    async def sweep_for_a_while() -> None:
        with anyio.move_on_after(0.3):
            await sweep_idle(sessions, 0.01, clock=lambda: now[0])

    now[0] = sweep_after(0.01) / 2
    anyio.run(sweep_for_a_while)
    assert len(sessions) == 2
    now[0] = sweep_after(0.01) + 0.001
    anyio.run(sweep_for_a_while)
    assert len(sessions) == 1 and sessions.session("http:busy").version == 0
