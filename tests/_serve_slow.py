"""A test-only server whose search blocks, for a question holding "slowly", until its call is
cancelled: cancellation mid-call becomes deterministic.

    python -m tests._serve_slow INDEX STARTED_FILE

The slow read touches STARTED_FILE once it is running, then waits on the lifecycle's signal.
"""

from __future__ import annotations

import dataclasses
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import anyio

from thrift_fp.retrieval import OperationContext
from thrift_fp.serve import SqliteBackend, build_server, serve_settings, serve_stdio
from thrift_fp.sources import FtsDefinition, Hit

# Far longer than any test waits: the call ends by cancellation, never by this.
_GIVE_UP_S = 60.0


@dataclass(frozen=True, slots=True)
class SlowBackend:
    """An index whose reads for "slowly" wait to be cancelled."""

    inner: SqliteBackend
    started: Path

    def definition(self, tiers: tuple[str, ...], max_results: int, max_calls: int) -> FtsDefinition:
        definition = self.inner.definition(tiers, max_results, max_calls)
        execute = definition.execute

        def slow(query: str, context: OperationContext[object]) -> tuple[Hit, ...]:
            if "slowly" not in query:
                return execute(query, context)
            self.started.touch()
            deadline = time.monotonic() + _GIVE_UP_S
            while not context.signal.aborted and time.monotonic() < deadline:
                time.sleep(0.01)
            return ()

        return dataclasses.replace(definition, execute=slow)

    def surroundings(self, hit: Hit) -> tuple[tuple[int, Hit], ...]:
        return self.inner.surroundings(hit)

    def describe(self) -> str:
        return self.inner.describe()

    def ranking(self) -> dict[str, object]:
        return self.inner.ranking()


def main(database: str, started: str) -> None:
    backend = SlowBackend(SqliteBackend(Path(database)), Path(started))
    anyio.run(serve_stdio, build_server(backend, serve_settings().unwrap()))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
