"""A started ``thrift-fp serve --http`` process: where it says it listens, and stopping it.

Shared by the suite's servers (tests/_serve_harness.py, tests/test_serve_shared_http.py) and the
serving benchmarks; each starts its own process (the suite only ever ``sys.executable``).
"""

from __future__ import annotations

import re
import subprocess
from typing import Final

ANNOUNCED: Final = re.compile(r"serving MCP at (http://\S+)")


def announced_url(process: subprocess.Popen[str]) -> tuple[str | None, str]:
    """The URL the server announces on stderr (None if it stops or says five lines without one),
    and what it said up to then. ``serve`` says what it serves, then where it listens; a server
    that stops says why."""
    assert process.stderr is not None
    said = ""
    for _ in range(5):
        said += process.stderr.readline()
        found = ANNOUNCED.search(said)
        if found is not None:
            return found.group(1), said
        if process.poll() is not None:
            break
    return None, said


def stop(process: subprocess.Popen[str], timeout: float) -> None:
    """Terminate the server (nothing happens to one that has already exited) and wait for it,
    killing it after ``timeout`` seconds."""
    process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
