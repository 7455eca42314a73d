"""The passes of a fit; each a pure stage returning the new state and its trace, and the refill step.

Pass 0 works on the raw working set (nothing is measured yet). The others work on `Sized`:
arithmetic on the measured entries and a running total, never a re-measure. Passes 1-2 always
run first; the shedding passes run in the caller's `ShedOrder` (DESIGN order by default).
Per-item sort keys are ``attrgetter``s and lambdas, never annotated functions: the beartype claw
would check each call, once per item per sort.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from bisect import bisect_left
from itertools import accumulate, compress, islice, repeat
from itertools import count as naturals
from operator import attrgetter, is_, is_not, le, not_
from types import MappingProxyType
from typing import Any, Final, TypeVar, cast, no_type_check

from returns.result import Failure, Result, Success

from thrift_fp._args import EachTuple
from thrift_fp._value import value
from thrift_fp.thrift._errors import DuplicateId, InvalidItemField, ThriftError
from thrift_fp.thrift._entry import Entry, PricedRun, Sized
from thrift_fp.thrift._options import ShedPass, ThriftOptions
from thrift_fp.thrift._shapes import MessageLike, RetrievableLike, ToolLike
from thrift_fp.thrift._trace import Bucket, BucketTrace, RefillTrace
from thrift_fp.thrift._working_set import WorkingSet

_Item = TypeVar("_Item")


@value
class Plan:
    """What every pass needs besides the state: the budget and the caller's choices."""

    budget: int
    options: ThriftOptions
    # Distinct names, first occurrence first (the seed treats them as a set).
    relevant_tool_names: tuple[str, ...] | None


@value
class Unmeasured:
    """Pass 0's output: the input working set, the retrievables that stay (without the size-unknown
    ones) and their trace ids (input positions for anonymous ones). The working set itself is not
    rebuilt here: a checked `WorkingSet` construction costs more than the whole pass."""

    working_set: WorkingSet
    trace: BucketTrace
    retrievable_keys: tuple[str, ...]
    retrievables: EachTuple[RetrievableLike]


_SIZE_UNKNOWN_NOTE: Final = "size unknown: excluded unmeasured, whatever the score or budget"


def exclude_size_unknown(ws: WorkingSet) -> Result[Unmeasured, ThriftError]:
    """Pass 0: drop every ``size_unknown`` retrievable before anything is measured (never calls
    its estimator); they have no measured size, so the bucket's tokens are 0 before and after.
    Also rejects duplicate retrievable ids (anonymous ones are named by input position)."""
    keys_if_clean = _Bulk.clean_keys(ws.retrievables)
    if keys_if_clean is not None:
        trace = BucketTrace("retrievables-size-unknown", 0, 0, 0, 0, _SIZE_UNKNOWN_NOTE, ())
        return Success(Unmeasured(ws, trace, keys_if_clean, ws.retrievables))
    kept: list[RetrievableLike] = []
    keys: list[str] = []
    dropped: list[str] = []
    seen: set[str] = set()
    for index, item in enumerate(ws.retrievables):
        ident = getattr(item, "id", None)
        # An anonymous item is named by its input position; inline: this loop runs per retrievable.
        key = ident if isinstance(ident, str) else f"retrievable[{index}]"
        if key in seen:
            return Failure(DuplicateId("retrievables", key))
        seen.add(key)
        unknown = getattr(item, "size_unknown", None)
        if unknown is not None and not isinstance(unknown, bool):
            return Failure(InvalidItemField("retrievables", key, "size_unknown", unknown, "expected a bool"))
        if unknown:
            dropped.append(key)
        else:
            kept.append(item)
            keys.append(key)
    trace = BucketTrace("retrievables-size-unknown", 0, 0, len(dropped), 0, _SIZE_UNKNOWN_NOTE, tuple(dropped))
    return Success(Unmeasured(ws, trace, tuple(keys), tuple(kept)))


@no_type_check
class _Bulk:
    """Pass 0's common case in C-level passes over the whole bucket (``map``, ``set``), instead
    of a Python-level loop per retrievable; unchecked at run time like `_Hot`."""

    @staticmethod
    def clean_keys(items: EachTuple[RetrievableLike]) -> tuple[str, ...] | None:
        """The ids of ``items`` when every one is a ``str``, all are distinct and no item is
        size-unknown (``size_unknown`` False or missing); otherwise ``None``, and the per-item
        loop above runs, which names the first offending item exactly as before.

        >>> from thrift_fp.thrift._shapes import WorkingRetrievable as R
        >>> _Bulk.clean_keys((R("x", id="a"), R("y", id="b"))), _Bulk.clean_keys((R("x", id="a"), R("y", id="a")))
        (('a', 'b'), None)
        >>> _Bulk.clean_keys((R("x", id="a", size_unknown=True),)), _Bulk.clean_keys((R("x"),))
        (None, None)
        """
        count = len(items)
        try:
            ids = tuple(map(getattr, items, repeat("id", count), repeat(None, count)))
            flags = list(map(getattr, items, repeat("size_unknown", count), repeat(None, count)))
        except Exception:  # noqa: BLE001 - an attribute that raises: the loop meets it in input order
            return None
        if set(map(type, ids)) - {str} or len(set(ids)) != count:
            return None
        # Exact types first: 0 == False, so only a bool (or None) may be compared by value.
        if set(map(type, flags)) - {bool, type(None)} or True in flags:
            return None
        return cast(tuple[str, ...], ids)  # every id is a str (checked above)


Pass = Callable[[Sized, Plan], tuple[Sized, BucketTrace]]


@no_type_check
class _Hot:
    """Helpers the passes call once per shed unit (unchecked at run time, as `_measure` explains:
    a checked call here would cost more than the arithmetic it does)."""

    @staticmethod
    def tokens(entries: Sequence[Entry]) -> int:
        return sum(map(_entry_tokens, entries))

    @staticmethod
    def paired_prefix(ordered: Sequence[Entry], excess: int, summary_pairs: set[str]) -> list[Entry]:
        """The shortest prefix of ``ordered`` (oldest first, ``excess`` > 0 tokens over budget)
        that no pair straddles and whose tokens cover ``excess``; else the longest such prefix.
        It never reaches the newest entry nor a unit holding an entry paired with a summary.

        Linear, in C-level passes (no Python step per pair or per entry): a prefix ending at
        ``e`` closes every pair it opens exactly when no entry at or before ``e`` has a partner
        after it, so the prefix is the first such end at or after the first running token sum
        that covers the excess (before the newest entry and the first entry paired with a
        summary).

        >>> from thrift_fp.thrift._entry import Entry
        >>> row = lambda at, tokens, pair=None: Entry(None, f"m{at}", tokens, at, at, pair=pair)
        >>> ordered = [row(0, 5, "p"), row(1, 5), row(2, 5, "p"), row(3, 5), row(4, 5)]
        >>> [entry.key for entry in _Hot.paired_prefix(ordered, 6, set())]
        ['m0', 'm1', 'm2']
        >>> [entry.key for entry in _Hot.paired_prefix(ordered, 99, set())], _Hot.paired_prefix(ordered, 6, {"p"})
        (['m0', 'm1', 'm2', 'm3'], [])
        """
        pairs = list(map(_entry_pair, ordered))
        return list(ordered[: _Hot.paired_length(pairs, list(map(_entry_tokens, ordered)), excess, summary_pairs)])

    @staticmethod
    def paired_length(pairs: Sequence[str | None], tokens: Sequence[int], excess: int, summary_pairs: set[str]) -> int:
        """The length of `paired_prefix`, from the ordered entries' ``pairs`` and ``tokens``
        (shared with the columns of a caller-priced bucket, `shed_oldest_messages`).

        >>> _Hot.paired_length(["p", None, "p", None, None], [5] * 5, 6, set())
        3
        """
        size = len(pairs)
        last = dict(zip(pairs, range(size)))
        last.pop(None, None)
        # Each entry's reach: the last place of its pair (its own place when unpaired). A prefix
        # ending at ``e`` closes every pair it opens exactly when no entry up to ``e`` reaches
        # past it: the places where the running maximum of the reaches is the place itself are
        # where a unit ends.
        reach = list(map(last.get, pairs, range(size)))
        # Units must end before the newest entry and before the first summary-paired entry.
        stop = size - 1
        if summary_pairs:
            stop = min(stop, next(compress(range(size), map(summary_pairs.__contains__, pairs)), stop))
        # Tokens are never negative: the running sums rise, so the shortest prefix ends at the
        # first unit end at or after the first covering sum, found by jumping to the furthest
        # reach until no entry reaches past it (a few C-level steps).
        sums = list(accumulate(tokens[:max(stop, 0)]))
        end = bisect_left(sums, excess)
        if end < stop:
            furthest = max(reach[: end + 1])
            while furthest > end:
                end, furthest = furthest, max(reach[end : furthest + 1])
            if end < stop:
                return end + 1
        # None covers before the stop: every allowed unit goes (the longest prefix ending a unit).
        ends = list(compress(range(stop), map(le, accumulate(reach[:max(stop, 0)], max), range(stop))))
        return ends[-1] + 1 if ends else 0


_entry_tokens: Final = attrgetter("tokens")
_entry_key: Final = attrgetter("key")
_entry_position: Final = attrgetter("position")
_entry_summary: Final = attrgetter("summary")
_entry_ephemeral: Final = attrgetter("ephemeral")
_entry_pair: Final = attrgetter("pair")
_tokens: Final = _Hot.tokens


def _shed(
    state: Sized,
    field: str,
    kept: Sequence[Entry],
    removed: Sequence[Entry],
    bucket: Bucket,
    note: str,
) -> tuple[Sized, BucketTrace]:
    before: Sequence[Entry] = getattr(state, field)
    if not removed and kept is before:
        return _unchanged(state, field, bucket, note)
    gone = _tokens(removed)
    # ``kept`` and ``removed`` split ``before``: one pass over the bucket, not two.
    after_tokens = _tokens(kept)
    trace = BucketTrace(
        bucket, after_tokens + gone, after_tokens, len(before), len(kept), note,
        tuple(map(_entry_key, removed)),
    )
    # The field name picks the bucket; the value keeps that bucket's entry type.
    entries: dict[str, Any] = {field: tuple(kept)}
    return state._replace(total=state.total - gone, **entries), trace


def _unchanged(state: Sized, field: str, bucket: Bucket, note: str) -> tuple[Sized, BucketTrace]:
    """The state as it is, and a trace of a pass that removed nothing."""
    entries: Sequence[Entry] = getattr(state, field)
    tokens = _tokens(entries)
    return state, BucketTrace(bucket, tokens, tokens, len(entries), len(entries), note, ())


def _within(state: Sized, plan: Plan, field: str, bucket: Bucket, note: str) -> tuple[Sized, BucketTrace] | None:
    """`_unchanged` when the set already fits (then no pass needs to sort anything), else None."""
    return _unchanged(state, field, bucket, note) if state.total <= plan.budget else None


def _shed_while_over(
    total: int, budget: int, candidates: Sequence[Entry]
) -> list[Entry]:
    """The shortest prefix of ``candidates`` whose removal brings ``total`` within ``budget`` (all
    of them when none does; none when already within). Tokens are never negative, so the running
    sums rise and the prefix ends at the first sum that covers the excess (C-level: accumulate
    and bisect, not a Python step per shed entry)."""
    if total <= budget:
        return []
    sums = list(accumulate(map(_entry_tokens, candidates)))
    return list(candidates[: bisect_left(sums, total - budget) + 1])


def _without(entries: Sequence[Entry], removed: Sequence[Entry]) -> Sequence[Entry]:
    if not removed:
        return entries
    # The usual shed of pass 8: one run of ``entries`` itself (oldest first in input order,
    # from the start or after pinned leading messages such as a system prompt), found by
    # identity in C-level passes: where its first entry is, then the run entry by entry.
    count = len(removed)
    start = next(compress(range(len(entries)), map(is_, entries, repeat(removed[0]))), -1)
    if 0 <= start <= len(entries) - count and all(map(is_, removed, islice(entries, start, None))):
        return entries[count:] if start == 0 else [*entries[:start], *entries[start + count:]]
    gone = set(map(_entry_position, removed))
    return list(compress(entries, map(not_, map(gone.__contains__, map(_entry_position, entries)))))


# Oldest first: age, then input position. Entries always stay in input order, so a stable sort on
# the age alone breaks ties by position (and costs no key tuple per entry).
_age: Final = attrgetter("rank")
# Score or importance (finite floats): ranking is by this, descending.
_rank: Final = attrgetter("rank")


def strip_thoughts(state: Sized, plan: Plan) -> tuple[Sized, BucketTrace]:
    """Pass 1: drop prior-turn thoughts not in ``keep_thought_ids`` (unconditional, when enabled)."""
    options = plan.options
    removed = [
        entry for entry in state.thoughts
        if options.strip_prior_turn_thoughts and not entry.this_turn and entry.key not in options.keep_thought_ids
    ]
    return _shed(state, "thoughts", _without(state.thoughts, removed), removed, "thoughts",
                 "prior-turn thoughts stripped unless kept by id")


def _visible(state: Sized) -> frozenset[str]:
    names = state.visible
    return frozenset(entry.key for entry in state.tools) if names is None else names


def _hide(state: Sized, hidden: Sequence[Entry], bucket: Bucket, note: str) -> tuple[Sized, BucketTrace]:
    visible = _visible(state)
    shown = [entry for entry in state.tools if entry.key in visible]
    gone = {entry.key for entry in hidden}
    after = frozenset(entry.key for entry in shown if entry.key not in gone)
    before_tokens = _tokens(shown)
    removed_tokens = _tokens(hidden)
    trace = BucketTrace(
        bucket, before_tokens, before_tokens - removed_tokens, len(shown), len(after), note,
        tuple(entry.key for entry in hidden),
    )
    return state._replace(visible=after, total=state.total - removed_tokens), trace


def shortlist_tools(state: Sized, plan: Plan) -> tuple[Sized, BucketTrace]:
    """Pass 2: only ``relevant_tool_names`` stay visible (``None`` keeps the visible set)."""
    visible = _visible(state)
    relevant = plan.relevant_tool_names
    hidden = [
        entry for entry in state.tools
        if entry.key in visible and relevant is not None and entry.key not in relevant
    ]
    return _hide(state, hidden, "tools", "tools outside the relevant shortlist hidden (still callable)")


def drop_image(state: Sized, plan: Plan) -> tuple[Sized, BucketTrace]:
    """Pass 3: over budget, the (kept) image is dropped, all or nothing."""
    image = state.image
    count = 0 if image is None else 1
    tokens = 0 if image is None else image.tokens
    note = "image dropped while over budget, all or nothing"
    if image is None or state.total <= plan.budget or getattr(image.item, "kept", None) is False:
        return state, BucketTrace("image", tokens, tokens, count, count, note, ())
    trace = BucketTrace("image", tokens, 0, 1, 0, note, (image.key,))
    return state._replace(image=None, total=state.total - tokens), trace


def shed_tool_calls(state: Sized, plan: Plan) -> tuple[Sized, BucketTrace]:
    """Pass 4: prior-turn calls oldest first, then this-turn calls oldest first, keeping the newest
    ``this_turn_result_keep`` this-turn calls."""
    note = "prior-turn calls, then this-turn calls beyond the keep, oldest first"
    done = _within(state, plan, "tool_calls", "tool-calls", note)
    if done is not None:
        return done
    prior = sorted((entry for entry in state.tool_calls if not entry.this_turn), key=_age)
    current = sorted((entry for entry in state.tool_calls if entry.this_turn), key=_age)
    sheddable = current[: max(0, len(current) - plan.options.this_turn_result_keep)]
    removed = _shed_while_over(state.total, plan.budget, [*prior, *sheddable])
    return _shed(state, "tool_calls", _without(state.tool_calls, removed), removed, "tool-calls", note)


def _shed_ranked(state: Sized, plan: Plan, field: str, bucket: Bucket, note: str) -> tuple[Sized, BucketTrace]:
    entries: Sequence[Entry] = getattr(state, field)
    # Sorted even when nothing sheds: survivors come back in ranking order. Stable sort: among equal ranks the later input sits nearer the tail, so it sheds first.
    # (A reverse sort is stable too, and keeps equal ranks in input order, like a key of -rank.)
    ranked = sorted(entries, key=_rank, reverse=True)
    removed = _shed_while_over(state.total, plan.budget, ranked[::-1])
    return _shed(state, field, ranked[: len(ranked) - len(removed)], removed, bucket, note)


def shed_retrievables(state: Sized, plan: Plan) -> tuple[Sized, BucketTrace]:
    """Pass 5: lowest score first (missing = 0; equal scores: later input first); survivors by score."""
    return _shed_ranked(state, plan, "retrievables", "retrievables", "lowest score first while over budget")


def shed_memories(state: Sized, plan: Plan) -> tuple[Sized, BucketTrace]:
    """Pass 6: lowest importance first, like retrievables."""
    return _shed_ranked(state, plan, "memories", "memories", "lowest importance first while over budget")


def _groups(entries: Sequence[Entry]) -> dict[str, list[Entry]]:
    groups: dict[str, list[Entry]] = {}
    for entry in entries:
        if entry.pair is not None:
            groups.setdefault(entry.pair, []).append(entry)
    return groups


def shed_ephemeral(state: Sized, plan: Plan) -> tuple[Sized, BucketTrace]:
    """Pass 7: ephemeral messages oldest first, each with its pair partners, keeping the latest
    ephemeral one; a message whose group holds a summary, the newest non-summary message or the
    latest ephemeral message is skipped."""
    note = "ephemeral messages oldest first (with pair partners), keeping the latest"
    if state.priced is not None:
        # A bucket priced as columns has no ephemeral message (`thrift_fp.thrift._priced`).
        return _priced_unchanged(state, state.priced, note)
    if state.total <= plan.budget or not any(map(_entry_ephemeral, state.messages)):
        return _unchanged(state, "messages", "messages", note)
    ordered = sorted(state.messages, key=_age)
    non_summary = [entry for entry in ordered if not entry.summary]
    ephemeral = [entry for entry in ordered if entry.ephemeral]
    protected = {entry.position for entry in ordered if entry.summary}
    protected |= {group[-1].position for group in (non_summary, ephemeral) if group}
    groups = _groups(ordered)
    removed: list[Entry] = []
    gone: set[int] = set()
    total = state.total
    for entry in ephemeral:
        if total <= plan.budget:
            break
        unit = groups[entry.pair] if entry.pair is not None else [entry]
        if entry.position in gone or any(member.position in protected for member in unit):
            continue
        removed.extend(unit)
        gone.update(member.position for member in unit)
        total -= _tokens(unit)
    return _shed(state, "messages", _without(state.messages, removed), removed, "messages", note)


def shed_oldest_messages(state: Sized, plan: Plan) -> tuple[Sized, BucketTrace]:
    """Pass 8: the oldest non-summary messages while over budget, never the newest one. Shedding
    removes the shortest oldest prefix that no pair straddles, so partners leave together and every
    shed message is older than every kept one; a prefix reaching the newest message or a message
    paired with a summary stops the pass."""
    note = "oldest non-summary messages while over budget, pairs together"
    if state.priced is not None:
        return _priced_oldest(state, plan, state.priced, note)
    done = _within(state, plan, "messages", "messages", note)
    if done is not None:
        return done
    by_age = sorted(state.messages, key=_age)
    ordered = list(compress(by_age, map(not_, map(_entry_summary, by_age))))
    if not any(map(is_not, map(_entry_pair, ordered), repeat(None))):
        # No pairs: every unit is one message, so the loop below would remove the shortest oldest
        # prefix (never the newest) that brings the total within budget.
        prefix = _shed_while_over(state.total, plan.budget, ordered[:-1])
        return _shed(state, "messages", _without(state.messages, prefix), prefix, "messages", note)
    summary_pairs = set(map(_entry_pair, compress(state.messages, map(_entry_summary, state.messages)))) - {None}
    prefix = _Hot.paired_prefix(ordered, state.total - plan.budget, summary_pairs)
    return _shed(state, "messages", _without(state.messages, prefix), prefix, "messages", note)


def _priced_unchanged(state: Sized, run: PricedRun, note: str) -> tuple[Sized, BucketTrace]:
    """`_unchanged` of a bucket priced as columns."""
    count = len(run.kept)
    return state, BucketTrace("messages", run.tokens, run.tokens, count, count, note, ())


def _priced_oldest(state: Sized, plan: Plan, run: PricedRun, note: str) -> tuple[Sized, BucketTrace]:
    """Pass 8 on a bucket priced as columns: what it does on entries, on the columns' places.
    Input order is age, so the places still in are oldest first as they stand."""
    if state.total <= plan.budget:
        return _priced_unchanged(state, run, note)
    columns, kept = run.columns, run.kept
    ids, summaries, pair_ids, costs = columns.ids, columns.summaries, columns.pair_ids, columns.token_costs
    if kept != range(len(ids)):
        # Some places are gone already: the columns of those still in (C-level gathers).
        ids, summaries, pair_ids, costs = (list(map(column.__getitem__, kept)) for column in (ids, summaries, pair_ids, costs))
    # The non-summary messages, oldest first, column by column (C-level passes).
    sheddable = list(map(not_, summaries))
    pairs = list(compress(pair_ids, sheddable))
    tokens = list(compress(costs, sheddable))
    excess = state.total - plan.budget
    if not any(map(is_not, pairs, repeat(None))):
        # Every unit is one message: the shortest oldest prefix that covers the excess, never the newest.
        length = min(bisect_left(list(accumulate(tokens[:-1])), excess) + 1, max(len(tokens) - 1, 0))
    else:
        summary_pairs = set(compress(pair_ids, summaries)) - {None}
        length = _Hot.paired_length(pairs, tokens, excess, summary_pairs)
    if not length:
        return _priced_unchanged(state, run, note)
    # The shed run ends at the ``length``-th sheddable place: past ``length`` by the summaries
    # before it (a few: a fit pins little); every place still in before it is shed but them.
    cut = length
    for spot in compress(naturals(), summaries):
        if spot >= cut:
            break
        cut += 1
    left = [*compress(kept[:cut], summaries[:cut]), *kept[cut:]]
    gone = sum(tokens[:length])
    trace = BucketTrace(
        "messages", run.tokens, run.tokens - gone, len(kept), len(left), note,
        tuple(compress(ids[:cut], sheddable[:cut])),
    )
    return state._replace(priced=PricedRun(columns, left, run.tokens - gone), total=state.total - gone), trace


def shed_thoughts(state: Sized, plan: Plan) -> tuple[Sized, BucketTrace]:
    """Pass 9: oldest thoughts first; never one in ``keep_thought_ids``, never the newest other one."""
    note = "oldest thoughts while over budget, keeping protected ones and the newest"
    done = _within(state, plan, "thoughts", "thoughts-shed", note)
    if done is not None:
        return done
    sheddable = sorted(
        (entry for entry in state.thoughts if entry.key not in plan.options.keep_thought_ids), key=_age
    )[:-1]
    removed = _shed_while_over(state.total, plan.budget, sheddable)
    return _shed(state, "thoughts", _without(state.thoughts, removed), removed, "thoughts-shed", note)


def shed_tools(state: Sized, plan: Plan) -> tuple[Sized, BucketTrace]:
    """Pass 10, last resort: hide visible tools by ``shed_rank`` ascending (ties in relevance order:
    ``relevant_tool_names`` order, else ``tools`` order), protected tool names last; this can
    reach zero visible tools."""
    visible = _visible(state)
    names = plan.relevant_tool_names or tuple(entry.key for entry in state.tools)
    relevance: dict[str, int] = {}
    for at, name in enumerate(names):
        # The first occurrence of a repeated name decides its place (the names are a set).
        relevance.setdefault(name, at)
    candidates = sorted(
        (entry for entry in state.tools if entry.key in visible),
        key=lambda entry: (
            entry.key in plan.options.protected_tool_names,
            entry.rank,
            relevance.get(entry.key, entry.position),
        ),
    )
    hidden = _shed_while_over(state.total, plan.budget, candidates)
    return _hide(state, hidden, "tools-shed", "visible tools by shed_rank while over budget, protected last")


# Always first, in this order: they do not depend on the budget.
UNCONDITIONAL: Final[tuple[Pass, ...]] = (strip_thoughts, shortlist_tools)
SHEDDING: Final[Mapping[ShedPass, Pass]] = MappingProxyType(
    {
        "image": drop_image,
        "tool-calls": shed_tool_calls,
        "retrievables": shed_retrievables,
        "memories": shed_memories,
        "ephemeral-messages": shed_ephemeral,
        "oldest-messages": shed_oldest_messages,
        "thoughts-shed": shed_thoughts,
        "tools-shed": shed_tools,
    }
)


def refill(measured: Sized, state: Sized, plan: Plan) -> tuple[Sized, tuple[RefillTrace, ...]]:
    """Re-admit shed retrievables and memories while each fits in the budget left after shedding.

    The bucket the shed order sheds later is refilled first (it is worth more to the caller);
    within a bucket, shed items are visited in the pass's ranking (score or importance
    descending, earlier input first among ties), and each is re-admitted when its tokens fit in
    what is left at its turn. Survivors stay in ranking order.
    """
    order = plan.options.shed_order.passes
    fields = sorted(("retrievables", "memories"), key=lambda name: -order.index(name))
    traces: list[RefillTrace] = []
    for field in fields:
        before: Sequence[Entry] = getattr(state, field)
        kept = {entry.position for entry in before}
        ranked = sorted(getattr(measured, field), key=_rank, reverse=True)
        leftover = plan.budget - state.total
        admitted: list[Entry] = []
        for entry in ranked:
            if entry.position not in kept and entry.tokens <= leftover:
                admitted.append(entry)
                leftover -= entry.tokens
        kept.update(entry.position for entry in admitted)
        after = tuple(entry for entry in ranked if entry.position in kept)
        gained = _tokens(admitted)
        traces.append(RefillTrace(
            "retrievables" if field == "retrievables" else "memories",
            _tokens(before), _tokens(before) + gained, len(before), len(after),
            tuple(entry.key for entry in admitted),
        ))
        entries: dict[str, Any] = {field: after}
        state = state._replace(total=state.total + gained, **entries)
    return state, tuple(traces)
