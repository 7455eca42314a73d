"""`subtract_to_fit` and `fit_async`: validate, exclude size-unknown, measure once, run the passes."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from itertools import chain, repeat
from operator import attrgetter

from returns.result import Failure, Result, Success

from thrift_fp._args import CheckedStringsArg
from thrift_fp._value import value
from thrift_fp.thrift._budget import Budget, resolve_budget
from thrift_fp.thrift._errors import CountingFailed, DuplicateId, InvalidItemField, InvalidOption, ThriftError
from thrift_fp.thrift._estimate import probe_estimates, settle_async, settle_sync
from thrift_fp.thrift._entry import Sized
from thrift_fp.thrift._history import Reuse, reuse_of
from thrift_fp.thrift._measure import fitted_set, measure
from thrift_fp.thrift._options import SHED_PASSES, ThriftOptions
from thrift_fp.thrift._passes import SHEDDING, UNCONDITIONAL, Plan, Unmeasured, exclude_size_unknown, refill
from thrift_fp.thrift._shape_check import check_shapes
from thrift_fp.thrift._trace import BucketTrace, RefillTrace, ThriftTrace
from thrift_fp.thrift._working_set import WorkingSet
from thrift_fp.thrift._picture import fit_report_html, report_passages
from thrift_fp.tokens import TokenCounts, TokenEncoding
from thrift_fp.tokens._encoding import get_encoding


@value
class Fitted:
    """The fitted working set, the trace of how it was fitted, and the token counts of every
    text this fit measured: pass ``counts`` to the next fit so repeated texts are not re-counted.

    >>> from datetime import datetime, timezone
    >>> from thrift_fp.thrift._shapes import Message
    >>> at = datetime(2026, 1, 1, tzinfo=timezone.utc)
    >>> turn1 = WorkingSet(messages=(Message("m1", "hello there", at),))
    >>> first = subtract_to_fit(turn1, 1000).unwrap()
    >>> turn2 = WorkingSet(messages=(*turn1.messages, Message("m2", "and again", at)))
    >>> again = subtract_to_fit(turn2, 1000, counts=first.counts).unwrap().counts
    >>> again.reused, len(again)  # the (empty) system prompt and m1 were known; m2 was counted
    (2, 3)
    """

    working_set: WorkingSet
    trace: ThriftTrace
    counts: TokenCounts = TokenCounts()

    def _repr_html_(self) -> str:
        """The fit as one self-contained HTML page, shown inline by a notebook (the window bar,
        what was shed and why, the kept passages, the trace); see `thrift_fp.thrift.fit_report_html`.

        >>> subtract_to_fit(WorkingSet(system_prompt="Be brief."), 100).unwrap()._repr_html_()[:15]
        '<!DOCTYPE html>'
        """
        refilled = (key for step in self.trace.refilled for key in step.ids)
        return fit_report_html(self.trace, report_passages(self.working_set.retrievables, refilled=refilled))


@value
class _Prepared:
    budget: Budget
    plan: Plan
    encoding: TokenEncoding
    unmeasured: Unmeasured
    counts: TokenCounts
    # The leading messages the previous fit measured with this very encoding, if any.
    reuse: Reuse | None


def subtract_to_fit(
    working_set: WorkingSet,
    context_window: int | float,
    relevant_tool_names: CheckedStringsArg | None = None,
    options: ThriftOptions = ThriftOptions(),
    *,
    encoding: str | None = None,
    counts: TokenCounts = TokenCounts(),
) -> Result[Fitted, ThriftError]:
    """Fit ``working_set`` into ``context_window``, shedding the lowest-signal items first.

    ``encoding`` (default: ``options.encoding``) names the tokenizer. A retrievable's own
    ``estimate_tokens`` counts when it returns a count synchronously; an awaitable is closed
    unawaited and the content text is measured instead (use `fit_async` to await it).
    ``relevant_tool_names=None`` keeps every visible tool through the shortlist pass; a repeated
    name counts once, at its first position.

    ``counts`` (from the previous fit's `Fitted.counts`) lets texts already counted with the same
    encoding skip tokenization, and the leading messages that are the previous fit's very
    `Message` objects skip validation too (an agent's history that grew by appends); the result is
    identical with or without them (a custom estimator must be a pure function of the text for
    that to hold).

    With ``options.refill`` on, after the shedding passes the shed retrievables and memories are
    offered back while they fit in what is left of the budget (see `ThriftOptions`); the trace's
    ``refilled`` names what came back.

    >>> from datetime import datetime, timezone
    >>> from thrift_fp import Message, Retrievable
    >>> at = datetime(2026, 1, 1, tzinfo=timezone.utc)
    >>> ws = WorkingSet(
    ...     system_prompt="You are helpful.",
    ...     messages=(Message("m1", "What colour is the sky?", at, role="user"),),
    ...     retrievables=(Retrievable("long", "The sky is blue. " * 40, "first-party", at, at, score=0.2),
    ...                   Retrievable("short", "The sky is blue.", "first-party", at, at, score=0.9)),
    ... )
    >>> fitted = subtract_to_fit(ws, 100).unwrap()
    >>> [passage.id for passage in fitted.working_set.retrievables]
    ['short']
    >>> (fitted.trace.budget, fitted.trace.fits, fitted.trace.buckets[5].ids)
    (65, True, ('long',))
    """
    return probed(working_set, context_window, relevant_tool_names, options, encoding, counts).bind(
        lambda done: _finish(done[0], settle_sync(done[1]))
    )


async def fit_async(
    working_set: WorkingSet,
    context_window: int | float,
    relevant_tool_names: CheckedStringsArg | None = None,
    options: ThriftOptions = ThriftOptions(),
    *,
    encoding: str | None = None,
    counts: TokenCounts = TokenCounts(),
) -> Result[Fitted, ThriftError]:
    """`subtract_to_fit`, but awaits retrievables' awaitable estimates (concurrently) first.

    >>> import asyncio
    >>> class Spooled:
    ...     content = "a long body " * 100
    ...     async def estimate_tokens(self, encoding: str) -> int:
    ...         return 7
    >>> fitted = asyncio.run(fit_async(WorkingSet(retrievables=(Spooled(),)), 1000)).unwrap()
    >>> fitted.trace.total_after
    7
    """
    probe = probed(working_set, context_window, relevant_tool_names, options, encoding, counts)
    if isinstance(probe, Failure):
        return Failure(probe.failure())
    ready, raw = probe.unwrap()
    settled = await settle_async(raw, ready.unmeasured.retrievable_keys)
    if isinstance(settled, Failure):
        return Failure(settled.failure())
    return _finish(ready, settled.unwrap())


def probed(
    working_set: WorkingSet,
    context_window: int | float,
    relevant_tool_names: CheckedStringsArg | None,
    options: ThriftOptions,
    encoding: str | None,
    counts: TokenCounts,
) -> Result[tuple[_Prepared, tuple[object, ...]], ThriftError]:
    """A fit prepared (budget, options, shapes, encoding) and its passages' own estimates asked
    once, not yet settled: where every fit, synchronous, asynchronous or of priced columns, starts."""
    return _prepare(working_set, context_window, relevant_tool_names, options, encoding, counts).bind(
        lambda ready: probe_estimates(
            ready.unmeasured.retrievables, ready.unmeasured.retrievable_keys, ready.encoding.name
        ).map(lambda raw: (ready, raw))
    )


def _prepare(
    working_set: WorkingSet,
    context_window: int | float,
    relevant_tool_names: CheckedStringsArg | None,
    options: ThriftOptions,
    encoding: str | None,
    counts: TokenCounts,
) -> Result[_Prepared, ThriftError]:
    budget = resolve_budget(context_window, options.output_reserve, options.reserve_fraction)
    if isinstance(budget, Failure):
        return Failure(budget.failure())
    # One name as a str is one name, not its letters; each element is then checked to be a str.
    names = (relevant_tool_names,) if isinstance(relevant_tool_names, str) else relevant_tool_names
    relevant = _relevant_names(names)
    if isinstance(relevant, Failure):
        return Failure(relevant.failure())
    # Identity only (no item is read): the previous fit's leading messages, if the counts carry them.
    reuse = reuse_of(counts, working_set.messages)
    checked = _check_options(options).bind(lambda _: check_shapes(working_set)).bind(
        lambda _: _check_ids(working_set, reuse)
    )
    if isinstance(checked, Failure):
        return Failure(checked.failure())
    resolved = get_encoding(encoding if encoding is not None else options.encoding)
    if isinstance(resolved, Failure):
        return Failure(CountingFailed(resolved.failure()))
    unmeasured = exclude_size_unknown(working_set)
    if isinstance(unmeasured, Failure):
        return Failure(unmeasured.failure())
    plan = Plan(budget.unwrap().budget, options, relevant.unwrap())
    enc = resolved.unwrap()
    # Counts are reused only with the very encoding object that made them (caller-priced
    # messages were counted by none).
    same = reuse if reuse is not None and (reuse.history.priced or reuse.history.encoding is enc) else None
    return Success(_Prepared(budget.unwrap(), plan, enc, unmeasured.unwrap(), counts, same))


def _finish(ready: _Prepared, estimates: Sequence[int | None]) -> Result[Fitted, ThriftError]:
    unmeasured = ready.unmeasured
    measured = measure(
        unmeasured.working_set, unmeasured.retrievables, unmeasured.retrievable_keys, estimates, ready.encoding,
        ready.counts,
        ready.plan.options.counting_threads,
        ready.reuse,
    )
    return measured.map(lambda done: _run(done[0], ready.plan, ready.budget, unmeasured.trace, done[1]))


def _run(sized: Sized, plan: Plan, budget: Budget, size_unknown: BucketTrace, counts: TokenCounts) -> Fitted:
    state, trace = run_passes(sized, plan, budget, size_unknown)
    return Fitted(fitted_set(state), trace, counts)


def run_passes(sized: Sized, plan: Plan, budget: Budget, size_unknown: BucketTrace) -> tuple[Sized, ThriftTrace]:
    """Every pass and the refill over the measured ``sized``: the final state and the trace."""
    state = sized
    traces = [size_unknown]
    order = plan.options.shed_order
    for stage in (*UNCONDITIONAL, *(SHEDDING[name] for name in order.passes)):
        state, bucket = stage(state, plan)
        traces.append(bucket)
    refilled: tuple[RefillTrace, ...] = ()
    if plan.options.refill:
        state, refilled = refill(sized, state, plan)
    fits = state.total <= plan.budget
    # Every pass sheds to its floor while over budget, so still over budget means the floor is.
    trace = ThriftTrace(
        budget.context_window, budget.reserve, budget.budget, sized.total, state.total, fits, not fits,
        tuple(traces), order.name, refilled,
    )
    return state, trace


def _relevant_names(names: Iterable[object] | None) -> Result[tuple[str, ...] | None, ThriftError]:
    """Distinct names in first-occurrence order; every element must be a str (beartype samples
    only one element of a sequence, so each is checked here)."""
    if names is None:
        return Success(None)
    checked: list[str] = []
    for index, name in enumerate(names):
        if not isinstance(name, str):
            return Failure(InvalidOption(f"relevant_tool_names[{index}]", name, "expected a str"))
        checked.append(name)
    return Success(tuple(dict.fromkeys(checked)))


def _check_options(options: ThriftOptions) -> Result[None, ThriftError]:
    keep: object = options.this_turn_result_keep
    if isinstance(keep, bool) or not isinstance(keep, int) or keep < 0:
        return Failure(InvalidOption("this_turn_result_keep", keep, "expected an int >= 0"))
    passes = options.shed_order.passes
    if sorted(map(str, passes)) != sorted(SHED_PASSES) or len(passes) != len(SHED_PASSES):
        return Failure(InvalidOption(
            "shed_order", options.shed_order.name,
            f"passes must name each of {', '.join(SHED_PASSES)} exactly once",
        ))
    refill_on: object = options.refill
    if not isinstance(refill_on, bool):
        return Failure(InvalidOption("refill", refill_on, "expected a bool"))
    threads: object = options.counting_threads
    if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int) or threads < 1):
        return Failure(InvalidOption("counting_threads", threads, "expected None or an int >= 1"))
    return Success(None)


def _first_duplicate(keys: Iterable[str]) -> str | None:
    seen: set[str] = set()
    for key in keys:
        if key in seen:
            return key
        seen.add(key)
    return None


def _check_ids(ws: WorkingSet, reuse: Reuse | None = None) -> Result[None, ThriftError]:
    """Ids must be str and unique within their bucket (anonymous memories/retrievables are named
    by input position). The messages ``reuse`` shares with the previous fit were checked there:
    only the rest is read, against the shared ids."""
    shared = 0 if reuse is None else reuse.shared
    known: frozenset[str] = frozenset() if reuse is None else reuse.keys
    named: tuple[tuple[str, str, Sequence[object], int, frozenset[str]], ...] = (
        ("messages", "id", ws.messages[shared:], shared, known),
        ("thoughts", "id", ws.thoughts, 0, frozenset()),
        ("tool-calls", "ref", ws.tool_calls, 0, frozenset()),
        ("tools", "name", ws.tools, 0, frozenset()),
    )
    for bucket, field, items, offset, before in named:
        keys = list(map(attrgetter(field), items))
        for index, key in enumerate(keys if set(map(type, keys)) - {str} else (), offset):
            if not isinstance(key, str):
                return Failure(InvalidItemField(bucket, f"{bucket}[{index}]", field, key, "expected a str"))
        # The ids before ``offset`` are distinct, so the first repeat in input order is among the rest.
        clean = len(set(keys)) == len(keys) and before.isdisjoint(keys)
        duplicate = None if clean else _first_duplicate(chain(before, keys))
        if duplicate is not None:
            return Failure(DuplicateId(bucket, duplicate))
    for bucket, prefix, items in (("memories", "memory", ws.memories), ("retrievables", "retrievable", ws.retrievables)):
        # One C-level pass over the ids; the per-item loop runs only to name an offending one.
        idents = list(map(getattr, items, repeat("id"), repeat(None)))
        for index, ident in enumerate(idents if set(map(type, idents)) - {str, type(None)} else ()):
            if ident is not None and not isinstance(ident, str):
                return Failure(InvalidItemField(bucket, f"{prefix}[{index}]", "id", ident, "expected a str or None"))
    duplicate = _first_duplicate(
        ident if isinstance(ident := getattr(item, "id", None), str) else f"memory[{index}]"
        for index, item in enumerate(ws.memories)
    )
    # Retrievable ids are checked by the size-unknown pass, which names them anyway.
    return Success(None) if duplicate is None else Failure(DuplicateId("memories", duplicate))


