"""Caller-chosen knobs of a fit, and the shed order: which bucket gives way first, as data."""

from __future__ import annotations

from types import MappingProxyType
from typing import Final, Literal, get_args

from thrift_fp._value import value

ShedPass = Literal[
    "image",
    "tool-calls",
    "retrievables",
    "memories",
    "ephemeral-messages",
    "oldest-messages",
    "thoughts-shed",
    "tools-shed",
]
"""A shedding pass, named by the bucket it sheds from."""
SHED_PASSES: Final[tuple[ShedPass, ...]] = get_args(ShedPass)
"""Every shedding pass; a `ShedOrder` names each exactly once."""


@value
class ShedOrder:
    """The order in which the shedding passes run, each while the set is over budget.

    ``passes`` names every shedding pass exactly once (`SHED_PASSES`); a fit refuses any other
    tuple with an `InvalidOption`. The unconditional passes (size-unknown exclusion, thought strip,
    tool shortlist) always run first. An order decides only *which* bucket gives way first: every
    floor (system prompt, instructions, summaries, the newest message, protected and newest
    thoughts, the newest this-turn tool calls) is a floor in every order.

    Presets: `AGENT` (the seed's order, the default) and `RAG` (old turns give way before passages).

    >>> RAG.passes.index("oldest-messages") < RAG.passes.index("retrievables")
    True
    >>> SHED_ORDERS["agent"] is AGENT
    True
    """

    name: str
    passes: tuple[ShedPass, ...]


AGENT: Final = ShedOrder("agent", SHED_PASSES)
"""The default shedding order, for agents: old turns are kept longer than passages."""
RAG: Final = ShedOrder(
    "rag",
    (
        "image",
        "tool-calls",
        "ephemeral-messages",
        "oldest-messages",
        "retrievables",
        "memories",
        "thoughts-shed",
        "tools-shed",
    ),
)
"""The shedding order for retrieval-augmented prompts: ephemeral and old turns are shed before passages."""
SHED_ORDERS: Final = MappingProxyType({AGENT.name: AGENT, RAG.name: RAG})
"""The built-in shedding orders by name (``agent``, ``rag``)."""


@value
class ThriftOptions:
    """Options of `subtract_to_fit`.

    ``output_reserve``/``reserve_fraction`` feed `resolve_budget`. ``keep_thought_ids`` survive the
    thought strip and are never shed. ``this_turn_result_keep`` this-turn tool calls always stay
    (the newest ones). ``protected_tool_names`` are hidden last. ``encoding`` names the tokenizer.
    ``shed_order`` picks which bucket gives way first (`AGENT` by default, or `RAG`).
    ``refill`` (off by default, the seed's behaviour) re-admits shed retrievables and memories
    that still fit in the budget left after shedding (see `subtract_to_fit`).
    ``counting_threads`` caps the threads that count one fit's texts (``None``: the library's
    default, ``min(4, cpu count)``; 1 counts on the calling thread).

    >>> ThriftOptions().this_turn_result_keep, ThriftOptions().shed_order.name, ThriftOptions().refill
    (3, 'agent', False)
    """

    output_reserve: int | float | None = None
    reserve_fraction: float = 0.35
    strip_prior_turn_thoughts: bool = True
    keep_thought_ids: frozenset[str] = frozenset()
    this_turn_result_keep: int = 3
    protected_tool_names: frozenset[str] = frozenset()
    encoding: str = "cl100k_base"
    shed_order: ShedOrder = AGENT
    refill: bool = False
    counting_threads: int | None = None
