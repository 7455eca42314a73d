"""Counting in a forked child completes: the counting pool is reset after fork."""

from __future__ import annotations

import multiprocessing
import os
import sys

import pytest

from thrift_fp.tokens import get_encoding
from thrift_fp.tokens._encoding import _BATCH_THREAD_MIN

TEXTS = [f"text number {index} for the pool" for index in range(4 * _BATCH_THREAD_MIN)]


def _count_in_child(queue: "multiprocessing.Queue[object]") -> None:
    counted = get_encoding("cl100k_base").unwrap().count_many(TEXTS, threads=2)
    queue.put(sum(counted.unwrap()))


# Forking a process that has threads is exactly the case under test (Python 3.12+ warns about it).
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_counting_in_a_forked_child_completes() -> None:
    encoding = get_encoding("cl100k_base").unwrap()
    # The parent's pool exists and has live threads before the fork (the case that hung).
    expected = sum(encoding.count_many(TEXTS, threads=2).unwrap())
    context = multiprocessing.get_context("fork")
    queue: multiprocessing.Queue[object] = context.Queue()
    child = context.Process(target=_count_in_child, args=(queue,))
    child.start()
    child.join(timeout=60)
    if child.is_alive():
        child.kill()
        child.join()
        pytest.fail("counting in the forked child did not finish within 60 s")
    assert child.exitcode == 0
    assert queue.get(timeout=5) == expected


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_counting_after_a_bare_os_fork_completes() -> None:
    encoding = get_encoding("cl100k_base").unwrap()
    expected = sum(encoding.count_many(TEXTS, threads=2).unwrap())
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: count, report, leave without running the parent's cleanup
        try:
            total = sum(get_encoding("cl100k_base").unwrap().count_many(TEXTS, threads=2).unwrap())
            os.write(write, str(total).encode())
        finally:
            os._exit(0)
    os.close(write)
    _, status = os.waitpid(pid, 0)
    with os.fdopen(read) as pipe:
        reported = pipe.read()
    assert os.waitstatus_to_exitcode(status) == 0, sys.platform
    assert int(reported) == expected
