"""Every program in examples/ runs to completion with the current interpreter, and the ones
written for the main jobs print what they promise. New examples are picked up by name."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
# What each main job's example must print (an example not listed here must still exit 0).
EXPECTED: dict[str, tuple[str, ...]] = {
    "chat_agent.py": ("fits: True", "kept messages: ['a2', 'u2']", "shed from messages: ['u1', 'a1', 't1']",
                      "shed from tools: ['page_human']"),
    "rag_docs_folder.py": ("indexed 2 passages", "kept docs/refunds.md#1", "<corpus", "Refunds take 30 days"),
    "fit_working_set_json.py": ("exit status 0: fits=True", "kept passages: ['p1']", "shed from retrievables: ['p2']"),
    "render_envelopes.py": ("<untrusted", "tier=third-party-public", "kept: ['handbook#refunds'"),
    "fit_report.py": ("shed     retrievables", "beyond the window", "wrote "),
}


def _examples() -> list[str]:
    return sorted(path.name for path in EXAMPLES.glob("*.py"))


def test_the_main_jobs_have_examples() -> None:
    assert set(EXPECTED) <= set(_examples())


@pytest.mark.parametrize("name", _examples())
def test_example_runs(name: str, tmp_path: Path) -> None:
    # Its own working folder, so an example that writes a file leaves nothing behind.
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / name)], capture_output=True, text=True, timeout=300, cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    for fragment in EXPECTED.get(name, ()):
        assert fragment in done.stdout, (fragment, done.stdout)
