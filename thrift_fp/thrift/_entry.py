"""The fit's internal per-item values: `Entry` (an item and what the passes sort on), `Sized`
(the entries still in, and their total), `MessageColumns` (the bulk path's messages) and
`PricedRun` (a caller-priced message bucket given as columns: no entry per message).

No ``from __future__ import annotations`` here: a NamedTuple's generated ``__new__`` carries the
field annotations, which beartype (under the test suite) must resolve. Both are built from data
`_measure` validated, so the passes run on them unchecked (see `_measure`'s docstring).
"""

from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple, no_type_check

from thrift_fp.thrift._working_set import WorkingSet


@no_type_check
class Entry(NamedTuple):
    """An item with its measured tokens and the attributes the passes sort on.

    A named tuple, built only after the fit's one batch count (so ``tokens`` is final when it is
    made): the bulk paths build a whole bucket's entries with C-level ``tuple.__new__`` over
    ``zip``, ~0.1 us an entry against ~0.6 us for a slotted dataclass, per item per fit. Entries
    are compared and hashed by nobody (the passes go by ``position``).
    """

    item: Any
    key: str
    tokens: int
    position: int
    # Age (messages, thoughts, tool calls), score, importance or shed_rank, by bucket. A bucket's
    # ranks are only ever compared with each other (messages: see `_Collector._bulk_messages`).
    rank: float | int
    this_turn: bool = False
    summary: bool = False
    ephemeral: bool = False
    pair: str | None = None
    # Position of the item's text in the fit's batch; -1 when ``tokens`` is known already.
    slot: int = -1


@no_type_check
class PricedRun(NamedTuple):
    """The messages still in of a bucket the caller priced as columns (`thrift_fp.thrift._priced`):
    in a `Sized` (``priced``) in place of its message entries, so such a bucket costs no object per message.
    ``columns`` is the bucket as given (its ``ids``, ``token_costs``, ``summaries`` and
    ``pair_ids``, one place per message; input order is age, oldest first); ``kept`` the places
    still in, increasing; ``tokens`` their cost. Only passes 7 and 8 read it."""

    columns: Any
    kept: Sequence[int]
    tokens: int


@no_type_check
class Sized(NamedTuple):
    """The input working set and the measured entries still in; ``visible`` the visible tool
    names (``None``: all); ``total`` the tokens of everything visible. The passes replace entries
    (``_replace``), never the working set, which `fitted_set` builds once at the end. Unchecked at
    run time: it is internal, built from data `measure` validated; a named tuple because each pass
    makes a new one (``dataclasses.replace`` of a frozen dataclass costs several times more)."""

    working_set: WorkingSet
    visible: frozenset[str] | None
    fixed_tokens: int
    messages: tuple[Entry, ...]
    memories: tuple[Entry, ...]
    retrievables: tuple[Entry, ...]
    thoughts: tuple[Entry, ...]
    tools: tuple[Entry, ...]
    tool_calls: tuple[Entry, ...]
    image: Entry | None
    total: int
    # The messages when given as priced columns (``messages`` is then empty).
    priced: PricedRun | None = None


@no_type_check
class MessageColumns(NamedTuple):
    """The bulk path's messages (``items``, from input position ``offset`` on) and their columns,
    zipped into entries once counted; ``start``: their first text's place in the batch.
    ``costs``: every message's caller-given ``token_cost`` when all are priced (no text queued),
    else ``None`` (none is priced: all are counted)."""

    items: Sequence[Any]
    keys: list[str]
    ranks: range | list[float]
    summaries: Iterator[bool]
    ephemerals: Iterator[bool]
    pairs: list[str | None]
    start: int
    offset: int
    contents: list[str]
    by_position: bool
    costs: list[int] | None = None

