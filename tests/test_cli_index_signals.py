"""SIGTERM during `thrift-fp index` leaves no hidden temporary database behind."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

# The child terminates itself from the progress callback, mid-run, so the timing is exact.
_CHILD = """
import os, signal, sys
from thrift_fp.cli import _index, run
def progress(self, done, total, path):
    if done == 2:
        os.kill(os.getpid(), signal.SIGTERM)
_index._ProgressBar.__call__ = progress
sys.exit(run(["index", sys.argv[1], "--db", sys.argv[2]]))
"""


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_sigterm_mid_index_removes_the_temporary_file(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for n in range(5):
        (docs / f"n{n}.md").write_text(f"note {n} about the budget")
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(docs), str(tmp_path / "index.db")],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert done.returncode == 128 + signal.SIGTERM, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docs"], "no index and no .index.db.*.tmp left"
