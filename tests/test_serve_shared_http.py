"""Two ``thrift-fp serve --http`` processes on one PostgreSQL database, called in turn as a
round-robin balancer would: each serves the session the other started (de-duplication and
quota intact), a worker killed with SIGKILL loses nothing, a retried request is answered once,
an unknown or ended session is 404, and the SDK's own client works through them."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import pytest

from tests import _raw_http as raw_http
from tests._server_tests import fresh_schema
from tests._serve_slow import READ_DELAY_S
from tests._serve_harness import DOCUMENTS, HttpSessions
from tests._serve_process import announced_url, stop
from thrift_fp.serve._connection import DROPPED
from thrift_fp.sources import postgres

MAX_CALLS: Final = 5
_ACCEPT: Final = "application/json, text/event-stream"


class Workers:
    """Servers of one database, each restartable (a worker killed and brought back)."""

    def __init__(self, commands: list[list[str]]) -> None:
        self.commands = commands
        self.processes: list[subprocess.Popen[str]] = []
        self.urls: list[str] = []
        self.started_file = Path()

    def start(self, slot: int | None = None) -> None:
        command = self.commands[len(self.processes) if slot is None else slot]
        assert command[0] == sys.executable, command  # the suite starts no other program
        process = subprocess.Popen([sys.executable, *command[1:]], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                   text=True)
        # The command says what it serves, then where it listens (the test worker only the latter).
        found, said = announced_url(process)
        if slot is None:
            self.processes.append(process)
            self.urls.append("")
            slot = len(self.processes) - 1
        else:
            self.processes[slot] = process
        assert found is not None, f"the server did not start: {said}"
        self.urls[slot] = found

    def kill(self, slot: int) -> None:
        self.processes[slot].send_signal(signal.SIGKILL)
        self.processes[slot].wait(timeout=15)
        if self.processes[slot].stderr is not None:
            self.processes[slot].stderr.close()  # type: ignore[union-attr]  # checked on the line above

    def stop(self) -> None:
        for process in self.processes:
            stop(process, timeout=15)
            if process.stderr is not None:
                process.stderr.close()


@pytest.fixture(scope="module")
def workers(pg_base_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workers]:
    # A schema of its own in the test server, two workers for the whole module.
    root = tmp_path_factory.mktemp("shared")
    for name, text in DOCUMENTS.items():
        (root / name).write_text(text, encoding="utf-8")
    with fresh_schema(pg_base_url, "t_") as url:
        yield from _started_workers(url, root)


def _started_workers(url: str, root: Path) -> Iterator[Workers]:
    # The command itself, and a worker whose searches for "slowly" wait to be cancelled (same settings).
    started = Workers([
        [sys.executable, "-m", "thrift_fp", "serve", "--db", url, "--http", "127.0.0.1:0", "--max-calls", str(MAX_CALLS),
         "--budget", "300"],
        [sys.executable, "-m", "tests._serve_slow_shared", url, str(root / "started")],
    ])
    started.started_file = root / "started"
    try:
        with postgres.open_database(url, create=True).unwrap() as database:
            postgres.index_paths(database, [root]).unwrap()
        started.start()
        started.start()
        yield started
    finally:
        started.stop()


def _post(url: str, message: dict[str, Any], session: str | None = None, method: str = "POST") -> tuple[int, dict[str, str], Any]:
    headers = {"Content-Type": "application/json", "Accept": _ACCEPT, "Mcp-Protocol-Version": "2025-11-25"}
    if session is not None:
        headers["Mcp-Session-Id"] = session
    body = json.dumps(message).encode() if method == "POST" else None
    request = urllib.request.Request(url, data=body, headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            status, text = response.status, response.read().decode("utf-8")
            answer = {key.lower(): value for key, value in response.headers.items()}
    except urllib.error.HTTPError as error:
        status, text, answer = error.code, error.read().decode("utf-8"), {}
    lines = [line[len("data: "):] for line in text.splitlines() if line.startswith("data: ")]
    found = json.loads(lines[-1]) if lines else (json.loads(text) if text.strip() else None)
    return status, answer, found


def _initialize(url: str) -> str:
    status, headers, _ = _post(url, {
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "balancer", "version": "0"}},
    })
    assert status == 200, status
    session = headers["mcp-session-id"]
    _post(url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
    return session


def _search(url: str, session: str, number: int, question: str) -> dict[str, Any]:
    status, _, message = _post(url, {
        "jsonrpc": "2.0", "id": number, "method": "tools/call",
        "params": {"name": "search", "arguments": {"question": question, "budget": 400}},
    }, session)
    assert status == 200, (status, message)
    result: dict[str, Any] = message["result"]
    return result


def _receipts(url: str, session: str) -> dict[str, Any]:
    _, _, message = _post(url, {"jsonrpc": "2.0", "id": 999, "method": "resources/read", "params": {"uri": "receipts://session"}}, session)
    loaded: dict[str, Any] = json.loads(message["result"]["contents"][0]["text"])
    return loaded


def test_workers_share_a_session_and_one_killed_loses_nothing(workers: Workers) -> None:
    first, second = workers.urls
    session = _initialize(first)
    answered = _search(second, session, 1, "shedding budget")
    assert answered["isError"] is False and answered["structuredContent"]["session"]["calls_used"] == 1
    sent = [row["id"] for row in answered["structuredContent"]["passages"] if row["kept"]]
    assert sent
    again = _search(first, session, 2, "shedding lowest score first")
    assert again["isError"] is False, again["content"]
    repeated = [row["id"] for row in again["structuredContent"]["repeated"]]
    assert repeated and set(repeated) <= set(sent)
    # The same request sent again to the other worker (a retry): its kept answer, no second charge.
    assert _search(second, session, 2, "shedding lowest score first") == again
    workers.kill(0)
    done: dict[str, Any] = {}
    for number, question in enumerate(("envelopes nonce", "quotas calls"), start=3):
        done = _search(second, session, number, question)
        assert done["isError"] is False
    workers.start(0)
    # The restarted worker knows the session it never saw: the quota goes on where it was.
    for number, question in enumerate(("receipts sources", "handles"), start=5):
        done = _search(workers.urls[number % 2], session, number, question)
    assert done["isError"] is True and "quota exhausted" in done["content"][0]["text"]
    receipts = _receipts(second, session)
    assert receipts["session"]["calls_used"] == MAX_CALLS
    assert [call["call"] for call in receipts["calls"]] == [1, 2, 3, 4, 5, 6]
    assert receipts["session"]["tokens_used"] == sum(call["tokens"] for call in receipts["calls"])
    delivered = [passage for call in receipts["calls"] for passage in call["sent"]]
    assert len(delivered) == len(set(delivered))


def test_an_unknown_or_ended_session_is_not_found_on_any_worker(workers: Workers) -> None:
    first, second = workers.urls
    assert _post(first, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, "no-such-session")[0] == 404
    session = _initialize(first)
    assert _post(second, {}, session, method="DELETE")[0] == 200
    assert _post(first, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, session)[0] == 404


def test_the_sdk_client_works_through_a_shared_worker(workers: Workers) -> None:
    first = workers.urls[0]
    sessions = HttpSessions(first)
    try:
        client = sessions.open()
        answer = client.call("search", {"question": "envelopes nonce", "budget": 300})
        assert not answer.is_error
        assert client.receipts()["session"]["calls_used"] == 1
    finally:
        sessions.close()


def test_a_cancel_sent_to_another_worker_aborts_the_call(workers: Workers) -> None:
    first, slow = workers.urls
    session = _initialize(first)
    answers: list[dict[str, Any]] = []
    call = threading.Thread(target=lambda: answers.append(_search(slow, session, 1, "answer slowly")))
    call.start()
    deadline = time.monotonic() + 30
    while not workers.started_file.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert workers.started_file.exists()
    status, _, _ = _post(first, {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}, session)
    assert status == 202
    call.join(timeout=30)
    [cancelled] = answers
    assert cancelled["isError"] is True and "cancelled" in cancelled["content"][0]["text"]
    receipts = _receipts(first, session)
    assert receipts["session"]["tokens_used"] == 0 and receipts["calls"][0]["sent"] == []
    assert _search(first, session, 2, "budgets")["isError"] is False


def test_a_client_that_walks_away_while_its_answer_is_built_is_charged_nothing_on_any_worker(workers: Workers) -> None:
    # The slow worker finishes building the read's answer after its client has closed the
    # connection: only the check before its row is written keeps it uncharged.
    first, slow = workers.urls
    workers.started_file.touch()  # searches answer at once
    marker = workers.started_file.with_name(workers.started_file.name + ".read")
    marker.unlink(missing_ok=True)
    session = _initialize(first)
    found = raw_http.call(slow, session, 1, "search", {"question": "walker gitignore parser", "budget": 400})
    shed = [row["id"] for row in found["structuredContent"]["passages"] if not row["kept"]]
    assert shed, found
    before = _receipts(first, session)["session"]
    reading = {"id": shed[0], "budget": 2000}
    assert b'"result"' not in raw_http.walk_away(slow, session, raw_http.tool_call(2, "read", reading), marker)
    time.sleep(READ_DELAY_S + 0.5)  # the worker has finished building the answer by now
    calls = raw_http.calls_once(first, session, 2)
    assert calls[-1]["outcome"] == f"read: cancelled ({DROPPED}); nothing was sent", calls
    assert _receipts(first, session)["session"] == before
    again = raw_http.call(first, session, 3, "read", reading)
    assert again["isError"] is False and again["structuredContent"]["cut"] is False, again["content"]
