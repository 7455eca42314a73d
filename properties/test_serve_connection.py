"""A client's connection as a call sees it (`thrift_fp.serve._connection`): a disconnect the
server reads before the whole answer is written is a drop, one read after is not; every watcher
is told exactly once when it is a drop (however late it started watching), never otherwise;
over any body in any number of chunks, and a disconnect at any point."""

from __future__ import annotations

from typing import Any

import anyio
from hypothesis import given
from hypothesis import strategies as st

from thrift_fp.serve._connection import Connection, connection_asgi, connection_of

WHEN = ("during the body", "while the call runs", "after the answer", "never")


async def _served(chunks: int, when: str, late_watchers: int) -> tuple[bool, list[int]]:
    gone = anyio.Event()
    body = [{"type": "http.request", "body": b"{}", "more_body": index < chunks - 1} for index in range(chunks)]
    if when == "during the body":
        body = body[:-1]
        gone.set()

    async def receive() -> dict[str, Any]:
        if body:
            return body.pop(0)
        await gone.wait()
        return {"type": "http.disconnect"}

    async def send(message: Any) -> None:
        pass

    seen: list[Connection] = []
    told: list[int] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        connection = connection_of(scope)
        assert connection is not None
        seen.append(connection)
        connection.watch(lambda: told.append(0))
        while True:
            message = await receive()
            if message["type"] == "http.disconnect" or not message.get("more_body", False):
                break
        if when == "while the call runs":
            gone.set()
            with anyio.fail_after(5):
                while not connection.dropped:
                    await anyio.sleep(0)
        for number in range(1, late_watchers + 1):
            connection.watch(lambda number=number: told.append(number))  # type: ignore[misc]  # bound per watcher
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}", "more_body": False})
        if when == "after the answer":
            gone.set()
            for _ in range(5):
                await anyio.sleep(0)  # the watcher reads the disconnect now

    await connection_asgi(app)({"type": "http", "method": "POST", "headers": []}, receive, send)
    [connection] = seen
    return connection.dropped, told


@given(chunks=st.integers(1, 4), when=st.sampled_from(WHEN), late_watchers=st.integers(0, 3))
def test_a_disconnect_before_the_whole_answer_is_a_drop_told_once_to_every_watcher(
    chunks: int, when: str, late_watchers: int
) -> None:
    dropped, told = anyio.run(_served, chunks, when, late_watchers)
    expected = when in ("during the body", "while the call runs")
    assert dropped is expected
    assert sorted(told) == (list(range(late_watchers + 1)) if expected else [])


@given(st.lists(st.sampled_from(["drop", "answered", "watch", "stop"]), max_size=12))
def test_watchers_are_told_once_and_only_of_a_drop_before_the_answer(steps: list[str]) -> None:
    # The model: the watchers still watching, the state (open, dropped, answered), what was told.
    connection = Connection()
    told: list[int] = []
    watching: dict[int, Any] = {}
    state = "open"
    for number, step in enumerate(steps):
        before = list(told)
        if step == "drop":
            made = connection.drop()
            assert made is (state == "open")
            expected = sorted(watching) if made else []
            if made:
                state, watching = "dropped", {}
            assert sorted(told[len(before):]) == expected
        elif step == "answered":
            connection.answered()
            if state == "open":
                state, watching = "answered", {}
            assert told == before
        elif step == "watch":
            stop = connection.watch(lambda number=number: told.append(number))  # type: ignore[misc]  # bound per watcher
            assert told[len(before):] == ([number] if state == "dropped" else [])
            if state == "open":
                watching[number] = stop
        elif watching:
            watching.pop(max(watching))()
            assert told == before
    assert len(told) == len(set(told))
    assert connection.dropped is (state == "dropped")
