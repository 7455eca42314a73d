"""``thrift-fp serve`` over stdio answers ``initialize`` itself, before the SDK loads, and the
session then works as ever: the SDK got the same request, its duplicate answer never reaches the
client, and tools/list and a search are answered (issue 35, "answer in a blink")."""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import IO, Any

import pytest

from tests._serve_harness import build_index, serve_command
from thrift_fp import __version__
from thrift_fp.serve._handshake import answer_initialize, corpus_name, instructions

_INITIALIZE: dict[str, Any] = {
    "jsonrpc": "2.0", "id": "first", "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {"roots": {"listChanged": True}},
               "clientInfo": {"name": "handshake-test", "version": "1"}},
}


def _send(stream: IO[bytes], message: dict[str, Any]) -> None:
    stream.write(json.dumps(message).encode() + b"\n")
    stream.flush()


def _line(pool: ThreadPoolExecutor, stream: IO[bytes]) -> bytes:
    # A server that never answers fails the test instead of hanging it.
    return pool.submit(stream.readline).result(timeout=120)


@pytest.mark.parametrize("version", ["2025-06-18", "2024-11-05", "1999-01-01"])
def test_initialize_is_answered_by_hand_and_the_session_goes_on(tmp_path: Path, version: str) -> None:
    database = build_index(tmp_path)
    request = _INITIALIZE | {"params": _INITIALIZE["params"] | {"protocolVersion": version}}
    line = json.dumps(request).encode() + b"\n"
    expected = answer_initialize(line, instructions(corpus_name(database), 5, 4000), __version__)
    assert expected is not None
    process = subprocess.Popen(
        [sys.executable, *serve_command(database, "--max-calls", "5", "--max-session-tokens", "4000")[1:]],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    )
    assert process.stdin is not None and process.stdout is not None
    with ThreadPoolExecutor(1) as pool:
        try:
            process.stdin.write(line)
            process.stdin.flush()
            assert _line(pool, process.stdout).decode() == expected.frame
            _send(process.stdin, {"jsonrpc": "2.0", "method": "notifications/initialized"})
            _send(process.stdin, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
            listed = json.loads(_line(pool, process.stdout))
            # The next frame is tools/list's answer: the SDK's own answer to initialize was dropped.
            assert listed["id"] == 2 and sorted(tool["name"] for tool in listed["result"]["tools"]) == ["read", "search"]
            _send(process.stdin, {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                                  "params": {"name": "search", "arguments": {"question": "shedding budget"}}})
            searched = json.loads(_line(pool, process.stdout))
            assert searched["id"] == 3 and searched["result"]["isError"] is False
            assert "Shedding" in searched["result"]["content"][0]["text"]
            process.stdin.close()
            assert process.wait(timeout=60) == 0
            assert process.stdout.read() == b""
        finally:
            _end(process)


def test_a_first_frame_that_is_not_initialize_is_answered_by_the_sdk(tmp_path: Path) -> None:
    # Read before the SDK loads, then replayed to it: nothing a client sends is lost.
    database = build_index(tmp_path)
    process = subprocess.Popen([sys.executable, *serve_command(database)[1:]], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL)
    assert process.stdin is not None and process.stdout is not None
    with ThreadPoolExecutor(1) as pool:
        try:
            _send(process.stdin, {"jsonrpc": "2.0", "id": 9, "method": "ping"})
            assert json.loads(_line(pool, process.stdout)) == {"jsonrpc": "2.0", "id": 9, "result": {}}
            _send(process.stdin, _INITIALIZE)
            answered = json.loads(_line(pool, process.stdout))
            assert answered["id"] == "first" and answered["result"]["serverInfo"]["name"] == "thrift-fp"
            process.stdin.close()
            assert process.wait(timeout=60) == 0
        finally:
            _end(process)



def _end(process: subprocess.Popen[bytes]) -> None:
    """Kill ``process`` if it still runs, and close its pipes."""
    assert process.stdin is not None and process.stdout is not None
    if process.poll() is None:
        process.kill()
        process.wait()
    process.stdout.close()
    if not process.stdin.closed:
        process.stdin.close()


_PROBE = """
import io, json, sys
from thrift_fp.serve._handshake import answer_first_frame
request = json.loads(sys.argv[2])
sys.stdin = io.TextIOWrapper(io.BytesIO(json.dumps(request).encode() + b"\\n"))
sys.stdout = io.TextIOWrapper(io.BytesIO())
settings = {"default_budget": 100, "max_budget": 200, "max_calls": 5, "max_session_tokens": 4000,
            "max_results": 8, "encoding": "cl100k_base", "tiers": ["first-party"],
            "session_idle_timeout": 60.0, "max_request_bytes": 1000, **json.loads(sys.argv[3])}
first, handshake = answer_first_frame(sys.argv[1], settings)
loaded = sorted(name for name in ("mcp", "mcp_types", "pydantic_core", "anyio", "beartype") if name in sys.modules)
print(json.dumps({"read": first.decode(), "answered": None if handshake is None else handshake.frame,
                  "written": sys.stdout.buffer.getvalue().decode(), "loaded": loaded}), file=sys.__stdout__)
"""


def _probe(database: str, request: dict[str, Any], **settings: object) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-c", _PROBE, database, json.dumps(request), json.dumps(settings)],
                          capture_output=True, text=True, check=True)
    shown: dict[str, Any] = json.loads(done.stdout)
    return shown


def test_the_answer_is_written_before_the_sdk_or_beartype_loads(tmp_path: Path) -> None:
    database = tmp_path / "docs.db"
    database.write_bytes(b"")
    shown = _probe(str(database), _INITIALIZE)
    assert shown["read"] == json.dumps(_INITIALIZE) + "\n"
    assert shown["answered"] == shown["written"] and json.loads(shown["written"])["id"] == "first"
    # typer coerces options through pydantic (and so pydantic-core loads); the SDK does not.
    assert "mcp" not in shown["loaded"] and "mcp_types" not in shown["loaded"] and "beartype" not in shown["loaded"]


@pytest.mark.parametrize(
    ("database", "settings"),
    [
        ("docs.db", {"default_budget": 0}),  # a bad setting fails as before, reading nothing
        ("docs.db", {"encoding": "p50k_base"}),  # not bundled: checked in full first
        ("missing.db", {}),  # named by the usual error
        ("postgresql://ann@db/kb", {}),  # naming a collection opens the database
    ],
)
def test_what_the_server_must_check_first_is_not_answered_by_hand(
    tmp_path: Path, database: str, settings: dict[str, object]
) -> None:
    (tmp_path / "docs.db").write_bytes(b"")
    where = database if database.startswith("postgresql") else str(tmp_path / database)
    shown = _probe(where, _INITIALIZE, **settings)
    assert shown == shown | {"read": "", "answered": None, "written": ""}
