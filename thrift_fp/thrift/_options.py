"""Caller-chosen knobs of a fit."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ThriftOptions:
    """Options of `subtract_to_fit`.

    ``output_reserve``/``reserve_fraction`` feed `resolve_budget`. ``keep_thought_ids`` survive the
    thought strip and are never shed. ``this_turn_result_keep`` this-turn tool calls always stay
    (the newest ones). ``protected_tool_names`` are hidden last. ``encoding`` names the tokenizer.

    >>> ThriftOptions().this_turn_result_keep
    3
    """

    output_reserve: int | float | None = None
    reserve_fraction: float = 0.35
    strip_prior_turn_thoughts: bool = True
    keep_thought_ids: frozenset[str] = frozenset()
    this_turn_result_keep: int = 3
    protected_tool_names: frozenset[str] = frozenset()
    encoding: str = "cl100k_base"
