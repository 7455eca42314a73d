"""Kill a writer mid-write, many times: every read afterwards is the old value or the new one.

A forked child rewrites one id in a loop with large values (generation ``n`` is ``_value(n)``),
and is SIGKILLed at a random moment. The parent then reads the id and checks it is exactly one
of the generations, never a mix. Leftover temporary files (folder) and hot journals (SQLite)
show that kills did land in the middle of writes.
"""

from __future__ import annotations

import os
import random
import signal
import time
import warnings
from pathlib import Path

import pytest

from thrift_fp.records import ByteStore, FolderStore, SqliteStore

KILLS = 25
_LINES = 2048


def _value(generation: int) -> str:
    digit = str(generation % 10)
    return f"generation {generation}\n" + (digit * 1023 + "\n") * _LINES


def _rewrite_forever(store: ByteStore, first: int) -> None:
    generation = first
    while True:
        store.write("doc", _value(generation))
        generation += 1


def _generation_read(store: ByteStore) -> int:
    text = store.read("doc").unwrap().read_all().unwrap()
    header, _, _ = text.partition("\n")
    generation = int(header.removeprefix("generation "))
    assert text == _value(generation), "a torn value"
    return generation


def _torn_write_evidence(store: ByteStore) -> bool:
    if isinstance(store, FolderStore):
        return any(name.startswith(".partial-") for name in os.listdir(store.folder))
    assert isinstance(store, SqliteStore)
    return os.path.exists(store.path + "-journal")


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["folder", "sqlite"])
def test_a_killed_writer_never_leaves_a_torn_value(kind: str, tmp_path: Path) -> None:
    store: ByteStore = FolderStore(str(tmp_path)) if kind == "folder" else SqliteStore(str(tmp_path / "spool.db"))
    store.write("doc", _value(0)).unwrap()
    rng = random.Random(2024)
    last = 0
    interrupted = 0
    for _ in range(KILLS):
        with warnings.catch_warnings():
            # Python 3.12+ warns about fork() in a threaded process; the child only writes files
            # and is killed, and a fresh interpreter per kill would cost ~1 s of imports each.
            warnings.simplefilter("ignore", DeprecationWarning)
            child = os.fork()
        if child == 0:  # pragma: no cover - the child only writes until it is killed
            try:
                _rewrite_forever(store, last + 1)
            finally:
                os._exit(1)
        time.sleep(rng.uniform(0.005, 0.08))
        os.kill(child, signal.SIGKILL)
        _, status = os.waitpid(child, 0)
        assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
        interrupted += _torn_write_evidence(store)
        generation = _generation_read(store)
        assert generation >= last, "an older value came back"
        last = generation
    print(f"{kind}: {KILLS} kills, {last} completed writes, {interrupted} kills inside a write")
    assert interrupted > 0, "no kill landed inside a write; the test proved nothing"
