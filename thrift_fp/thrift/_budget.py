"""The token budget: the context window minus the output reserve."""

from __future__ import annotations

import math

from returns.result import Failure, Result, Success

from thrift_fp._value import value
from thrift_fp.thrift._errors import InvalidBudget, ThriftError
from thrift_fp.thrift._fields import beyond_float, finite


@value
class Budget:
    """A window split into the reserve for the model's output and the budget for the input."""

    context_window: int | float
    reserve: int
    budget: int


def resolve_budget(
    context_window: int | float,
    output_reserve: int | float | None = None,
    reserve_fraction: float = 0.35,
) -> Result[Budget, ThriftError]:
    """``reserve = ceil(window * fraction)`` unless an output reserve is given, then
    ``min(window, max(0, ceil(output_reserve)))``; ``budget = max(0, floor(window - reserve))``.

    >>> resolve_budget(4096, 1024).unwrap().budget
    3072
    >>> resolve_budget(1_000_000).unwrap().budget
    650000
    >>> resolve_budget(100, 1000).unwrap()
    Budget(context_window=100, reserve=100, budget=0)
    >>> resolve_budget(-1).failure().message
    'invalid context_window -1: must be a finite number >= 0'
    >>> resolve_budget(10**400).failure().reason
    'must be within float range'
    >>> resolve_budget(100, reserve_fraction=1.5).failure().message
    'invalid reserve_fraction 1.5: must be within [0, 1]'
    """
    if isinstance(context_window, bool) or not finite(context_window) or context_window < 0:
        reason = "must be a finite number >= 0" if not beyond_float(context_window) else "must be within float range"
        return Failure(InvalidBudget("context_window", context_window, reason))
    if isinstance(reserve_fraction, bool) or not 0 <= reserve_fraction <= 1:
        return Failure(InvalidBudget("reserve_fraction", reserve_fraction, "must be within [0, 1]"))
    if output_reserve is None:
        reserve = math.ceil(context_window * reserve_fraction)
    elif isinstance(output_reserve, bool) or not (isinstance(output_reserve, int) or math.isfinite(output_reserve)):
        return Failure(InvalidBudget("output_reserve", output_reserve, "must be a finite number"))
    else:
        # A negative reserve means "none"; a reserve beyond the window leaves no budget.
        reserve = min(math.ceil(context_window), max(0, math.ceil(output_reserve)))
    return Success(Budget(context_window, reserve, max(0, math.floor(context_window - reserve))))
