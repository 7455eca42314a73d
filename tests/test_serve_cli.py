"""``thrift-fp serve`` on the command line: its defaults are the library's, its --help loads
neither the library nor the SDK, and a bad address or setting fails before anything starts."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests._serve_harness import build_index
from thrift_fp.cli import run
from thrift_fp.cli._serve import _IDLE_TIMEOUT, _SERVE_DEFAULTS
from thrift_fp.serve import ServeSettings


def test_the_serve_defaults_are_the_librarys() -> None:
    settings = ServeSettings()
    assert _SERVE_DEFAULTS == {
        "budget": settings.default_budget,
        "max_budget": settings.max_budget,
        "max_calls": settings.max_calls,
        "max_session_tokens": settings.max_session_tokens,
        "max_request_bytes": settings.max_request_bytes,
    }
    assert _IDLE_TIMEOUT == settings.session_idle_timeout


def test_serve_help_imports_neither_the_sdk_nor_the_library() -> None:
    probe = (
        "import sys\n"
        "from thrift_fp.cli import run\n"
        "code = run(['serve', '--help'])\n"
        "print(code, sorted(name for name in ('mcp', 'thrift_fp.serve', 'thrift_fp.sources') if name in sys.modules))\n"
    )
    shown = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert shown.splitlines()[-1] == "0 []"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--http", "0.0.0.0:8765"], "not a loopback address"),
        (["--http", "localhost"], "expected HOST:PORT"),
        (["--budget", "9000"], "default_budget = 9000: must not exceed max_budget (8192)"),
        (["--max-calls", "0"], "max_calls = 0: must be at least 1"),
        (["--encoding", "nope"], "unknown encoding 'nope'"),
        (["--session-idle-timeout", "0"], "session_idle_timeout = 0.0: must be a number of seconds above 0"),
        (["--max-request-bytes", "0"], "max_request_bytes = 0: must be at least 1"),
    ],
)
def test_a_bad_setting_fails_before_anything_starts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], options: list[str], message: str
) -> None:
    database = build_index(tmp_path)
    assert run(["serve", "--db", str(database), *options]) == 1
    assert message in capsys.readouterr().err


def test_a_missing_index_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["serve", "--db", str(tmp_path / "none.db")]) == 1
    assert f"no such file or folder: {tmp_path / 'none.db'}" in capsys.readouterr().err
