"""What embedding an index costs, against the bare model's own inference time (issue 35).

    python -m benchmarks.embed_speed                   # sample of 512 CMake passages, 4 rounds A-B-B-A
    python -m benchmarks.embed_speed --full            # also whole index runs: lexical, then with vectors

Inputs: the embedding inputs (heading path and text) of passages of CMake's reference
(``/usr/share/cmake-3.25/Help``, every file, as ``thrift-fp index`` reads it), a fixed random
sample of ``--sample`` of them. Contenders, interleaved A-B-B-A over ``--rounds`` rounds, each
embedding the whole sample; per passage, median and best of wall and CPU milliseconds:

- ``bare model``: onnxruntime's ``session.run`` alone, one intra-op thread, on inputs tokenized
  beforehand and batched 32 at a time by their length in word pieces: the model's own inference
  time, the limit any indexer on this model and input pays per passage (CPU);
- ``before``: the embedder as it was before issue 35: batches of 32 sorted by characters,
  tokenized per batch, onnxruntime's default intra-op threads (one per core), one batch at a time;
- ``after, 1 worker``: batches sorted by word pieces, one intra-op thread, one batch at a time;
- ``after``: the shipped default: the same, with one batch running per core at once.

Then the cosine of each sample passage's vector from ``after`` with its vector from ``before``
(batching changes only the int8 quantisation's range, so the vectors agree to rounding).

``--full``: ``index_paths`` on the whole of CMake's reference into fresh files, lexical only
(``dense=False``) then with the default model (``dense=True``): wall and CPU seconds, the ratio,
and CPU per embedded passage. The load average is printed before and after (the machine is shared).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from benchmarks._harness import load_average

CMAKE = Path("/usr/share/cmake-3.25/Help")


def _inputs(database: Path) -> list[str]:
    from thrift_fp.sources.dense._vectors import embedding_input, heading_of

    connection = sqlite3.connect(database)
    try:
        return [embedding_input(heading_of(str(m)), str(t)) for m, t in connection.execute("SELECT metadata, text FROM passages")]
    finally:
        connection.close()


def _model(threads: int, workers: int) -> Any:
    from thrift_fp.sources.dense._embedder import (
        DEFAULT_MODEL_ID, DEFAULT_MODEL_PACKAGE, DEFAULT_MODEL_SHA256, VOCABULARY, load_onnx_embedder,
    )

    spec = importlib.util.find_spec(DEFAULT_MODEL_PACKAGE)
    assert spec is not None and spec.origin is not None
    return load_onnx_embedder(
        Path(spec.origin).with_name("model.onnx"), VOCABULARY, model_id=DEFAULT_MODEL_ID,
        sha256=DEFAULT_MODEL_SHA256, threads=threads, workers=workers,
    ).unwrap()


def _bare(embedder: Any, texts: Sequence[str]) -> Callable[[], None]:
    # The session's inputs built once, as the embedder builds them (batches of 32 by length).
    encodings = sorted(embedder.tokenizer.encode_batch(list(texts)), key=lambda e: len(e.ids))
    feeds = [embedder._feeds(encodings[start:start + 32]) for start in range(0, len(encodings), 32)]

    def run() -> None:
        for feed in feeds:
            embedder.session.run(["last_hidden_state"], feed)

    return run


def _before(embedder: Any, texts: Sequence[str]) -> Callable[[], None]:
    # The embed loop as it was before issue 35 (characters-sorted, tokenized per batch).
    def run() -> None:
        order = sorted(range(len(texts)), key=lambda at: len(texts[at]))
        for start in range(0, len(order), 32):
            batch = [texts[at] for at in order[start:start + 32]]
            embedder._pooled(embedder.tokenizer.encode_batch(batch))

    return run


def _before_vectors(embedder: Any, texts: Sequence[str]) -> list[bytes]:
    import numpy as np

    order = sorted(range(len(texts)), key=lambda at: len(texts[at]))
    vectors: list[bytes] = [b""] * len(texts)
    for start in range(0, len(order), 32):
        batch = order[start:start + 32]
        rows = embedder._pooled(embedder.tokenizer.encode_batch([texts[at] for at in batch]))
        for at, row in zip(batch, rows, strict=True):
            vectors[at] = np.ascontiguousarray(row, dtype="<f4").tobytes()
    return vectors


def _timed(run: Callable[[], None]) -> tuple[float, float]:
    cpu, wall = time.process_time(), time.perf_counter()
    run()
    return time.perf_counter() - wall, time.process_time() - cpu


def _index_run(database: Path, dense: bool) -> tuple[float, float, int, int]:
    from thrift_fp.sources import index_paths

    cpu, wall = time.process_time(), time.perf_counter()
    report = index_paths(database, [CMAKE], dense=dense).unwrap()
    return time.perf_counter() - wall, time.process_time() - cpu, report.passages, report.embedded


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.embed_speed", description=__doc__.split("\n")[0])
    parser.add_argument("--sample", type=int, default=512)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--full", action="store_true", help="also index the whole reference, lexical and with vectors")
    args = parser.parse_args(argv)
    if not CMAKE.is_dir():
        print(f"{CMAKE} is not installed (apt-get install cmake-data)")
        return 1
    print(f"load average before {load_average()}; cores {os.cpu_count()}", flush=True)
    with tempfile.TemporaryDirectory() as folder:
        from thrift_fp.sources import index_paths

        lexical = Path(folder) / "lexical.db"
        index_paths(lexical, [CMAKE], dense=False).unwrap()
        inputs = _inputs(lexical)
        texts = random.Random(35).sample(inputs, min(args.sample, len(inputs)))
        one, default = _model(1, 1), _model(1, os.cpu_count() or 1)
        contenders: dict[str, Callable[[], None]] = {
            "bare model (1 thread)": _bare(one, texts),
            "before (intra-op threads, char batches)": _before(_model(0, 1), texts),
            "after, 1 worker": lambda: one.embed(texts),
            f"after ({default.workers} workers)": lambda: default.embed(texts),
        }
        names = list(contenders)
        for name in names:
            contenders[name]()  # warm-up: page cache, the session's first run
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in names}
        for round_ in range(args.rounds):
            for name in (names if round_ % 2 == 0 else names[::-1]):
                times[name].append(_timed(contenders[name]))
        print(f"\n{len(texts)} passages of {len(inputs)}, {args.rounds} rounds; ms per passage")
        print(f"{'contender':42} {'wall median':>11} {'wall best':>9} {'CPU median':>10} {'CPU best':>8}")
        for name in names:
            walls = [1000 * w / len(texts) for w, _ in times[name]]
            cpus = [1000 * c / len(texts) for _, c in times[name]]
            print(f"{name:42} {statistics.median(walls):11.1f} {min(walls):9.1f} {statistics.median(cpus):10.1f} {min(cpus):8.1f}")
        import numpy as np

        old = np.frombuffer(b"".join(_before_vectors(_model(0, 1), texts)), dtype="<f4").reshape(len(texts), -1)
        new = np.frombuffer(b"".join(default.embed(texts)), dtype="<f4").reshape(len(texts), -1)
        agreement = (old * new).sum(axis=1)
        print(f"\nvectors after against before: cosine min {agreement.min():.6f}, mean {agreement.mean():.6f}")
        if args.full:
            wall0, cpu0, passages, _ = _index_run(Path(folder) / "a.db", False)
            wall1, cpu1, _, embedded = _index_run(Path(folder) / "b.db", True)
            print(f"\nwhole index, {passages} passages: lexical {wall0:.1f} s wall / {cpu0:.1f} s CPU; "
                  f"with vectors {wall1:.1f} s wall / {cpu1:.1f} s CPU ({embedded} embedded, "
                  f"{1000 * (cpu1 - cpu0) / max(embedded, 1):.1f} ms CPU each); "
                  f"ratio {wall1 / wall0:.1f}x wall, {cpu1 / cpu0:.1f}x CPU")
    print(f"\nload average after {load_average()}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
