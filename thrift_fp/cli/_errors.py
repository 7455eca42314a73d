"""Errors only the command line meets: its own inputs, before any layer is called."""

from __future__ import annotations

from thrift_fp._errors import ErrorValue
from thrift_fp.sources import AssembleError
from thrift_fp.sources.postgres import PostgresError
from thrift_fp.thrift import ThriftError


class InvalidJson(ErrorValue, template="{origin} is not valid JSON: {reason}"):
    """The input is not JSON at all."""

    origin: str
    reason: str


class InvalidWorkingSet(ErrorValue):
    """The JSON does not follow the working-set format (every problem, by JSON path)."""

    origin: str
    problems: tuple[str, ...]

    @property
    def message(self) -> str:
        more = f" (and {len(self.problems) - 1} more)" if len(self.problems) > 1 else ""
        return f"{self.origin} is not a valid working set: {self.problems[0]}{more}"


class InvalidArgument(ErrorValue):
    """A command-line value out of range, such as a negative budget."""

    option: str
    value: object
    reason: str

    @property
    def message(self) -> str:
        # No value (a missing one) is not shown as "None".
        return f"{self.option}: {self.reason}" if self.value is None else f"{self.option} {self.value!r}: {self.reason}"


CliError = InvalidJson | InvalidWorkingSet | InvalidArgument | AssembleError | ThriftError | PostgresError
