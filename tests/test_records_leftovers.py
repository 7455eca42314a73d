"""Crash leftovers of the folder store: a killed writer's temporary file is removed,
a live writer's never, proved with real processes and threads."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from thrift_fp.records import FolderStore, StoreFailed

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="flock-based ownership is POSIX")

# A writer that stops in the middle of its value until the release file appears.
_BLOCKED_WRITER = """
import os, sys, time
from thrift_fp.records import FolderStore

folder, release = sys.argv[1], sys.argv[2]

def body():
    yield b"first half\\n"
    while not os.path.exists(release):
        time.sleep(0.01)
    yield b"second half\\n"

FolderStore(folder).write("doc", body()).unwrap()
"""


def _partials(folder: Path) -> list[str]:
    return sorted(name for name in os.listdir(folder) if name.startswith(".partial-"))


def _wait_for_partial(folder: Path, child: subprocess.Popen[bytes]) -> list[str]:
    for _ in range(3000):
        found = _partials(folder)
        if found:
            return found
        assert child.poll() is None, child.stderr.read() if child.stderr else child.returncode
        time.sleep(0.01)
    raise AssertionError("the writer never started its write")


def _start_writer(folder: Path, release: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-c", _BLOCKED_WRITER, str(folder), str(release)], stderr=subprocess.PIPE)


def test_a_live_writers_file_is_kept_and_a_killed_writers_file_is_removed(tmp_path: Path) -> None:
    store = FolderStore(str(tmp_path))
    store.write("doc", "old\n").unwrap()
    child = _start_writer(tmp_path, tmp_path / "release")
    try:
        owned = _wait_for_partial(tmp_path, child)
        assert store.remove_leftovers().unwrap() == ()
        assert FolderStore(str(tmp_path)).write("other", "x").unwrap().read_all().unwrap() == "x"
        assert _partials(tmp_path) == owned, "a live writer's file was deleted"
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        if child.stderr:
            child.stderr.close()
    assert _partials(tmp_path) == owned, "kill -9 leaves the file behind (what this test cleans)"
    assert store.remove_leftovers().unwrap() == tuple(owned)
    assert _partials(tmp_path) == []
    assert store.read("doc").unwrap().read_all().unwrap() == "old\n"


def test_a_released_writer_finishes_after_a_sweep_ran_beside_it(tmp_path: Path) -> None:
    release = tmp_path / "release"
    folder = tmp_path / "spool"
    os.makedirs(folder)
    child = _start_writer(folder, release)
    try:
        _wait_for_partial(folder, child)
        assert FolderStore(str(folder)).remove_leftovers().unwrap() == ()
        release.touch()
        assert child.wait(timeout=60) == 0
    finally:
        if child.poll() is None:  # pragma: no cover - only when the assertion above failed
            child.kill()
            child.wait()
        if child.stderr:
            child.stderr.close()
    assert FolderStore(str(folder)).read("doc").unwrap().read_all().unwrap() == "first half\nsecond half\n"
    assert _partials(folder) == []


def test_a_writer_thread_of_the_same_process_is_never_swept(tmp_path: Path) -> None:
    store = FolderStore(str(tmp_path))
    started, release = threading.Event(), threading.Event()

    def body() -> Iterator[bytes]:
        yield b"a"
        started.set()
        release.wait(30)
        yield b"b"

    outcome: list[object] = []
    writer = threading.Thread(target=lambda: outcome.append(store.write("doc", body())))
    writer.start()
    assert started.wait(30)
    assert store.remove_leftovers().unwrap() == ()
    release.set()
    writer.join(30)
    assert store.read("doc").unwrap().read_all().unwrap() == "ab"
    assert _partials(tmp_path) == []


def test_leftovers_of_many_kills_are_gone_after_the_next_process_writes(tmp_path: Path) -> None:
    store = FolderStore(str(tmp_path))
    store.write("doc", "v0").unwrap()
    big = b"z" * (1 << 20)
    for kill in range(12):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # fork in a threaded test process
            child = os.fork()
        if child == 0:  # pragma: no cover - the child only writes until it is killed
            try:
                while True:
                    store.write("doc", [big] * 8)
            finally:
                os._exit(1)
        time.sleep(0.02 + 0.01 * kill)
        os.kill(child, signal.SIGKILL)
        os.waitpid(child, 0)
    # Plant one more leftover for certain: a file nobody holds a lock on.
    (tmp_path / ".partial-planted").write_bytes(b"torn")
    fresh = subprocess.run(
        [sys.executable, "-c", "import sys; from thrift_fp.records import FolderStore; "
         "FolderStore(sys.argv[1]).write('next', 'n').unwrap()", str(tmp_path)],
        check=True, capture_output=True,
    )
    assert fresh.returncode == 0
    assert _partials(tmp_path) == []
    assert store.read("next").unwrap().read_all().unwrap() == "n"
    assert store.read("doc").unwrap().read_all().unwrap() in {"v0", (big * 8).decode()}


def test_a_leftover_swapped_for_a_symlink_after_it_was_opened_is_left_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import fcntl

    leftover, moved = tmp_path / ".partial-dead", tmp_path / "moved"
    leftover.write_text("half a value")
    inode = leftover.stat().st_ino
    real_flock = fcntl.flock

    def flock_then_swap(descriptor: int, operation: int) -> None:
        real_flock(descriptor, operation)
        if os.fstat(descriptor).st_ino == inode and not leftover.is_symlink():
            # Between the sweep's open and its check, the name comes to point at the same file
            # through a symlink: the sweep must compare the name itself, not what it points to.
            os.rename(leftover, moved)
            os.symlink(moved, leftover)

    monkeypatch.setattr(fcntl, "flock", flock_then_swap)
    assert FolderStore(str(tmp_path)).remove_leftovers().unwrap() == ()
    assert leftover.is_symlink() and moved.read_text() == "half a value"


def test_a_folder_that_cannot_be_listed_is_a_clean_up_failure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = FolderStore(str(tmp_path))
    cause = PermissionError(13, "Permission denied")

    def refuse(path: object) -> object:
        raise cause

    monkeypatch.setattr(os, "scandir", refuse)
    error = store.remove_leftovers().failure()
    assert error == StoreFailed("clean up", ".partial-*", "[Errno 13] Permission denied", cause)
    assert error.message == "clean up of id '.partial-*' failed: [Errno 13] Permission denied"


def test_a_write_whose_rename_fails_is_a_write_failure_and_leaves_no_partial_file(tmp_path: Path) -> None:
    store = FolderStore(str(tmp_path))
    # A non-empty folder where the value's file goes: rename(2) cannot replace it.
    os.mkdir(tmp_path / "doc")
    (tmp_path / "doc" / "inside").write_text("x")
    error = store.write("doc", "new").failure()
    assert isinstance(error, StoreFailed)
    assert (error.operation, error.id) == ("write", "doc")
    assert isinstance(error.cause, OSError)
    assert error.reason == str(error.cause) and "Errno" in error.reason
    assert error.message == f"write of id 'doc' failed: {error.cause}"
    assert sorted(os.listdir(tmp_path)) == ["doc"]
