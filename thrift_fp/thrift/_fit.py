"""`subtract_to_fit` and `fit_async`: validate, exclude size-unknown, measure once, run the passes."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from returns.result import Failure, Result, Success

from thrift_fp._args import StringsArg, as_strings
from thrift_fp.thrift._budget import Budget, resolve_budget
from thrift_fp.thrift._errors import CountingFailed, DuplicateId, InvalidItemField, InvalidOption, ThriftError
from thrift_fp.thrift._estimate import probe_estimates, settle_async, settle_sync
from thrift_fp.thrift._fields import item_key
from thrift_fp.thrift._measure import Sized, measure
from thrift_fp.thrift._options import ThriftOptions
from thrift_fp.thrift._passes import PASSES, Plan, Unmeasured, exclude_size_unknown
from thrift_fp.thrift._trace import BucketTrace, ThriftTrace
from thrift_fp.thrift._working_set import WorkingSet
from thrift_fp.tokens import TokenEncoding, get_encoding


@dataclass(frozen=True, slots=True)
class Fitted:
    """The fitted working set and the trace of how it was fitted."""

    working_set: WorkingSet
    trace: ThriftTrace


@dataclass(frozen=True, slots=True)
class _Prepared:
    budget: Budget
    plan: Plan
    encoding: TokenEncoding
    unmeasured: Unmeasured


def subtract_to_fit(
    working_set: WorkingSet,
    context_window: int | float,
    relevant_tool_names: StringsArg | None = None,
    options: ThriftOptions = ThriftOptions(),
    *,
    encoding: str | None = None,
) -> Result[Fitted, ThriftError]:
    """Fit ``working_set`` into ``context_window``, shedding the lowest-signal items first.

    ``encoding`` (default: ``options.encoding``) names the tokenizer. A retrievable's own
    ``estimate_tokens`` counts when it returns a count synchronously; an awaitable is closed
    unawaited and the content text is measured instead (use `fit_async` to await it).
    ``relevant_tool_names=None`` keeps every visible tool through the shortlist pass.

    >>> from datetime import datetime, timezone
    >>> from thrift_fp.thrift._shapes import Message, WorkingRetrievable
    >>> at = datetime(2026, 1, 1, tzinfo=timezone.utc)
    >>> ws = WorkingSet(
    ...     system_prompt="You are helpful.",
    ...     messages=(Message("m1", "What colour is the sky?", at, role="user"),),
    ...     retrievables=(WorkingRetrievable("The sky is blue. " * 40, id="long", score=0.2),
    ...                   WorkingRetrievable("The sky is blue.", id="short", score=0.9)),
    ... )
    >>> fitted = subtract_to_fit(ws, 100).unwrap()
    >>> [passage.id for passage in fitted.working_set.retrievables]
    ['short']
    >>> (fitted.trace.budget, fitted.trace.fits, fitted.trace.buckets[5].ids)
    (65, True, ('long',))
    """
    prepared = _prepare(working_set, context_window, relevant_tool_names, options, encoding)
    if isinstance(prepared, Failure):
        return Failure(prepared.failure())
    ready = prepared.unwrap()
    unmeasured = ready.unmeasured
    raw = probe_estimates(unmeasured.working_set.retrievables, unmeasured.retrievable_keys, ready.encoding.name)
    if isinstance(raw, Failure):
        return Failure(raw.failure())
    return _finish(ready, settle_sync(raw.unwrap()))


async def fit_async(
    working_set: WorkingSet,
    context_window: int | float,
    relevant_tool_names: StringsArg | None = None,
    options: ThriftOptions = ThriftOptions(),
    *,
    encoding: str | None = None,
) -> Result[Fitted, ThriftError]:
    """`subtract_to_fit`, but awaits retrievables' awaitable estimates (concurrently) first.

    >>> import asyncio
    >>> from thrift_fp.thrift._shapes import WorkingRetrievable
    >>> class Spooled:
    ...     content = "a long body " * 100
    ...     async def estimate_tokens(self, encoding: str) -> int:
    ...         return 7
    >>> fitted = asyncio.run(fit_async(WorkingSet(retrievables=(Spooled(),)), 1000)).unwrap()
    >>> fitted.trace.total_after
    7
    """
    prepared = _prepare(working_set, context_window, relevant_tool_names, options, encoding)
    if isinstance(prepared, Failure):
        return Failure(prepared.failure())
    ready = prepared.unwrap()
    unmeasured = ready.unmeasured
    raw = probe_estimates(unmeasured.working_set.retrievables, unmeasured.retrievable_keys, ready.encoding.name)
    if isinstance(raw, Failure):
        return Failure(raw.failure())
    settled = await settle_async(raw.unwrap(), unmeasured.retrievable_keys)
    if isinstance(settled, Failure):
        return Failure(settled.failure())
    return _finish(ready, settled.unwrap())


def _prepare(
    working_set: WorkingSet,
    context_window: int | float,
    relevant_tool_names: StringsArg | None,
    options: ThriftOptions,
    encoding: str | None,
) -> Result[_Prepared, ThriftError]:
    budget = resolve_budget(context_window, options.output_reserve, options.reserve_fraction)
    if isinstance(budget, Failure):
        return Failure(budget.failure())
    checked = _check_options(options).bind(lambda _: _check_ids(working_set))
    if isinstance(checked, Failure):
        return Failure(checked.failure())
    resolved = get_encoding(encoding if encoding is not None else options.encoding)
    if isinstance(resolved, Failure):
        return Failure(CountingFailed(resolved.failure()))
    unmeasured = exclude_size_unknown(working_set)
    if isinstance(unmeasured, Failure):
        return Failure(unmeasured.failure())
    relevant = None if relevant_tool_names is None else as_strings(relevant_tool_names)
    plan = Plan(budget.unwrap().budget, options, relevant)
    return Success(_Prepared(budget.unwrap(), plan, resolved.unwrap(), unmeasured.unwrap()))


def _finish(ready: _Prepared, estimates: Sequence[int | None]) -> Result[Fitted, ThriftError]:
    unmeasured = ready.unmeasured
    return measure(unmeasured.working_set, unmeasured.retrievable_keys, estimates, ready.encoding).map(
        lambda sized: _run(sized, ready.plan, ready.budget, unmeasured.trace)
    )


def _run(sized: Sized, plan: Plan, budget: Budget, size_unknown: BucketTrace) -> Fitted:
    state = sized
    traces = [size_unknown]
    for stage in PASSES:
        state, bucket = stage(state, plan)
        traces.append(bucket)
    fits = state.total <= plan.budget
    # Every pass sheds to its floor while over budget, so still over budget means the floor is.
    trace = ThriftTrace(
        budget.context_window, budget.reserve, budget.budget, sized.total, state.total, fits, not fits,
        tuple(traces),
    )
    return Fitted(state.working_set, trace)


def _check_options(options: ThriftOptions) -> Result[None, ThriftError]:
    keep = options.this_turn_result_keep
    if isinstance(keep, bool) or keep < 0:
        return Failure(InvalidOption("this_turn_result_keep", keep, "expected an int >= 0"))
    return Success(None)


def _first_duplicate(keys: Iterable[str]) -> str | None:
    seen: set[str] = set()
    for key in keys:
        if key in seen:
            return key
        seen.add(key)
    return None


def _check_ids(ws: WorkingSet) -> Result[None, ThriftError]:
    """Ids must be str and unique within their bucket (anonymous memories/retrievables are named
    by input position)."""
    named: tuple[tuple[str, str, Sequence[object]], ...] = (
        ("messages", "id", ws.messages),
        ("thoughts", "id", ws.thoughts),
        ("tool-calls", "ref", ws.tool_calls),
        ("tools", "name", ws.tools),
    )
    for bucket, field, items in named:
        keys = [getattr(item, field) for item in items]
        for index, key in enumerate(keys):
            if not isinstance(key, str):
                return Failure(InvalidItemField(bucket, f"{bucket}[{index}]", field, key, "expected a str"))
        duplicate = _first_duplicate(keys)
        if duplicate is not None:
            return Failure(DuplicateId(bucket, duplicate))
    for bucket, prefix, items in (("memories", "memory", ws.memories), ("retrievables", "retrievable", ws.retrievables)):
        for index, item in enumerate(items):
            ident = getattr(item, "id", None)
            if ident is not None and not isinstance(ident, str):
                return Failure(InvalidItemField(bucket, f"{prefix}[{index}]", "id", ident, "expected a str or None"))
    duplicate = _first_duplicate(item_key(item, "memory", index) for index, item in enumerate(ws.memories))
    # Retrievable ids are checked by the size-unknown pass, which names them anyway.
    return Success(None) if duplicate is None else Failure(DuplicateId("memories", duplicate))


