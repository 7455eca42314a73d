"""A spool reader whose body exists only when someone reads it, and which tallies every read.

The memory workload gives thrift_fp artifacts whose size hints say 10 MB to 1 GB. The body is
generated line by line on demand (deterministic, 80 bytes a line), so a fit that wrongly read it
would both show up in ``reads`` and cost time and memory in proportion to the hinted size.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from returns.result import Failure, Result, Success

from thrift_fp.records import LineOutOfRange, ReaderDescriptor, StoreError

LINE_BYTES = 80


@dataclass
class ReadTally:
    """How many times any reader sharing this tally was asked for its body or its real size."""

    reads: int = 0


@dataclass(frozen=True)
class LazyReader:
    """``lines`` generated lines of ``LINE_BYTES`` bytes each (the last one may be shorter)."""

    id: str
    byte_total: int
    tally: ReadTally = field(compare=False)

    @property
    def lines(self) -> int:
        return -(-self.byte_total // LINE_BYTES)

    def _line(self, index: int) -> str:
        width = min(LINE_BYTES, self.byte_total - index * LINE_BYTES)
        head = f"{self.id} line {index} "
        return (head + "x" * LINE_BYTES)[: width - 1] + "\n"

    def line(self, index: int) -> Result[str, StoreError]:
        """Line ``index`` without its break."""
        self.tally.reads += 1
        if not 0 <= index < self.lines:
            return Failure(LineOutOfRange(self.id, index, self.lines))
        return Success(self._line(index).rstrip("\n"))

    def byte_length(self) -> Result[int, StoreError]:
        """The real byte length."""
        self.tally.reads += 1
        return Success(self.byte_total)

    def line_count(self) -> Result[int, StoreError]:
        """The real line count."""
        self.tally.reads += 1
        return Success(self.lines)

    def read_all(self) -> Result[str, StoreError]:
        """The whole body, materialised (what a fit must never do)."""
        self.tally.reads += 1
        return Success("".join(self._line(index) for index in range(self.lines)))

    def describe(self) -> ReaderDescriptor | None:
        """Generated bodies live nowhere that could be reopened."""
        return None

    def iter_lines(self) -> Iterator[Result[str, StoreError]]:
        """The lines with their breaks, generated one at a time."""
        self.tally.reads += 1
        return (Success(self._line(index)) for index in range(self.lines))
