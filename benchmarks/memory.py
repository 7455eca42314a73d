"""Workload 4, memory: hinted spooled artifacts are never read; real bodies are counted streamed.

Part 1, hinted (never read):
Fit working sets whose 250 spooled artifacts (handle mode, with byte and line hints) total 10 MB,
100 MB and 1 GB, each size in its own child process, and record the peak memory there: Python
allocations during the fit (tracemalloc) and the whole process's peak resident set: ``VmHWM``
from /proc/self/status, and ``ru_maxrss``. Linux keeps ``ru_maxrss`` across fork and exec, so a
child spawned by a large parent reports at least the parent's size; ``VmHWM`` belongs to the
child's own address space, so the headline uses it (ru_maxrss is printed too).
The bodies come from `LazyReader`, which generates them only if read and counts every read.

Part 2, real bodies: 10 spooled records whose real bodies total 10 MB, 100 MB and 1 GB
are written to a `FolderStore` in a temporary folder (deleted after each size) and fitted
*inline*, so the fit must stream-count every byte. Each size runs in its own child process; the
peak resident set of the fit alone is ``VmHWM`` after resetting it (``/proc/self/clear_refs``)
once the bodies are on disk. tracemalloc is off here (tracing 250 million token ints would
dominate the run).

Target: peaks within 20 MB of the smallest case, in both parts (and zero reads when hinted).

    python -m benchmarks.memory
    python -m benchmarks.memory --real-up-to 100000000     # real bodies of 10 MB and 100 MB only
    python -m benchmarks.memory --child 1000000000 --real  # one real size alone, as JSON
"""

from __future__ import annotations

import functools
import json
import resource
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Iterator, Sequence
from pathlib import Path

from benchmarks._data import SEED, chat, passages
from benchmarks._harness import Report, Row, run_and_print, seconds
from benchmarks._lazy_reader import LINE_BYTES, LazyReader, ReadTally
from benchmarks._sets import EPOCH, encoding, messages
from thrift_fp.records import Retrievable, SpooledArtifact
from thrift_fp.render import KeyedNonce, fit_and_render
from thrift_fp.thrift import WorkingSet, subtract_to_fit

SIZES = (10_000_000, 100_000_000, 1_000_000_000)
ARTIFACTS = 250
TURNS = 40
WINDOW = 16_000
TARGET_MB = 20.0
_MB = 1_000_000


def spooled_set(total_bytes: int, tally: ReadTally, inline: bool = False) -> WorkingSet:
    """40 messages and ``ARTIFACTS`` hinted spooled records sharing ``total_bytes`` (handle mode
    unless ``inline``: then the bodies themselves are the content and must be counted)."""
    each = total_bytes // ARTIFACTS
    scores = passages(ARTIFACTS, seed=SEED, min_words=1, max_words=1)
    records = tuple(
        Retrievable(
            f"artifact-{index:03d}",
            SpooledArtifact(LazyReader(f"artifact-{index:03d}", each, tally), each, -(-each // LINE_BYTES)),
            "third-party-private",
            EPOCH,
            EPOCH,
            source="tool-output",
            score=scores[index].score,
            inline=inline,
        )
        for index in range(ARTIFACTS)
    )
    return WorkingSet(system_prompt="Use the artifacts' tools to read them.", messages=messages(chat(TURNS)),
                      retrievables=records)


def peak_rss() -> int:
    """This process's peak resident set in bytes (``VmHWM``; ``ru_maxrss`` where /proc is absent)."""
    try:
        with open("/proc/self/status", encoding="utf-8") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def child(total_bytes: int, inline: bool = False) -> dict[str, object]:
    """One size, in this process: fit and fit-and-render, with peak memory and read count."""
    encoding()  # the vocabulary is loaded before anything is measured
    tally = ReadTally()
    tracemalloc.start()
    started = time.perf_counter()
    ws = spooled_set(total_bytes, tally, inline)
    fitted = subtract_to_fit(ws, WINDOW).unwrap()
    rendered = fit_and_render(ws, WINDOW, nonce=KeyedNonce(bytes(32)))
    elapsed = time.perf_counter() - started
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return {
        "hinted_bytes": total_bytes,
        "reads": tally.reads,
        "tracemalloc_peak": peak,
        "peak_rss": peak_rss(),
        "maxrss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
        "kept": len(fitted.working_set.retrievables),
        "fits": fitted.trace.fits,
        "rendered_tokens": rendered.map(lambda done: done.tokens).value_or(-1),
        "seconds": elapsed,
    }


REAL_RECORDS = 10
_BLOCK_WORDS = 200_000


def _reset_peak_rss() -> None:
    # Linux >= 4.0: writing 5 resets VmHWM to the current RSS, so the peak that follows is the fit's.
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as clear:
            clear.write("5")
    except OSError:
        pass


@functools.cache
def _prose_block() -> bytes:
    import random

    from benchmarks._data import words

    sentences = words(random.Random(SEED), _BLOCK_WORDS).split(". ")
    return "\n".join(". ".join(sentences[at : at + 20]) + "." for at in range(0, len(sentences), 20)).encode()


def _body_chunks(total: int) -> Iterator[bytes]:
    """``total`` bytes of generated prose (a ~1 MB block of vocabulary words, repeated), a line
    every 20 sentences; every line ends with a full stop, so the streamed counter finds exact
    cut points."""
    block = _prose_block()
    left = total
    while left > 0:
        piece = block[:left]
        left -= len(piece)
        yield piece


def real_child(total_bytes: int) -> dict[str, object]:
    """One size of real bodies, in this process: write them to disk, then fit them inline."""
    import tempfile

    from thrift_fp.records import FolderStore

    encoding()
    with tempfile.TemporaryDirectory(prefix="thrift-fp-memory-") as folder:
        store = FolderStore(folder)
        each = total_bytes // REAL_RECORDS
        records = []
        for index in range(REAL_RECORDS):
            reader = store.write(f"body-{index:02d}", _body_chunks(each)).unwrap()
            records.append(Retrievable(
                f"body-{index:02d}", SpooledArtifact(reader, each, None), "third-party-private", EPOCH, EPOCH,
                source="tool-output", score=index / REAL_RECORDS, inline=True,
            ))
        ws = WorkingSet(system_prompt="Read the bodies.", messages=messages(chat(TURNS)), retrievables=tuple(records))
        _reset_peak_rss()
        before = peak_rss()
        started = time.perf_counter()
        fitted = subtract_to_fit(ws, WINDOW).unwrap()
        elapsed = time.perf_counter() - started
        return {
            "bytes": total_bytes,
            "rss_before": before,
            "peak_rss": peak_rss(),
            "total_before": fitted.trace.total_before,
            "kept": len(fitted.working_set.retrievables),
            "seconds": elapsed,
        }


def _spawn(total_bytes: int, inline: bool = False, real: bool = False) -> dict[str, object]:
    root = Path(__file__).resolve().parent.parent
    flags = ["--real"] if real else (["--inline"] if inline else [])
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.memory", "--child", str(total_bytes), *flags],
        cwd=root, check=True, capture_output=True, text=True,
    )
    parsed: dict[str, object] = json.loads(done.stdout)
    return parsed


def _int(row: dict[str, object], key: str) -> int:
    value = row[key]
    if not isinstance(value, int):
        raise TypeError(f"{key} is {value!r}")
    return value


def _seconds(row: dict[str, object]) -> str:
    value = row["seconds"]
    if not isinstance(value, float):
        raise TypeError(f"seconds is {value!r}")
    return seconds(value)


def run(real_up_to: int = SIZES[-1]) -> Report:
    """Each size in a fresh child process; the headline is the worst growth over the smallest.
    ``real_up_to`` caps the real-body sizes (``--real-up-to BYTES``; the larger ones can then be
    run alone with ``--child BYTES --real``, which prints that size's JSON)."""
    rows = [_spawn(size) for size in SIZES]
    # Control: the smallest set with inline bodies, which a fit must read; shows the tally works.
    control = _spawn(SIZES[0], inline=True)
    base_rss, base_traced = _int(rows[0], "peak_rss"), _int(rows[0], "tracemalloc_peak")
    rss_growth = max(_int(row, "peak_rss") - base_rss for row in rows) / _MB
    maxrss_growth = max(_int(row, "maxrss") - _int(rows[0], "maxrss") for row in rows) / _MB
    traced_growth = max(_int(row, "tracemalloc_peak") - base_traced for row in rows) / _MB
    reads = sum(_int(row, "reads") for row in rows)
    figures = tuple(
        (
            f"{_int(row, 'hinted_bytes') / _MB:,.0f} MB hinted",
            f"tracemalloc peak {_int(row, 'tracemalloc_peak') / _MB:.2f} MB, peak RSS {_int(row, 'peak_rss') / _MB:.1f} MB "
            f"(ru_maxrss {_int(row, 'maxrss') / _MB:.1f} MB), "
            f"body reads {_int(row, 'reads')}, kept {_int(row, 'kept')}/{ARTIFACTS}, fits {row['fits']}, "
            f"rendered {_int(row, 'rendered_tokens'):,} tokens, fit+render {_seconds(row)}",
        )
        for row in rows
    )
    real = [_spawn(size, real=True) for size in SIZES if size <= real_up_to]
    fit_peak = [_int(row, "peak_rss") - _int(row, "rss_before") for row in real]
    real_growth = max(peak - fit_peak[0] for peak in fit_peak) / _MB
    real_figures = tuple(
        (f"{_int(row, 'bytes') / _MB:,.0f} MB real bodies counted",
         f"peak RSS during the fit {_int(row, 'peak_rss') / _MB:.1f} MB ({peak / _MB:+.1f} MB over its start), "
         f"{_int(row, 'total_before'):,} tokens counted, kept {_int(row, 'kept')}/{REAL_RECORDS}, fit {_seconds(row)}")
        for row, peak in zip(real, fit_peak, strict=True)
    )
    worst = max(rss_growth, traced_growth)
    return Report(
        workload="workload 4: memory",
        headline="worst peak growth over the 10 MB case (MB, max of peak RSS and tracemalloc)",
        value=worst,
        target=f"<= {TARGET_MB:.0f} MB and no body read",
        met=worst <= TARGET_MB and reads == 0,
        rows=(Row("real bodies: worst growth of the fit's peak RSS over the 10 MB case (MB)", real_growth,
                  f"<= {TARGET_MB:.0f} MB", real_growth <= TARGET_MB),),
        inputs=(
            ("artifacts", f"{ARTIFACTS} hinted non-inline spooled records (handle mode) sharing "
                          + ", ".join(f"{size / _MB:,.0f} MB" for size in SIZES)),
            ("reader", "LazyReader: body generated only when read, every read counted"),
            ("messages", f"{TURNS} chat turns + system prompt; window {WINDOW:,}"),
            ("process", "one fresh child process per size; subtract_to_fit then fit_and_render"),
            ("real bodies", f"{REAL_RECORDS} inline spooled records in a FolderStore in a temporary folder "
                            "(deleted after), generated prose, streamed count; one child per size: "
                            + ", ".join(f"{size / _MB:,.0f} MB" for size in SIZES if size <= real_up_to)),
        ),
        figures=(
            *figures,
            ("control: 10 MB inline (bodies must be counted)",
             f"body reads {_int(control, 'reads')}, fit+render {_seconds(control)}, "
             f"tracemalloc peak {_int(control, 'tracemalloc_peak') / _MB:.2f} MB, "
             f"peak RSS {_int(control, 'peak_rss') / _MB:.1f} MB"),
            ("peak RSS (VmHWM) growth", f"{rss_growth:.2f} MB"),
            ("ru_maxrss growth", f"{maxrss_growth:.2f} MB"),
            ("tracemalloc peak growth", f"{traced_growth:.2f} MB"),
            *real_figures,
            ("real bodies: fit peak RSS growth over 10 MB", f"{real_growth:.2f} MB"),
        ),
    )


def main(argv: Sequence[str]) -> int:
    """Run the workload, or with ``--child BYTES [--inline]`` one size (JSON on stdout)."""
    if argv[:1] == ["--child"]:
        if "--real" in argv:
            print(json.dumps(real_child(int(argv[1]))))
        else:
            print(json.dumps(child(int(argv[1]), inline="--inline" in argv)))
        return 0
    cap = int(argv[argv.index("--real-up-to") + 1]) if "--real-up-to" in argv else SIZES[-1]
    return 0 if run_and_print(lambda: run(cap)).all_met else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
