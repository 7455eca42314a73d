"""A client's cancel notification reaches the lifecycle's signal mid-call: the call ends as
cancelled (nothing sent, no tokens charged, shown in the receipts) and the session goes on."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from tests._serve_harness import Client, build_index, stdio_session


@pytest.fixture(scope="module")
def started(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("serve-cancel") / "started"


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory, started: Path) -> Iterator[Client]:
    database = build_index(tmp_path_factory.mktemp("serve-cancel-index"))
    with stdio_session([sys.executable, "-m", "tests._serve_slow", str(database), str(started)]) as session:
        yield session


def test_a_cancelled_call_aborts_through_the_signal_and_the_session_goes_on(client: Client, started: Path) -> None:
    async def cancel_once_running() -> bool:
        with anyio.CancelScope() as scope:
            async with anyio.create_task_group() as group:

                async def watch() -> None:
                    while not started.exists():
                        await anyio.sleep(0.02)
                    scope.cancel()

                group.start_soon(watch)
                await client.session.call_tool("search", {"question": "answer slowly", "budget": 300})
        return scope.cancelled_caught

    assert client.portal.call(cancel_once_running)
    deadline = time.monotonic() + 20
    calls = client.receipts()["calls"]
    while not calls and time.monotonic() < deadline:  # the worker records the call once it sees the abort
        time.sleep(0.05)
        calls = client.receipts()["calls"]
    [cancelled] = calls
    assert cancelled["outcome"] == "search: cancelled (the client cancelled the request); nothing was sent"
    assert cancelled["tokens"] == 0 and cancelled["sent"] == [] and cancelled["receipt"] is None
    answered = client.call("search", {"question": "budgets", "budget": 300})
    assert not answered.is_error and answered.structured_content is not None
    assert answered.structured_content["session"]["tokens_used"] == answered.structured_content["tokens"]
