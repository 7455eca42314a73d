"""`subtract_priced`: a fit whose messages the caller priced, given as columns (`PricedColumns`).

An adapter (`thrift_fp.adapters`) prices every message of a chat as the provider sends it and
then only needs to know which stay. Handing thrift one message object per chat message, which
thrift reads back attribute by attribute into entries, costs more than the rest of the fit on a
long history. `PricedColumns` is that bucket as parallel columns: the fit's passes read it in
place (`thrift_fp.thrift._entry.PricedRun`), with no object per message, and the fit answers the
places of the messages that stay. The result is the fit of the same messages given as objects
(`priced_messages`), trace and errors included: a bucket of columns that is not the common case
(an id that is not a ``str``, a repeated id, a cost that is not an ``int >= 0``, ...) is fitted as
those objects, which name the offending message as they always have.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime, timezone
from itertools import repeat
from typing import Final, NamedTuple, no_type_check

from returns.result import Failure, Result, Success

from thrift_fp._args import CheckedStringsArg
from thrift_fp._value import value
from thrift_fp.thrift._entry import PricedRun
from thrift_fp.thrift._errors import InvalidOption, ThriftError
from thrift_fp.thrift._estimate import settle_sync
from thrift_fp.thrift._fit import probed, run_passes, subtract_to_fit
from thrift_fp.thrift._measure import fitted_set, measure
from thrift_fp.thrift._options import ThriftOptions
from thrift_fp.thrift._trace import ThriftTrace
from thrift_fp.thrift._working_set import WorkingSet
from thrift_fp.tokens import TokenCounts

AGE: Final = datetime(1970, 1, 1, tzinfo=timezone.utc)
"""Every priced message's ``created_at`` as an object: one instant, so input order is age."""


@value
class PricedColumns:
    """A message bucket the caller priced, column by column: message ``i`` is named ``ids[i]``,
    costs ``token_costs[i]`` tokens as sent (never counted again), is never shed when
    ``summaries[i]``, and leaves together with every message sharing its ``pair_ids[i]`` (``None``:
    alone). Input order is age, oldest first (every message is of one instant); none is ephemeral.

    >>> bucket = PricedColumns(("system", "q1", "a1", "q2"), (12, 40, 55, 9), (True, False, False, False), (None, "t1", "t1", None))
    >>> subtract_priced(bucket, WorkingSet(), 80, options=ThriftOptions(output_reserve=0)).unwrap().kept  # the old turn goes whole
    (0, 3)
    """

    ids: Sequence[str]
    token_costs: Sequence[int]
    summaries: Sequence[bool]
    pair_ids: Sequence[str | None]


@value
class FittedColumns:
    """The fit of a `PricedColumns` bucket with the rest of a working set: the places of the
    messages that stay (increasing), the rest of the working set fitted (as `Fitted` holds it),
    and the trace.

    >>> fitted = subtract_priced(PricedColumns(("a", "b"), (30, 4), (False, False), (None, None)), WorkingSet(), 20).unwrap()
    >>> fitted.kept, fitted.trace.buckets[8].ids
    ((1,), ('a',))
    """

    kept: tuple[int, ...]
    working_set: WorkingSet
    trace: ThriftTrace


@no_type_check
class PricedMessage(NamedTuple):
    """One message of a `PricedColumns` bucket as the object the fit of objects reads (the
    shape of `thrift_fp.thrift.Message`; a named tuple, unchecked at run time)."""

    id: str
    content: str
    created_at: datetime
    role: str | None
    summary: bool
    ephemeral: bool
    pair_id: str | None
    token_cost: int


def priced_messages(columns: PricedColumns) -> tuple[PricedMessage, ...]:
    """The messages of ``columns`` as objects, in order: what `subtract_priced` fits the same as.

    >>> [(m.id, m.token_cost, m.pair_id) for m in priced_messages(PricedColumns(("a", "b"), (3, 4), (False, True), ("t", None)))]
    [('a', 3, 't'), ('b', 4, None)]
    """
    count = len(columns.ids)
    # Built by ``tuple.__new__`` (C-level, unchecked: the generated ``__new__`` would be checked
    # under the suite's claw, and a bucket fitted as objects may hold values of any type).
    return tuple(map(_new, repeat(PricedMessage), zip(
        columns.ids, repeat("", count), repeat(AGE, count), repeat(None, count), columns.summaries,
        repeat(False, count), columns.pair_ids, columns.token_costs,
    )))


_new: Final = tuple.__new__


def subtract_priced(
    columns: PricedColumns,
    working_set: WorkingSet,
    context_window: int | float,
    relevant_tool_names: CheckedStringsArg | None = None,
    options: ThriftOptions = ThriftOptions(),
    *,
    encoding: str | None = None,
) -> Result[FittedColumns, ThriftError]:
    """`subtract_to_fit` of ``working_set`` holding the messages of ``columns`` (its own
    ``messages`` must be empty), answering the places of the messages that stay.

    >>> bucket = PricedColumns(("m0", "m1", "m2", "sys"), (40, 40, 5, 10), (False, False, False, True), ("t", "t", None, None))
    >>> fitted = subtract_priced(bucket, WorkingSet(), 60).unwrap()
    >>> fitted.kept, fitted.trace.buckets[8].ids, fitted.trace.total_after
    ((2, 3), ('m0', 'm1'), 15)
    """
    if working_set.messages:
        return Failure(InvalidOption("working_set.messages", len(working_set.messages), "expected none: the messages are the columns"))
    count = len(columns.ids)
    lengths = {count, len(columns.token_costs), len(columns.summaries), len(columns.pair_ids)}
    if len(lengths) != 1:
        return Failure(InvalidOption("columns", sorted(lengths), "expected columns of one length"))
    if not _common(columns, count):
        return _as_objects(columns, working_set, context_window, relevant_tool_names, options, encoding)
    probe = probed(working_set, context_window, relevant_tool_names, options, encoding, TokenCounts())
    if isinstance(probe, Failure):
        return Failure(probe.failure())
    ready, raw = probe.unwrap()
    unmeasured = ready.unmeasured
    measured = measure(
        unmeasured.working_set, unmeasured.retrievables, unmeasured.retrievable_keys, settle_sync(raw),
        ready.encoding, TokenCounts(), ready.plan.options.counting_threads,
    )
    if isinstance(measured, Failure):
        return Failure(measured.failure())
    sized = measured.unwrap()[0]
    tokens = sum(columns.token_costs)
    sized = sized._replace(priced=PricedRun(columns, range(count), tokens), total=sized.total + tokens)
    state, trace = run_passes(sized, ready.plan, ready.budget, unmeasured.trace)
    kept = () if state.priced is None else state.priced.kept
    return Success(FittedColumns(tuple(kept), fitted_set(state), trace))


def _common(columns: PricedColumns, count: int) -> bool:
    """Whether the columns are the common case the fit reads in place (C-level passes): ``str``
    ids, all distinct; ``int`` costs >= 0; ``bool`` summaries; ``str`` or ``None`` pair ids."""
    return not (
        set(map(type, columns.ids)) - _STR
        or set(map(type, columns.token_costs)) - _INT
        or set(map(type, columns.summaries)) - _BOOL
        or set(map(type, columns.pair_ids)) - _PAIR
        or (count and min(columns.token_costs) < 0)
        or len(set(columns.ids)) != count
    )


_STR: Final = {str}
_INT: Final = {int}
_BOOL: Final = {bool}
_PAIR: Final = {str, type(None)}


def _as_objects(
    columns: PricedColumns,
    working_set: WorkingSet,
    context_window: int | float,
    relevant_tool_names: CheckedStringsArg | None,
    options: ThriftOptions,
    encoding: str | None,
) -> Result[FittedColumns, ThriftError]:
    """The fit of the messages as objects (what the columns' fit equals), places found by identity."""
    messages = priced_messages(columns)
    fitted = subtract_to_fit(replace(working_set, messages=messages), context_window, relevant_tool_names, options,
                             encoding=encoding)
    if isinstance(fitted, Failure):
        return Failure(fitted.failure())
    done = fitted.unwrap()
    places = {id(message): place for place, message in enumerate(messages)}
    kept = tuple(places[id(message)] for message in done.working_set.messages)
    return Success(FittedColumns(kept, replace(done.working_set, messages=()), done.trace))
