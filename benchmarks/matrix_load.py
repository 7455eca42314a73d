"""Loading an SQLite index's vectors for a hybrid search, phase by phase (issue 35).

    python -m benchmarks.matrix_load DB [--rounds 9] [--against CHECKOUT]

A hybrid search loads the index's vector matrix once per process (``sqlite/_dense._load``). Each
phase below is that load's own step, reproduced on ``DB`` (opened read-only, never written), each
timed alone, interleaved A-B-B-A ``--rounds`` times; CPU medians (``time.process_time``) beside
bests:

- ``vectors``: ``SELECT key, vector FROM dense_vectors`` into a dict;
- computed keys: the passages with their metadata and texts, the heading paths read from the
  metadata's JSON, the SHA-256 ``vector_key`` of each, then the rows and the matrix;
- kept keys (where ``DB`` has ``passage_vector_keys``): the passages with their kept keys in one
  join, then the rows and the matrix (``keyed_matrix``);
- kept block (where ``DB`` keeps one, ``sqlite/_block``): its row, its vectors' BLOB in one read,
  and the matrix over it (``stored_block``);
- ``_load``: the whole load, in child processes holding nothing else (the phases' own data makes
  each collection of the garbage collector dearer), of this checkout and, with ``--against``, of
  another checkout (that tree on ``PYTHONPATH``), ``--rounds`` loads in each of two children per checkout, run A-B-B-A.

The embedder is a stand-in with the id and width of the index's model: loading reads no model.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from benchmarks._harness import Timing, interleaved, load_average

here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The child measuring one checkout's `_load`: it imports nothing but that checkout's thrift_fp
# (the checkout need not hold this module), and runs in the index's folder, so that neither the
# current folder nor this tree comes before the checkout on its path.
_CHILD = """
import gc, json, sqlite3, sys, time
from thrift_fp.sources.sqlite._dense import _load
database, rounds = sys.argv[1], int(sys.argv[2])
connection = sqlite3.connect(database, uri=True)
class StandIn:
    model_id = connection.execute("SELECT value FROM meta WHERE key = 'dense_model'").fetchone()[0]
    dimensions = connection.execute("SELECT length(vector) FROM dense_vectors LIMIT 1").fetchone()[0] // 4
cpu, wall = [], []
for _ in range(rounds):
    gc.collect()
    started_cpu, started_wall = time.process_time(), time.perf_counter()
    matrix = _load(connection, StandIn())
    cpu.append(time.process_time() - started_cpu)
    wall.append(time.perf_counter() - started_wall)
print(json.dumps({"cpu": cpu, "wall": wall, "rows": len(matrix.rows), "file": sys.modules["thrift_fp"].__file__}))
"""


class _StandIn:
    def __init__(self, model_id: str, dimensions: int) -> None:
        self.model_id, self.dimensions = model_id, dimensions

    def embed(self, texts: Sequence[str]) -> list[bytes]:
        raise AssertionError("loading the matrix embeds nothing")


def stand_in(connection: sqlite3.Connection) -> _StandIn:
    """An embedder with the id and width of the index's vectors."""
    (model,) = connection.execute("SELECT value FROM meta WHERE key = 'dense_model'").fetchone()
    (width,) = connection.execute("SELECT length(vector) FROM dense_vectors LIMIT 1").fetchone()
    return _StandIn(str(model), int(width) // 4)


def phases(connection: sqlite3.Connection) -> dict[str, Callable[[], object]]:
    """Each step of the load, alone, on data the earlier steps fetched once beforehand."""
    from thrift_fp.sources.dense import heading_of, keyed_matrix, passages_matrix, vector_key
    from thrift_fp.sources.dense._vectors import dense_matrix
    from thrift_fp.sources.sqlite._block import block_held, stored_block
    from thrift_fp.sources.sqlite._dense import _keys_kept
    from thrift_fp.sources.sqlite._held import KEYS_TABLE

    embedder = stand_in(connection)
    model = embedder.model_id
    vectors = dict(connection.execute("SELECT key, vector FROM dense_vectors").fetchall())
    full = "SELECT id, passage_id, trust_tier, content_hash, metadata, text FROM passages ORDER BY id"
    passages = connection.execute(full).fetchall()
    headings = [heading_of(str(row[4])) for row in passages]
    keys = [vector_key(model, heading, str(row[5])) for heading, row in zip(headings, passages, strict=True)]

    def rows() -> object:
        return dense_matrix(model, [
            (str(row[1]), int(row[0]), str(row[2]), str(row[3]), vectors[key])
            for row, key in zip(passages, keys, strict=True) if key in vectors
        ], embedder.dimensions)

    steps: dict[str, Callable[[], object]] = {
        "vectors: fetch": lambda: dict(connection.execute("SELECT key, vector FROM dense_vectors").fetchall()),
        "computed keys: passages with texts, fetch": lambda: connection.execute(full).fetchall(),
        "computed keys: heading paths (JSON)": lambda: [heading_of(str(row[4])) for row in passages],
        "computed keys: SHA-256 keys": lambda: [
            vector_key(model, heading, str(row[5])) for heading, row in zip(headings, passages, strict=True)
        ],
        "computed keys: rows and matrix": rows,
        "computed keys: all but the vectors (passages_matrix)": lambda: passages_matrix(
            embedder, vectors, connection.execute(full)
        ),
    }
    if _keys_kept(connection):
        kept = (
            "SELECT p.id, p.passage_id, p.trust_tier, p.content_hash, k.key,"
            " CASE WHEN k.key IS NULL THEN p.metadata END, CASE WHEN k.key IS NULL THEN p.text END"
            f" FROM passages p LEFT JOIN {KEYS_TABLE} k ON k.row = p.id AND k.model = ? ORDER BY p.id"
        )
        fetched = connection.execute(kept, (model,)).fetchall()
        steps["kept keys: passages with keys, fetch"] = lambda: connection.execute(kept, (model,)).fetchall()
        steps["kept keys: rows and matrix (keyed_matrix)"] = lambda: keyed_matrix(embedder, vectors, fetched)
    if block_held(connection, model):
        steps["kept block: one read and the matrix (stored_block)"] = lambda: stored_block(
            connection, model, embedder.dimensions
        )
    return steps


def _whole(checkout: str, database: Path, rounds: int) -> Timing:
    env = {**os.environ, "PYTHONPATH": checkout}
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, f"{database.resolve().as_uri()}?mode=ro", str(rounds)],
        env=env, check=True, capture_output=True, text=True, cwd=database.resolve().parent,
    )
    measured = json.loads(done.stdout)
    if not str(measured["file"]).startswith(os.path.abspath(checkout)):
        raise RuntimeError(f"the child imported {measured['file']}, not {checkout}'s thrift_fp")
    return Timing(tuple(measured["cpu"]), tuple(measured["wall"]))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("database", type=Path)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--against", default=None, help="a checkout of the commit before the change")
    args = parser.parse_args(argv)
    print(f"load average before: {load_average()}")
    connection = sqlite3.connect(f"{args.database.resolve().as_uri()}?mode=ro", uri=True)
    (passages,) = connection.execute("SELECT count(*) FROM passages").fetchone()
    print(f"{args.database}: {passages} passages")
    timings = interleaved(phases(connection), args.rounds)
    checkouts = (here, *([args.against] if args.against else []))
    whole: dict[str, list[Timing]] = {checkout: [] for checkout in checkouts}
    for turn in range(2):  # A-B-B-A: each checkout's children before and after the other's
        for checkout in checkouts if turn == 0 else reversed(checkouts):
            whole[checkout].append(_whole(checkout, args.database, args.rounds))
    for checkout, children in whole.items():
        timings[f"_load, {checkout}"] = Timing(
            tuple(cpu for child in children for cpu in child.cpu), tuple(wall for child in children for wall in child.wall)
        )
    for name, timing in timings.items():
        print(f"{name:55s} CPU {timing.median_cpu * 1000:6.1f} ms median ({timing.best_cpu * 1000:6.1f} best)")
    print(f"load average after: {load_average()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
