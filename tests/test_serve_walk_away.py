"""A client that walks away mid-call has cancelled it: nothing charged, nothing recorded as sent,
the call shown as cancelled in the receipts, its question free to ask again. Over streamable
HTTP the client's connection closes (orderly, or reset) before the answer is written; over
stdio its standard input ends. Each case against a real server whose call is slow at a known
point (`tests._serve_slow`), the HTTP client written by hand on a socket."""

from __future__ import annotations

import io
import json
import os
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import anyio
import pytest

from tests._raw_http import call, calls_once, raw_session, receipts, tool_call, walk_away
from tests._serve_harness import build_index, http_server
from tests._serve_slow import READ_DELAY_S, SlowBackend
from thrift_fp.serve import SqliteBackend, build_server, serve_settings, serve_stdio
from thrift_fp.serve._connection import DROPPED
from thrift_fp.serve._receipts import receipts_json
from thrift_fp.serve._sessions import Sessions

QUESTION: Final = "slowly shedding budgets"


@pytest.fixture(scope="module")
def slow(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    root = tmp_path_factory.mktemp("walk-away")
    started = root / "started"
    with http_server([sys.executable, "-m", "tests._serve_slow", str(build_index(root)), str(started)]) as url:
        yield url, started


@pytest.mark.parametrize("reset", [False, True], ids=["closed", "reset"])
def test_a_search_whose_client_walks_away_mid_call_charges_nothing_and_may_be_asked_again(
    slow: tuple[str, Path], reset: bool
) -> None:
    url, started = slow
    started.unlink(missing_ok=True)  # the next "slowly" search waits until its call is aborted
    session = raw_session(url)
    received = walk_away(url, session, tool_call(2, "search", {"question": QUESTION, "budget": 2000}), started, reset=reset)
    assert b'"result"' not in received
    # The drop aborts the call's work (else the slow search would wait a minute before answering).
    [dropped] = calls_once(url, session, 1)
    assert dropped["outcome"] == f"search: cancelled ({DROPPED}); nothing was sent"
    assert dropped["tokens"] == 0 and dropped["sent"] == [] and dropped["receipt"] is None
    assert receipts(url, session)["session"] | {"max_calls": 0, "max_session_tokens": 0} == {
        "calls_used": 0, "tokens_used": 0, "max_calls": 0, "max_session_tokens": 0,
    }
    # Asked again: answered afresh, every passage sent (none was recorded as sent).
    again = call(url, session, 3, "search", {"question": QUESTION, "budget": 2000})
    assert again["isError"] is False, again["content"]
    structured = again["structuredContent"]
    assert structured["repeated"] == [] and all(row["kept"] for row in structured["passages"])
    assert structured["session"]["calls_used"] == 1 and structured["session"]["tokens_used"] == structured["tokens"]


def _shed_passages(url: str, session: str) -> list[str]:
    # Three long sections: one fits 400 tokens, the other two are shed (retrieved, not sent).
    found = call(url, session, 2, "search", {"question": "walker gitignore parser", "budget": 400})
    shed = [row["id"] for row in found["structuredContent"]["passages"] if not row["kept"]]
    assert len(shed) == 2, found
    return shed


def test_a_read_whose_client_walks_away_while_its_answer_is_built_is_not_kept_though_the_work_finished(
    slow: tuple[str, Path],
) -> None:
    # The window the issue names: the work goes on to the end after the client has gone, and
    # only the check before the commit keeps it from being charged and recorded as sent.
    url, started = slow
    started.touch()  # searches answer at once
    marker = started.with_name(started.name + ".read")
    marker.unlink(missing_ok=True)
    session = raw_session(url)
    shed = _shed_passages(url, session)
    before = receipts(url, session)["session"]
    reading = {"id": shed[0], "budget": 2000}
    assert b'"result"' not in walk_away(url, session, tool_call(3, "read", reading), marker)
    time.sleep(READ_DELAY_S + 0.5)  # the worker has finished building the answer by now
    calls = calls_once(url, session, 2)
    assert calls[-1]["outcome"] == f"read: cancelled ({DROPPED}); nothing was sent", calls
    assert receipts(url, session)["session"] == before
    # Read again: the passage comes whole, with the other shed one beside it, none named as sent.
    again = call(url, session, 4, "read", reading)
    assert again["isError"] is False and again["structuredContent"]["cut"] is False, again["content"]
    assert shed[1] in again["structuredContent"]["surroundings"]
    assert receipts(url, session)["session"]["tokens_used"] == before["tokens_used"] + again["structuredContent"]["tokens"]


class _Pipe:
    """A pipe as a standard stream: the server's end (``stream``) and the test's (``other``)."""

    def __init__(self, server_reads: bool) -> None:
        read, write = os.pipe()
        mine, theirs = (read, write) if server_reads else (write, read)
        self.stream = io.TextIOWrapper(open(mine, "rb" if server_reads else "wb"), encoding="utf-8")  # noqa: SIM115
        self.other = open(theirs, "wb" if server_reads else "rb", buffering=0)  # noqa: SIM115

    def close(self) -> None:
        self.stream.close()
        self.other.close()


def _frame(message: dict[str, Any]) -> bytes:
    return (json.dumps(message) + "\n").encode()


def test_a_read_whose_standard_input_ends_while_its_answer_is_built_is_not_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # In this process, so that the session's ledger can be read after the server has ended.
    started = tmp_path / "started"
    started.touch()
    marker = started.with_name(started.name + ".read")
    sessions = Sessions()
    server = build_server(SlowBackend(SqliteBackend(build_index(tmp_path)), started), serve_settings().unwrap(), sessions=sessions)
    stdin, stdout = _Pipe(server_reads=True), _Pipe(server_reads=False)
    try:
        _walk_away_over_stdio(server, sessions, stdin, stdout, marker, monkeypatch)
    finally:
        stdin.close()
        stdout.close()


def _walk_away_over_stdio(
    server: Any, sessions: Sessions, stdin: _Pipe, stdout: _Pipe, marker: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", stdin.stream)
    monkeypatch.setattr(sys, "stdout", stdout.stream)
    serving = threading.Thread(target=anyio.run, args=(serve_stdio, server), daemon=True)
    serving.start()
    lines = stdout.other
    stdin.other.write(_frame({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}},
    }))
    assert json.loads(lines.readline())["id"] == 1
    stdin.other.write(_frame({"jsonrpc": "2.0", "method": "notifications/initialized"}))
    stdin.other.write(tool_call(2, "search", {"question": "walker gitignore parser", "budget": 400}) + b"\n")
    found = json.loads(lines.readline())["result"]["structuredContent"]
    shed = [row["id"] for row in found["passages"] if not row["kept"]]
    stdin.other.write(tool_call(3, "read", {"id": shed[0], "budget": 2000}) + b"\n")
    deadline = time.monotonic() + 30
    while not marker.exists():
        assert time.monotonic() < deadline, "the read never started"
        time.sleep(0.01)
    stdin.other.close()  # the client is gone
    serving.join(timeout=30)
    assert not serving.is_alive()
    time.sleep(READ_DELAY_S + 0.5)  # the abandoned worker has finished building the answer by now
    ledger = sessions.session("stdio").ledger
    shown: dict[str, Any] = json.loads(json.dumps(receipts_json(ledger, serve_settings().unwrap())))
    assert [call["outcome"] for call in shown["calls"]] == ["answered", f"read: cancelled ({DROPPED}); nothing was sent"]
    assert shown["session"]["calls_used"] == 1 and shown["session"]["tokens_used"] == found["tokens"]
    assert all(shed[0] not in call["sent"] for call in shown["calls"])
    monkeypatch.undo()
