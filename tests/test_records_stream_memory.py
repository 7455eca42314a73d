"""Counting a 200 MB spooled body streams it: peak memory grows by far less than the body.

Runs in a fresh subprocess. After setup the kernel's peak-RSS mark is reset (``/proc/self/clear_refs``),
so ``VmHWM - VmRSS`` at the end is exactly how far resident memory rose while the body was written
(by streaming byte chunks) and counted. Linux only, like the rest of CI.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from thrift_fp.records import MemoryStore, SpooledArtifact
from thrift_fp.tokens import count_tokens

# Blocks are ~1.06 MB (1 MiB of characters, some multi-byte): 190 of them make just over 200 MB.
BODY_BLOCKS = 190
GROWTH_LIMIT_MB = 64

_SCRIPT = textwrap.dedent(
    """
    import json, os, random, sys, tempfile, time
    from thrift_fp.records import FolderStore, SqliteStore, SpooledArtifact
    from thrift_fp.tokens import get_encoding

    kind, block_count = sys.argv[1], int(sys.argv[2])
    rng = random.Random(7)
    words = ["alpha", "Beta", "the", "quick", "brown", "fox", "42", "3.14", "x=y;", "foo(bar)",
             "naive", "don't", "--flag", "/usr/bin", "café"]

    def block():
        # ~1 MiB of prose, indented lines and CRLF lines; starts and ends where a cut is exact.
        lines, size = [], 0
        while size < (1 << 20):
            body = " ".join(rng.choice(words) for _ in range(rng.randint(1, 20)))
            shape = rng.random()
            line = ("    " + body + "\\n" if shape < 0.1 else body + "\\r\\n" if shape < 0.15
                    else body.capitalize() + ".\\n")
            lines.append(line)
            size += len(line)
        return "Start " + "".join(lines) + "End.\\n"

    encoding = get_encoding("cl100k_base").unwrap()
    encoding.count("load the encoder before the baseline").unwrap()
    blocks = [block() for _ in range(4)]
    folder = tempfile.mkdtemp()
    store = FolderStore(folder) if kind == "folder" else SqliteStore(os.path.join(folder, "spool.db"))
    def status_kib(key):
        with open("/proc/self/status") as status:
            return next(int(line.split()[1]) for line in status if line.startswith(key))

    # Reset the kernel's high-water mark so setup allocations (block generation) cannot hide growth.
    with open("/proc/self/clear_refs", "w") as clear:
        clear.write("5")
    baseline = status_kib("VmRSS:")
    reader = store.write("big", (blocks[i % 4].encode() for i in range(block_count))).unwrap()
    started = time.perf_counter()
    streamed = SpooledArtifact(reader).count_tokens_streamed("cl100k_base").unwrap()
    elapsed = time.perf_counter() - started
    peak = status_kib("VmHWM:")
    # Counted only after the peak is read: each block's token list would raise the high-water mark.
    block_counts = [encoding.count(text).unwrap() for text in blocks]
    print(json.dumps({
        "bytes": reader.byte_length().unwrap(),
        "expected": sum(block_counts[i % 4] for i in range(block_count)),
        "tokens": streamed.count.tokens,
        "precision": streamed.count.precision,
        "growth_mb": (peak - baseline) / 1024,
        "seconds": elapsed,
        "mb_per_second": reader.byte_length().unwrap() / 1e6 / elapsed,
    }))
    """
)


def _run(kind: str, block_count: int) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT, kind, str(block_count)], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr
    measured: dict[str, object] = json.loads(done.stdout)
    print(kind, measured)
    return measured


@pytest.mark.slow
def test_counting_a_200_mb_folder_body_keeps_memory_flat_and_exact() -> None:
    measured = _run("folder", BODY_BLOCKS)
    assert isinstance(measured["bytes"], int) and measured["bytes"] >= 200_000_000, measured
    assert measured["tokens"] == measured["expected"], measured
    assert measured["precision"] == "exact", measured
    assert isinstance(measured["growth_mb"], float) and measured["growth_mb"] < GROWTH_LIMIT_MB, measured


@pytest.mark.slow
def test_counting_a_sqlite_body_streams_row_by_row() -> None:
    # Smaller (SQLite writes are slower). Streaming measured ~11 MB here (1 MiB rows, SQLite's page
    # cache, one chunk's token list); materialising the 25 MB body measured ~340 MB.
    measured = _run("sqlite", 24)
    assert measured["tokens"] == measured["expected"], measured
    assert isinstance(measured["growth_mb"], float) and measured["growth_mb"] < 32, measured


def test_the_blocks_add_up_because_their_joins_are_exact_cuts() -> None:
    # The expected figure above sums per-block counts; that is the whole-text count only because
    # every block starts with "Start" and ends with "End.\n" (a safe cut). Checked here directly.
    blocks = ["Start one two.\r\n    indented\nEnd.\n", "Start three.\nfour\r\nEnd.\n"]
    whole = count_tokens("".join(blocks * 3)).unwrap().tokens
    assert whole == 3 * sum(count_tokens(block).unwrap().tokens for block in blocks)
    streamed = SpooledArtifact(MemoryStore().write("b", "".join(blocks * 3)).unwrap()).estimate_tokens().unwrap()
    assert streamed.tokens == whole
