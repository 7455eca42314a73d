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


class BudgetTooSmall(ErrorValue):
    """``ask``'s budget cannot carry the safety directive and one retrieved passage: the context
    would be empty although passages matched. ``smallest`` is the smallest useful budget;
    ``window`` the ``--window`` given (``None`` for ``--budget``) and ``smallest_window`` the
    window that leaves ``smallest``.

    >>> BudgetTooSmall(50, 143, None, None).message
    'a budget of 50 tokens cannot carry the safety directive and one passage; the smallest useful budget here is 143 (--budget 143)'
    >>> BudgetTooSmall(52, 143, 80, 221).message  # doctest: +NORMALIZE_WHITESPACE
    'a budget of 52 tokens (--window 80 less the share reserved for the answer) cannot carry the safety directive and one passage;
     the smallest useful budget here is 143 (--budget 143, or --window 221)'
    """

    budget: int
    smallest: int
    window: int | None
    smallest_window: int | None

    @property
    def message(self) -> str:
        given = "" if self.window is None else f" (--window {self.window} less the share reserved for the answer)"
        other = "" if self.smallest_window is None else f", or --window {self.smallest_window}"
        return (
            f"a budget of {self.budget} tokens{given} cannot carry the safety directive and one passage;"
            f" the smallest useful budget here is {self.smallest} (--budget {self.smallest}{other})"
        )


CliError = InvalidJson | InvalidWorkingSet | InvalidArgument | BudgetTooSmall | AssembleError | ThriftError | PostgresError
