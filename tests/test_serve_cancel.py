"""Cancel means nothing happened: a client's cancel notification reaches the call mid-work, the
call ends uncommitted (nothing sent, no tokens charged, no passage recorded as sent, its question
free to ask again), the receipts show it as cancelled, and the session goes on. Over stdio and
over streamable HTTP, through the SDK's own client."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import anyio
from returns.result import Success
import pytest

from tests._serve_harness import Client, HttpSessions, build_index, http_server, stdio_session
from tests._serve_slow import READ_DELAY_S

QUESTION: Final = "slowly shedding budgets"


@pytest.fixture(params=["stdio", "http"])
def slow(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Client, Path]]:
    started = tmp_path / "started"
    command = [sys.executable, "-m", "tests._serve_slow", str(build_index(tmp_path)), str(started)]
    if request.param == "stdio":
        with stdio_session(command) as client:
            yield client, started
        return
    with http_server(command) as url:
        sessions = HttpSessions(url)
        try:
            yield sessions.open(), started
        finally:
            sessions.close()


def _cancel_once_running(client: Client, started: Path, tool: str = "search", arguments: dict[str, Any] | None = None) -> bool:
    async def cancel() -> bool:
        with anyio.CancelScope() as scope:
            async with anyio.create_task_group() as group:

                async def watch() -> None:
                    with anyio.fail_after(30):  # the call never reached its slow point: fail, not hang
                        while not started.exists():
                            await anyio.sleep(0.02)
                    scope.cancel()

                group.start_soon(watch)
                await client.session.call_tool(tool, arguments or {"question": QUESTION, "budget": 2000})
        return scope.cancelled_caught

    cancelled: bool = client.portal.call(cancel)
    return cancelled


def _calls(client: Client, count: int) -> list[dict[str, Any]]:
    # The server records the cancelled call as it drops it: wait for the record to land.
    deadline = time.monotonic() + 20
    calls: list[dict[str, Any]] = client.receipts()["calls"]
    while len(calls) < count and time.monotonic() < deadline:
        time.sleep(0.05)
        calls = client.receipts()["calls"]
    return calls


def test_a_cancelled_call_charges_nothing_sends_nothing_and_may_be_asked_again(slow: tuple[Client, Path]) -> None:
    client, started = slow
    assert _cancel_once_running(client, started)
    [cancelled] = _calls(client, 1)
    assert cancelled["outcome"] == "search: cancelled (the client cancelled the request); nothing was sent"
    assert cancelled["tokens"] == 0 and cancelled["sent"] == [] and cancelled["receipt"] is None
    assert client.receipts()["session"] | {"max_calls": 0, "max_session_tokens": 0} == {
        "calls_used": 0, "tokens_used": 0, "max_calls": 0, "max_session_tokens": 0,
    }

    # The same question again is answered afresh (not "already answered"), and every passage the
    # cancelled call had found is sent now: none was recorded as sent.
    again = client.call("search", {"question": QUESTION, "budget": 2000})
    assert not again.is_error, client.text(again)
    structured = again.structured_content
    assert structured is not None and structured["repeated"] == []
    assert [row["id"] for row in structured["passages"] if row["kept"]] == [row["id"] for row in structured["passages"]]
    assert structured["session"]["calls_used"] == 1 and structured["session"]["tokens_used"] == structured["tokens"]
    calls = client.receipts()["calls"]
    assert [call["outcome"] for call in calls] == [cancelled["outcome"], "answered"]
    assert sum(call["tokens"] for call in calls) == structured["tokens"]


def test_a_read_cancelled_while_its_answer_is_built_is_not_kept_though_the_work_finished(
    slow: tuple[Client, Path],
) -> None:
    # The case: the cancel arrives after the lifecycle's last check, the work goes on to
    # the end, and its answer used to be kept (charged, its passages recorded as sent).
    client, started = slow
    started.touch()  # searches answer at once
    # Three long sections: one fits 400 tokens, the other two are shed (retrieved, not sent).
    found = client.call("search", {"question": "walker gitignore parser", "budget": 400})
    assert found.structured_content is not None
    shed = [row["id"] for row in found.structured_content["passages"] if not row["kept"]]
    assert len(shed) == 2
    passage = shed[0]
    before = client.receipts()["session"]
    marker = started.with_name(started.name + ".read")
    reading = {"id": passage, "budget": 2000}
    assert _cancel_once_running(client, marker, "read", reading)
    calls = _calls(client, 2)
    assert calls[-1]["outcome"] == "read: cancelled (the client cancelled the request); nothing was sent"
    time.sleep(READ_DELAY_S + 0.5)  # the worker has finished building the answer by now
    assert client.receipts()["session"] == before and len(client.receipts()["calls"]) == 2
    # Read again: the passage comes whole with the shed one beside it, none named as sent before.
    again = client.call("read", reading)
    assert not again.is_error and again.structured_content is not None, client.text(again)
    assert again.structured_content["cut"] is False and shed[1] in again.structured_content["surroundings"]
    assert client.receipts()["session"]["tokens_used"] == before["tokens_used"] + again.structured_content["tokens"]


def test_asking_again_says_what_really_happened_to_the_question(tmp_path: Path) -> None:
    # Answered: "already answered (answer N)"; failed: "already asked (call N, which ended: why)";
    # cancelled (above): asked afresh. In process, with a source that fails for "boom".
    from properties.test_serve_messages import RaisingBackend  # noqa: PLC0415 - its failing source
    from thrift_fp.serve import SearchRequest, SessionLedger, SqliteBackend, answer_search, serve_settings  # noqa: PLC0415

    settings = serve_settings().unwrap()
    backend = RaisingBackend(SqliteBackend(build_index(tmp_path), dense=False))
    ledger = SessionLedger()
    messages = []
    for question in ("shedding budgets", "boom shedding", "shedding budgets", "boom shedding"):
        ledger, result = answer_search(ledger, SearchRequest(question, 400, settings.tiers), backend, settings)
        messages.append(result.failure().message if not isinstance(result, Success) else "answered")
    failed = "search: the source failed on this call; the server's log has the details"
    assert messages == [
        "answered",
        failed,
        'search: "shedding budgets" was already answered in this session (answer 1); ask something else, or read a passage',
        f'search: "boom shedding" was already asked in this session (call 2, which ended: {failed}); a question runs once per session',
    ]
