"""Each adapter example runs offline with the current interpreter, exits 0 and says what it kept."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


@pytest.mark.parametrize("name", ["openai", "anthropic", "langchain", "llamaindex"])
def test_the_adapter_example_runs_and_reports_what_it_kept(name: str) -> None:
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / f"adapter_{name}.py")], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "kept" in done.stdout and "shed" in done.stdout
