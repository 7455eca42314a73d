"""A test-only server whose search blocks, the first time a question holds "slowly", until its
call is cancelled: cancellation mid-call becomes deterministic.

    python -m tests._serve_slow INDEX STARTED_FILE [--http 127.0.0.1:0]

The slow search touches STARTED_FILE once it is running, then waits on the lifecycle's signal,
and then answers as the index does (so the work is done, and only the cancel stops it being
kept). Once STARTED_FILE exists, "slowly" questions answer at once.

The first ``read`` is slow after the lifecycle has run, where no signal reaches: finding the
passage's surroundings touches STARTED_FILE.read, then takes `READ_DELAY_S` whatever happens,
so a cancel lands while the answer is being built and the answer is finished anyway.
"""

from __future__ import annotations

import dataclasses
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import anyio

from thrift_fp.retrieval import OperationContext
from thrift_fp.serve import SqliteBackend, build_server, serve_http, serve_settings, serve_stdio
from thrift_fp.serve._server import announce
from thrift_fp.sources import FtsDefinition, Hit

# Far longer than any test waits: the call ends by cancellation, never by this.
_GIVE_UP_S = 60.0
READ_DELAY_S = 1.5


@dataclass(frozen=True, slots=True)
class SlowBackend:
    """An index whose reads for "slowly" wait to be cancelled."""

    inner: SqliteBackend
    started: Path

    def definition(self, tiers: tuple[str, ...], max_results: int, max_calls: int) -> FtsDefinition:
        definition = self.inner.definition(tiers, max_results, max_calls)
        execute = definition.execute

        def slow(query: str, context: OperationContext[object]) -> tuple[Hit, ...]:
            if "slowly" not in query or self.started.exists():
                return execute(query, context)
            self.started.touch()
            deadline = time.monotonic() + _GIVE_UP_S
            while not context.signal.aborted and time.monotonic() < deadline:
                time.sleep(0.01)
            return execute(query, context)

        return dataclasses.replace(definition, execute=slow)

    def surroundings(self, hit: Hit) -> tuple[tuple[int, Hit], ...]:
        marker = self.started.with_name(self.started.name + ".read")
        if not marker.exists():
            marker.touch()
            time.sleep(READ_DELAY_S)
        return self.inner.surroundings(hit)

    def describe(self) -> str:
        return self.inner.describe()

    def ranking(self) -> dict[str, object]:
        return self.inner.ranking()


def main(database: str, started: str, *http: str) -> None:
    backend = SlowBackend(SqliteBackend(Path(database)), Path(started))
    server = build_server(backend, serve_settings().unwrap())
    if not http:
        anyio.run(serve_stdio, server)
        return
    host, _, port = http[-1].rpartition(":")
    anyio.run(serve_http, server, host, int(port), announce)


if __name__ == "__main__":
    main(*sys.argv[1:])
