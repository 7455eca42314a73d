"""An indexer killed mid-batch, or losing its connection, leaves whole batches; a re-run completes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import psycopg

from thrift_fp.sources.postgres import ConnectionLost, index_paths, open_database

OLD = 1_000_000_000.0


def _corpus(root: Path, files: int) -> Path:
    root.mkdir(parents=True)
    for n in range(files):
        # Several passages per file at max_tokens=16, so half a file would show.
        paragraphs = [f"Paragraph {p} of note {n} talks about shedding budgets and trust tiers." for p in range(4)]
        path = root / f"note{n:03}.md"
        path.write_text("\n\n".join(paragraphs), encoding="utf-8")
        os.utime(path, (OLD, OLD))
    return root


def _state(url: str, collection: str) -> tuple[list[tuple[str, str]], dict[str, int]]:
    with psycopg.connect(url) as connection:
        passages = connection.execute(
            "SELECT passage_id, content_hash FROM thrift_fp_passages WHERE collection = %s ORDER BY passage_id",
            (collection,),
        ).fetchall()
        per_file = connection.execute(
            "SELECT f.path, count(p.id) FROM thrift_fp_files f LEFT JOIN thrift_fp_passages p"
            " ON p.collection = f.collection AND p.path = f.path WHERE f.collection = %s GROUP BY f.path",
            (collection,),
        ).fetchall()
    return [(str(a), str(b)) for a, b in passages], {str(path): int(str(count)) for path, count in per_file}


def _clean(url: str, root: Path) -> tuple[list[tuple[str, str]], dict[str, int]]:
    with open_database(url, create=True).unwrap() as database:
        index_paths(database, [root], collection="clean", max_tokens=16).unwrap()
    return _state(url, "clean")


_INDEXER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from thrift_fp.sources.postgres import index_paths, open_database
    database = open_database(sys.argv[1], create=True, pool_size=1).unwrap()
    index_paths(database, [Path(sys.argv[2])], max_tokens=16, batch_files=4,
                progress=lambda done, total, path: time.sleep(0.02))
    """
)


def test_kill_9_mid_batch_then_reindex_loses_and_duplicates_nothing(pg_url: str, tmp_path: Path) -> None:
    root = _corpus(tmp_path / "docs", 60)
    expected_passages, expected_files = _clean(pg_url, root)
    indexer = subprocess.Popen([sys.executable, "-c", _INDEXER, pg_url, str(root)])
    try:
        deadline = time.monotonic() + 120
        while len(_state(pg_url, "default")[1]) < 8:  # at least two batches committed
            assert indexer.poll() is None, "the indexer ended before it could be killed"
            assert time.monotonic() < deadline
            time.sleep(0.05)
        os.kill(indexer.pid, signal.SIGKILL)
    finally:
        indexer.wait()
    assert indexer.returncode == -signal.SIGKILL
    time.sleep(0.5)  # the server rolls the killed client's open transaction back
    passages, files = _state(pg_url, "default")
    assert 8 <= len(files) < 60
    # Only whole files: each one written has exactly the passages a clean run gives it.
    assert all(count == expected_files[path] for path, count in files.items())
    with open_database(pg_url).unwrap() as database:
        report = index_paths(database, [root], max_tokens=16).unwrap()
    assert len(report.unchanged) == len(files) and len(report.chunked) == 60 - len(files)
    assert _state(pg_url, "default") == (expected_passages, expected_files)


def test_a_dropped_connection_mid_run_is_one_error_and_a_rerun_completes(pg_url: str, tmp_path: Path) -> None:
    root = _corpus(tmp_path / "docs", 24)
    expected = _clean(pg_url, root)
    calls: list[int] = []

    def drop_connection(done: int, total: int, path: str) -> None:
        calls.append(done)
        if done == 10:  # within the third batch of four files
            with psycopg.connect(pg_url, autocommit=True) as admin:
                admin.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'thrift_fp'"
                    " AND datname = current_database() AND pid <> pg_backend_pid()"
                )

    with open_database(pg_url, pool_size=1).unwrap() as database:
        lost = index_paths(database, [root], max_tokens=16, batch_files=4, progress=drop_connection).failure()
        assert isinstance(lost, ConnectionLost)
        assert (lost.committed_batches, lost.total_batches) == (2, 6)
        assert "\n" not in lost.message and "thrift-fp-test" not in lost.message
        passages, files = _state(pg_url, "default")
        assert len(files) == 8 and all(count == expected[1][path] for path, count in files.items())
        again = index_paths(database, [root], max_tokens=16, batch_files=4).unwrap()
    assert len(again.chunked) == 16 and _state(pg_url, "default") == expected
