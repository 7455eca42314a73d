"""The ``thrift-fp`` process leaves without the interpreter's teardown once its command is done
(`thrift_fp.cli.entry`, issue 35), and nothing it wrote or had to clean up is lost: the exit
handlers registered during the command run, its output is flushed, its exit status is the
command's; ``serve``, and a process with psycopg or coverage loaded or a profiler set, exit the
usual way."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

# A command whose run registers an exit handler and writes without flushing, then returns
# ``status``; ``before`` is a handler registered before `entry` (the interpreter's own, as logging's).
_PROBE = """
import atexit, sys
import thrift_fp.cli as cli
atexit.register(lambda: print("registered before", flush=True))
{preload}
def run(argv):
    atexit.register(lambda: sys.stdout.write("cleaned up\\n"))
    sys.stdout.write("unflushed output\\n")
    return {status}
cli.run = run
sys.argv = ["thrift-fp", "{command}"]
cli.entry()
"""


def _probe(tmp_path: Path, status: int, preload: str = "", command: str = "count") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", _PROBE.format(status=status, preload=preload, command=command)],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )


def test_the_process_leaves_with_its_output_its_cleanup_and_its_status(tmp_path: Path) -> None:
    done = _probe(tmp_path, 3)
    assert done.returncode == 3, done.stderr
    # Handlers registered during the command ran, and were flushed; one registered before
    # `entry` (the interpreter's teardown's turn) did not: the process left before it.
    assert done.stdout == "unflushed output\ncleaned up\n"


@pytest.mark.parametrize("preload", [
    "sys.modules.setdefault('psycopg', type(sys)('psycopg'))",
    "sys.modules.setdefault('coverage', type(sys)('coverage'))",
    "sys.setprofile(lambda *_: None)",
])
def test_a_process_with_psycopg_coverage_or_a_profiler_exits_the_usual_way(tmp_path: Path, preload: str) -> None:
    done = _probe(tmp_path, 0, preload=preload)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "unflushed output\ncleaned up\nregistered before\n"


def test_serve_exits_the_usual_way(tmp_path: Path) -> None:
    done = _probe(tmp_path, 0, command="serve")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "unflushed output\ncleaned up\nregistered before\n"


def test_output_that_cannot_be_flushed_is_status_120(tmp_path: Path) -> None:
    # As Python itself reports an exit whose standard output cannot be flushed.
    probe = _PROBE.format(status=0, preload="", command="count").replace(
        'sys.stdout.write("unflushed output\\n")', 'sys.stdout.write("unflushed output\\n"); sys.stdout.close()'
    ).replace('atexit.register(lambda: sys.stdout.write("cleaned up\\n"))', "")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 120, done.stderr


def test_the_command_line_answers_and_exits_as_before(tmp_path: Path) -> None:
    note = tmp_path / "note.txt"
    note.write_text("three tokens here", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "thrift_fp", "count", str(note)], capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stdout) == (0, "3\n")
    missing = subprocess.run([sys.executable, "-m", "thrift_fp", "count", str(tmp_path / "gone.txt")],
                             capture_output=True, text=True, timeout=120)
    assert missing.returncode != 0 and "gone.txt" in missing.stderr
