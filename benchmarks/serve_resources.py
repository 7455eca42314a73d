"""What ``thrift-fp serve --http`` holds: memory over many sessions, and while a huge body comes in.

    python -m benchmarks.serve_resources [--sessions 1000] [--idle-sessions 200] [--waves 4]
                                         [--idle-timeout 2] [--body-mb 100]

Three measurements of the server process's resident memory (``VmRSS``, and its peak ``VmHWM``
from ``/proc``), each on a fresh server over an SQLite index of the embedded corpus:

- **closed sessions**: ``--sessions`` sessions one after another through the SDK's own client,
  each ``initialize``, one ``search`` (so its ledger holds a call and sent passages) and
  ``DELETE`` (the client's close). Target: RSS after them within 10 MB of RSS at the start
  (measured after a warm-up of 20 such sessions, which load the index, the tokenizer and the
  SDK's code once for good; the cold RSS is shown beside it).
- **idle sessions**: ``--waves`` waves of ``--idle-sessions`` sessions left open (``initialize``
  and one ``search``, never closed), on a server with ``--session-idle-timeout`` (the idle run)
  and on one with the default 1800 s (the control). After each wave the benchmark waits until
  the idle run's sweep has passed, then reads both servers' RSS: freed sessions leave the idle
  run flat across waves, while the control grows by what each held session costs. Every
  session of the idle run must then answer 404 (ended by the transport), and every one of the
  control must still answer.
- **a huge body**: one POST of ``--body-mb`` MB, streamed in 64 KiB chunks, once with its
  ``Content-Length`` and once chunked (no length, so only the streaming check can refuse it).
  Peak RSS (``VmHWM`` reset through ``/proc/PID/clear_refs`` just before) against idle RSS.
  Target: within 20 MB; the answer must be 413.

The client runs on the same machine and shares its CPUs with the server.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import anyio
import httpx
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from benchmarks._harness import Report, Row, run_and_print
from benchmarks.serve_load import BUDGET, questions
from thrift_fp.serve._lifetimes import sweep_after
from thrift_fp.sources import embedded_corpus, index_paths

MB: Final = 1024 * 1024
WARM_UP: Final = 20
_ANNOUNCED: Final = re.compile(r"serving MCP at (http://\S+)")
_HEADERS: Final = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
_CHUNK: Final = 64 * 1024


@dataclass(frozen=True)
class Served:
    """One server process: its pid and its URL."""

    pid: int
    url: str

    def memory(self) -> tuple[int, int]:
        """Resident memory now and its peak since the last reset (``VmRSS``, ``VmHWM``), in bytes."""
        fields: dict[str, int] = {}
        with open(f"/proc/{self.pid}/status", encoding="utf-8") as status:
            for line in status:
                name, _, value = line.partition(":")
                if name in ("VmRSS", "VmHWM"):
                    fields[name] = int(value.split()[0]) * 1024
        return fields["VmRSS"], fields["VmHWM"]

    def rss(self) -> int:
        return self.memory()[0]

    def reset_peak(self) -> None:
        """Linux >= 4.0: writing 5 resets ``VmHWM`` to the current RSS."""
        with open(f"/proc/{self.pid}/clear_refs", "w", encoding="ascii") as clear:
            clear.write("5")


@contextmanager
def server(db: Path, *extra: str) -> Iterator[Served]:
    """``thrift-fp serve --http 127.0.0.1:0`` of ``db``, quotas out of the way, with ``extra`` options."""
    command = [sys.executable, "-m", "thrift_fp", "serve", "--db", str(db), "--http", "127.0.0.1:0",
               "--max-calls", "100000", "--max-session-tokens", "1000000000", "--budget", str(BUDGET), *extra]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stderr is not None
        line, found = "", None
        for _ in range(5):  # `serve` says what it serves, then where it listens
            line += process.stderr.readline()
            found = _ANNOUNCED.search(line)
            if found is not None or process.poll() is not None:
                break
        if found is None:
            raise RuntimeError(f"the server did not start: {line}")
        yield Served(process.pid, found.group(1))
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


# --- closed sessions ----------------------------------------------------------------------------


async def _closed_session(url: str, question: str) -> None:
    # The SDK's client sends DELETE when its context ends (terminate_on_close).
    async with streamable_http_client(url) as streams, ClientSession(streams[0], streams[1]) as session:
        await session.initialize()
        result = await session.call_tool("search", {"question": question, "budget": BUDGET})
        if result.is_error:
            raise RuntimeError(f"search failed: {result.content[0]}")


def closed_sessions(served: Served, count: int) -> list[tuple[int, int]]:
    """RSS (bytes) after ``count`` opened-and-closed sessions, sampled along the way: (sessions, rss)."""
    marks = {count // 10, count // 4, count // 2, count}
    samples = [(0, served.rss())]

    async def run() -> None:
        for number in range(1, count + 1):
            await _closed_session(served.url, questions(number, 1)[0])
            if number in marks:
                samples.append((number, served.rss()))

    anyio.run(run)
    return samples


# --- idle sessions ------------------------------------------------------------------------------


def _data(response: httpx.Response) -> Any:
    lines = [line[len("data: "):] for line in response.text.splitlines() if line.startswith("data: ")]
    return json.loads(lines[-1]) if lines else response.json()


def open_idle_session(client: httpx.Client, url: str, question: str) -> str:
    """A session that asked one question and is left open: its id."""
    opened = client.post(url, headers=_HEADERS, json={"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}})
    token = opened.headers["mcp-session-id"]
    headers = _HEADERS | {"Mcp-Session-Id": token}
    client.post(url, headers=headers, json={"jsonrpc": "2.0", "method": "notifications/initialized"})
    answered = _data(client.post(url, headers=headers, json={"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "search", "arguments": {"question": question, "budget": BUDGET}}}))
    if answered.get("result", {}).get("isError", True):
        raise RuntimeError(f"search failed: {str(answered)[:200]}")
    return token


def still_served(client: httpx.Client, url: str, token: str) -> bool:
    """Whether the server still knows session ``token`` (a ``ping`` answered, not 404)."""
    response = client.post(url, headers=_HEADERS | {"Mcp-Session-Id": token},
                           json={"jsonrpc": "2.0", "id": 2, "method": "ping"})
    return response.status_code != 404


@dataclass(frozen=True)
class IdleRun:
    """RSS after each wave (MB) on the idle-timeout server and the control, and how many of the
    sessions each still served at the end."""

    idle_rss: list[float]
    control_rss: list[float]
    idle_alive: int
    control_alive: int
    opened: int


def idle_sessions(idle: Served, control: Served, waves: int, per_wave: int, timeout: float) -> IdleRun:
    """``waves`` waves of ``per_wave`` open sessions on both servers, waiting out the idle
    server's sweep after each."""
    idle_rss = [idle.rss() / MB]
    control_rss = [control.rss() / MB]
    tokens: dict[str, list[str]] = {"idle": [], "control": []}
    with httpx.Client(timeout=60) as client:
        for wave in range(waves):
            for number in range(per_wave):
                question = questions(wave * per_wave + number, 1)[0]
                tokens["idle"].append(open_idle_session(client, idle.url, question))
                tokens["control"].append(open_idle_session(client, control.url, question))
            # The sweep looks a few times per idle period; past sweep_after plus one look, all are gone.
            time.sleep(sweep_after(timeout) + max(timeout / 4, 0.05) + 1.0)
            idle_rss.append(idle.rss() / MB)
            control_rss.append(control.rss() / MB)
        idle_alive = sum(still_served(client, idle.url, token) for token in tokens["idle"])
        control_alive = sum(still_served(client, control.url, token) for token in tokens["control"])
    return IdleRun(idle_rss, control_rss, idle_alive, control_alive, waves * per_wave)


# --- a huge body --------------------------------------------------------------------------------


def huge_body(served: Served, size: int, chunked: bool) -> tuple[int, float, float]:
    """POST ``size`` bytes to ``served`` in 64 KiB chunks, until it answers: (status, idle RSS MB,
    peak RSS MB while the body came in)."""
    host, port = served.url.removeprefix("http://").split("/", 1)[0].rsplit(":", 1)
    time.sleep(0.5)
    idle = served.rss() / MB
    served.reset_peak()
    framing = "Transfer-Encoding: chunked" if chunked else f"Content-Length: {size}"
    head = (f"POST /mcp HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
            f"Accept: application/json, text/event-stream\r\n{framing}\r\n\r\n").encode()
    piece = b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"pad": "' + b"x" * _CHUNK
    with socket.create_connection((host, int(port)), timeout=60) as connection:
        connection.sendall(head)
        sent = 0
        try:
            while sent < size:
                chunk = piece[: min(_CHUNK, size - sent)]
                connection.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk) if chunked else chunk)
                sent += len(chunk)
            if chunked:
                connection.sendall(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass  # refused mid-stream: the answer is waiting
        answer = b""
        try:
            while b"\r\n" not in answer:
                got = connection.recv(4096)
                if not got:
                    break
                answer += got
        except ConnectionResetError:
            pass
    status = int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/") else 0
    return status, idle, served.memory()[1] / MB


# --- the report ---------------------------------------------------------------------------------


def run(sessions: int = 1000, idle_per_wave: int = 200, waves: int = 4, timeout: float = 2.0, body_mb: int = 100) -> Report:
    """The three measurements as one report."""
    rows: list[Row] = []
    figures: list[tuple[str, str]] = []
    with ExitStack() as stack:
        root = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="thrift-fp-serve-resources-")))
        database = root / "corpus.db"
        index_paths(database, [embedded_corpus()]).unwrap()

        with server(database) as served:
            cold = served.rss() / MB
            anyio.run(lambda: _warm_up(served.url))
            samples = closed_sessions(served, sessions)
        start, end = samples[0][1] / MB, samples[-1][1] / MB
        rows.append(Row(f"RSS growth over {sessions} opened-and-closed sessions (MB)", end - start, "<= 10", end - start <= 10))
        figures.append(("closed sessions: RSS (MB) after N sessions",
                        f"cold {cold:.1f}; after {WARM_UP} warm-up sessions " + ", ".join(
                            f"{number}: {rss / MB:.1f}" for number, rss in samples)))

        with server(database, "--session-idle-timeout", str(timeout)) as idle, server(database) as control:
            anyio.run(lambda: _warm_up(idle.url))
            anyio.run(lambda: _warm_up(control.url))
            outcome = idle_sessions(idle, control, waves, idle_per_wave, timeout)
        growth = outcome.idle_rss[-1] - outcome.idle_rss[1]
        held = (outcome.control_rss[-1] - outcome.control_rss[1]) / ((waves - 1) * idle_per_wave) * 1024 if waves > 1 else 0.0
        rows.append(Row(f"idle sessions still served {sweep_after(timeout):.1f} s after their last request (--session-idle-timeout {timeout:g})",
                        float(outcome.idle_alive), "0", outcome.idle_alive == 0))
        rows.append(Row(f"RSS growth from wave 1 to wave {waves} with --session-idle-timeout {timeout:g} (MB)",
                        growth, "<= 10", growth <= 10))
        figures.append(("idle sessions: RSS (MB) before and after each wave of "
                        f"{idle_per_wave} open sessions",
                        f"--session-idle-timeout {timeout:g}: {_listed(outcome.idle_rss)}; default 1800 s (control): "
                        f"{_listed(outcome.control_rss)} ({held:.0f} KiB per held session from wave 1 on; "
                        f"{outcome.control_alive} of {outcome.opened} still served)"))

        with server(database) as served:
            anyio.run(lambda: _warm_up(served.url))
            for chunked in (False, True):
                status, idle_mb, peak = huge_body(served, body_mb * MB, chunked)
                how = "chunked, no length" if chunked else "with its Content-Length"
                rows.append(Row(f"peak RSS over idle while a {body_mb} MB body ({how}) is refused (MB)",
                                peak - idle_mb, "<= 20", peak - idle_mb <= 20 and status == 413))
                figures.append((f"{body_mb} MB body, {how}", f"answered {status}; idle {idle_mb:.1f} MB, peak {peak:.1f} MB"))
    worst = max(row.value for row in rows if row.headline.startswith("RSS growth over"))
    return Report(
        workload="serve_resources",
        headline=f"RSS growth over {sessions} opened-and-closed HTTP sessions (MB)",
        value=worst,
        target="<= 10",
        met=worst <= 10,
        inputs=(
            ("closed sessions", f"{sessions}, one after another: initialize, one search, DELETE (the SDK's client)"),
            ("idle sessions", f"{waves} waves × {idle_per_wave}: initialize, one search, left open"),
            ("body", f"{body_mb} MB in 64 KiB chunks; --max-request-bytes default (4 MiB)"),
            ("budget", f"{BUDGET} cl100k_base tokens per search"),
            ("cpus", str(os.cpu_count())),
        ),
        figures=tuple(figures),
        rows=tuple(rows[1:]),
    )


async def _warm_up(url: str) -> None:
    for number in range(WARM_UP):
        await _closed_session(url, questions(10_000 + number, 1)[0])


def _listed(values: Sequence[float]) -> str:
    return " → ".join(f"{value:.1f}" for value in values)


def _arguments(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.serve_resources")
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--idle-sessions", type=int, default=200)
    parser.add_argument("--waves", type=int, default=4)
    parser.add_argument("--idle-timeout", type=float, default=2.0)
    parser.add_argument("--body-mb", type=int, default=100)
    return parser.parse_args(argv)


if __name__ == "__main__":
    arguments = _arguments(sys.argv[1:])
    report = run_and_print(lambda: run(arguments.sessions, arguments.idle_sessions, arguments.waves,
                                       arguments.idle_timeout, arguments.body_mb))
    sys.exit(0 if report.all_met else 1)
