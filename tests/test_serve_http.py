"""``thrift-fp serve --http 127.0.0.1:0``, driven by the SDK's streamable-HTTP client: sessions
are separate (de-duplication and quotas are per session), a quota runs out as a tool error and
the server keeps serving, frames no SDK client would send (a lone surrogate, bytes that are not
UTF-8) are answered, and a non-loopback address is refused."""

from __future__ import annotations

import socket
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests._raw_http import post, raw_session
from tests._serve_harness import HttpSessions, build_index, counted, envelopes, http_server, serve_command
from thrift_fp.serve import SqliteBackend, run_server, serve_settings

MAX_CALLS = 4
MAX_SESSION_TOKENS = 400
MAX_REQUEST_BYTES = 65536


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    database = build_index(tmp_path_factory.mktemp("serve-http"))
    options = (
        "--max-calls", str(MAX_CALLS), "--max-session-tokens", str(MAX_SESSION_TOKENS), "--budget", "400",
        "--max-request-bytes", str(MAX_REQUEST_BYTES),
    )
    with http_server(serve_command(database, *options)) as found:
        yield found


@pytest.fixture
def sessions(url: str) -> Iterator[HttpSessions]:
    opened = HttpSessions(url)
    yield opened
    opened.close()


def test_two_sessions_do_not_share_what_they_were_sent(sessions: HttpSessions) -> None:
    first, second = sessions.open(), sessions.open()
    question = {"question": "envelopes nonce", "budget": 300}
    one, other = first.call("search", question), second.call("search", question)
    assert not one.is_error and not other.is_error
    assert one.structured_content is not None and other.structured_content is not None
    sent = [row["id"] for row in one.structured_content["passages"] if row["kept"]]
    assert sent and [row["id"] for row in other.structured_content["passages"] if row["kept"]] == sent
    assert other.structured_content["repeated"] == []
    for result, client in ((one, first), (other, second)):
        assert counted(client.text(result)) <= 300 and envelopes(client.text(result))
    # ...while within one session the passages are named, not sent again.
    again = first.call("search", {"question": "nonce envelopes retrieved", "budget": 300})
    assert again.structured_content is not None
    assert {row["id"] for row in again.structured_content["repeated"]} >= set(sent)


@pytest.fixture(scope="module")
def roomy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpSessions]:
    """A server whose sessions have tokens to spare: only the call quota runs out."""
    database = build_index(tmp_path_factory.mktemp("serve-http-roomy"))
    with http_server(serve_command(database, "--max-calls", str(MAX_CALLS))) as found:
        opened = HttpSessions(found)
        yield opened
        opened.close()


def test_the_call_quota_runs_out_as_a_tool_error_and_the_server_keeps_serving(roomy: HttpSessions) -> None:
    client = roomy.open()
    for question in ("shedding", "budgets", "envelopes", "receipts")[:MAX_CALLS]:
        assert not client.call("search", {"question": question, "budget": 300}).is_error
    refused = client.call("search", {"question": "quotas", "budget": 300})
    assert refused.is_error
    assert client.text(refused) == (
        f"quota exhausted: this session has used {MAX_CALLS} of its {MAX_CALLS} calls; start a new session to go on"
    )
    assert client.receipts()["calls"][-1]["outcome"] == client.text(refused)
    assert not roomy.open().call("search", {"question": "quotas", "budget": 300}).is_error


def test_the_token_quota_runs_out_as_a_tool_error(sessions: HttpSessions) -> None:
    client = sessions.open()
    first = client.call("search", {"question": "shedding budgets envelopes quotas receipts handles", "budget": 400})
    assert first.structured_content is not None
    used = first.structured_content["tokens"]
    assert MAX_SESSION_TOKENS - 128 < used <= MAX_SESSION_TOKENS
    refused = client.call("search", {"question": "forum post", "budget": 400})
    assert refused.is_error and "tokens" in client.text(refused)
    assert client.receipts()["session"]["tokens_used"] == used


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        # A lone surrogate, as JSON escapes it (no SDK client can send one).
        (b'{"question": "budgets \\ud800"}', "{'refused': 'text with a lone surrogate'}: must be a string"),
        # Bytes that are not UTF-8 inside the question become U+FFFD: an ordinary question.
        (b'{"question": "budgets \xff\xfe"}', ""),
        (b'{"question": "budgets", "budget": 1' + b"0" * 5000 + b"}", "{'refused': 'a number of 5001 digits'}"),
    ],
)
def test_frames_no_sdk_client_sends_are_answered_and_the_session_goes_on(url: str, body: bytes, expected: str) -> None:
    session = raw_session(url)
    call = b'{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "search", "arguments": ' + body + b"}}"
    _, messages = post(url, call, session)
    if expected:
        [message] = messages
        result = message["result"]
        assert isinstance(result, dict) and result["isError"] is True, message
        assert expected in result["content"][0]["text"]
    else:
        assert messages[0]["result"]["isError"] is False, messages  # type: ignore[index]
    fine = b'{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "search", "arguments": {"question": "handles", "budget": 300}}}'
    _, after = post(url, fine, session)
    assert after and after[0]["result"]["isError"] is False  # type: ignore[index]


def _raw_request(url: str, head: str, chunks: Iterator[bytes]) -> bytes:
    # A request written by hand on a socket, so that the body can stream (chunked) or lie about
    # its length; the answer is read as soon as the server gives one.
    parsed = urllib.parse.urlsplit(url)
    with socket.create_connection((parsed.hostname, parsed.port), timeout=30) as connection:
        connection.sendall(head.replace("{path}", parsed.path).replace("{host}", parsed.netloc).encode())
        try:
            for chunk in chunks:
                connection.sendall(chunk)
        except OSError:
            pass  # the server answered and closed before the whole body went out
        # The head and the body of the answer may come in separate segments: read to the close
        # the refusal announces (a reset after the answer ends the read the same way).
        answer = b""
        try:
            while piece := connection.recv(65536):
                answer += piece
        except OSError:
            pass
        return answer


def test_a_body_over_the_limit_is_refused_while_it_streams_and_the_server_keeps_serving(url: str) -> None:
    head = (
        "POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
        "Accept: application/json, text/event-stream\r\n"
    )
    # Said up front: refused before a byte of the body is read.
    declared = _raw_request(url, head + "Content-Length: 1000000000\r\n\r\n", iter(()))
    assert declared.startswith(b"HTTP/1.1 413") and b"larger than 65536 bytes" in declared
    # Streamed with no length: refused once it grows past the limit, long before its end.
    chunk = b"[" * 8192
    streamed = _raw_request(
        url, head + "Transfer-Encoding: chunked\r\n\r\n", (b"%x\r\n%s\r\n" % (len(chunk), chunk) for _ in range(1000))
    )
    assert streamed.startswith(b"HTTP/1.1 413")
    session = raw_session(url)
    fine = b'{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "search", "arguments": {"question": "handles", "budget": 300}}}'
    _, after = post(url, fine, session)
    assert after and after[0]["result"]["isError"] is False  # type: ignore[index]


def test_a_host_off_the_loopback_interface_is_refused_before_anything_starts(tmp_path: Path) -> None:
    refused = run_server(SqliteBackend(tmp_path / "x.db"), serve_settings().unwrap(), http="0.0.0.0:0")
    assert "not a loopback address" in refused.failure().message
