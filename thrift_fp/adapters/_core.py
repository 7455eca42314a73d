"""The one framework-neutral adapter core: neutral rows in, kept positions out.

Every adapter does the same four things, and only the first and the last are its own:

1. **read** the caller's objects into `Row` values: what each message costs *as sent* (the
   provider's framing included), the tool-call ids it issues and answers (each with the field
   that holds it, for error values), whether it starts a turn, and whether it is pinned;
2. **group** what must leave together (`groups`): a tool call and every result answering it,
   chains of them, and, with ``whole_turns``, every message of one turn;
3. **fit** (`fit_rows`): each row becomes a caller-priced core `thrift_fp.thrift.Message`
   (``token_cost`` = its cost as sent, never tokenized again), documents become records priced
   at their rendered cost (`thrift_fp.render.fit_and_render`), and the core sheds;
4. **map** the kept positions (`CoreFit.kept`, input order) back to the caller's own objects.

The budget is a promise: `fit_rows` returns `OverBudget` rather than a fit whose count as sent
(``CoreFit.tokens``: request framing + kept rows + the documents message) exceeds the budget.

Trace ids, one scheme for every adapter: row ``i`` is ``messages[i]``, request-wide framing is
``request`` (pinned), a document is its record id (`thrift_fp.adapters._core_documents`).
Age is input order: every row has the same ``created_at``, and the core sheds the earliest of
equal ages first.

>>> rows = [Row(30, role="user"), Row(12, issues=(("tool_calls[0].id", "c1"),), role="assistant"),
...         Row(9, answers=(("tool_call_id", "c1"),), role="tool"), Row(7, role="user")]
>>> budget = checked_budget(60, 0, 0.35).unwrap()
>>> counting = checked_counting("gpt-4o", None, None).unwrap()
>>> done = fit_rows(rows, 3, budget, counting, Pairing()).unwrap()
>>> done.kept, done.shed, done.tokens, done.trace.buckets[8].ids
((1, 2, 3), (0,), 31, ('messages[0]',))
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from itertools import repeat
from operator import attrgetter
from typing import Final, NamedTuple, no_type_check

from returns.result import Failure, Result, Success

from thrift_fp.adapters._core_args import Budgeting, Counting, checked_budget, checked_counting, registered
from thrift_fp.adapters._core_documents import DocumentRow, documents_to_records, fit_order
from thrift_fp.adapters._core_errors import (
    InvalidArgument,
    AdapterError,
    DuplicateToolCall,
    FitFailed,
    OverBudget,
    ToolCallWithoutResult,
    ToolResultWithoutCall,
)
from thrift_fp.records import Retrievable
from thrift_fp.render import FitRendered, NonceMode, RandomNonce, fit_and_render
from thrift_fp.thrift import AGENT, ShedOrder, Thought, ThriftOptions, ThriftTrace, WorkingSet, subtract_to_fit
from thrift_fp.tokens import Precision

AGE: Final = datetime(1970, 1, 1, tzinfo=timezone.utc)
REQUEST_ID: Final = "request"


class Row(NamedTuple):
    """One message of the caller's list as the core fits it (see the module docstring). A named
    tuple: an adapter builds one per message on its hot path, where a frozen dataclass costs
    several times more to construct.

    >>> Row(12, issues=(("tool_calls[0].id", "c1"),)).pinned
    False
    """

    tokens: int
    issues: tuple[tuple[str, str], ...] = ()
    answers: tuple[tuple[str, str], ...] = ()
    starts_turn: bool = False
    pinned: bool = False
    role: str | None = None
    estimated: bool = False


@dataclass(frozen=True, slots=True)
class Pairing:
    """The API's pairing rules: ``answer_once`` (a second result for one call is an error),
    ``require_answers`` (a call with no later result is an error), ``whole_turns`` (a turn, from
    a row that starts one to the next, is kept or shed whole; pinned rows join no turn).

    >>> Pairing().require_answers, Pairing(whole_turns=True).whole_turns
    (True, True)
    """

    answer_once: bool = True
    require_answers: bool = True
    whole_turns: bool = False


@dataclass(frozen=True, slots=True)
class Shedding:
    """What the caller chose about documents: the shed order (`AGENT`: documents give way before
    old turns; `RAG`: old turns first), whether shed documents are offered back while they fit
    (``refill``, on by default), the envelopes' nonce mode, and whether the documents are sent
    rendered in trust-tier envelopes (``render``, priced as rendered) or as their plain text (a
    framework formats them itself: priced by their content).

    >>> Shedding().refill, Shedding().shed_order.name
    (True, 'agent')
    """

    shed_order: ShedOrder = AGENT
    refill: bool = True
    nonce: NonceMode = RandomNonce()
    render: bool = True


def checked_shedding(
    shed_order: object, refill: object, nonce: NonceMode, render: bool = True
) -> Result[Shedding, AdapterError]:
    """The caller's shedding choices checked at the public boundary (every adapter that takes
    documents checks them the same way): a `ShedOrder` and a bool.

    >>> checked_shedding("newest first", True, RandomNonce()).failure().message
    "invalid shed_order 'newest first': expected a ShedOrder (AGENT or RAG)"
    >>> checked_shedding(AGENT, False, RandomNonce()).unwrap().refill
    False
    """
    if not isinstance(shed_order, ShedOrder):
        return Failure(InvalidArgument("shed_order", shed_order, "expected a ShedOrder (AGENT or RAG)"))
    if not isinstance(refill, bool):
        return Failure(InvalidArgument("refill", refill, "expected a bool"))
    return Success(Shedding(shed_order, refill, nonce, render))


@dataclass(frozen=True, slots=True)
class StrippedThought:
    """Reasoning the provider drops from prior turns (it costs nothing as sent): its trace id."""

    id: str


@dataclass(frozen=True, slots=True)
class CoreFit:
    """The fit: kept and shed row positions (input order), thrift's trace, the count as sent
    (request framing + kept rows + the documents message when a document survives), whether
    any kept cost is estimated, and the documents' render (``None`` without documents)."""

    kept: tuple[int, ...]
    shed: tuple[int, ...]
    trace: ThriftTrace
    tokens: int
    precision: Precision
    documents: FitRendered | None
    plain: tuple[Retrievable, ...] = ()

    @property
    def records(self) -> tuple[Retrievable, ...]:
        """The surviving document records (the render's order, or score order when not rendered)."""
        return self.plain if self.documents is None else self.documents.records


class _Groups:
    """Union of rows linked by tool-call ids (and turns); a group's id is its earliest member.

    A parent is never later than its child (a link hangs the later root under the earlier), so
    one pass in input order resolves every root."""

    __slots__ = ("_parent",)

    def __init__(self, count: int) -> None:
        self._parent = list(range(count))

    def link(self, first: int, second: int) -> None:
        parent = self._parent
        while parent[first] != first:
            parent[first] = first = parent[parent[first]]
        while parent[second] != second:
            parent[second] = second = parent[parent[second]]
        if first < second:
            parent[second] = first
        elif second < first:
            parent[first] = second

    def ids(self) -> tuple[str | None, ...]:
        roots = self._parent[:]
        for index, up in enumerate(roots):
            roots[index] = roots[up]
        names = {root: f"group@{root}" for root, size in Counter(roots).items() if size > 1}
        return tuple(map(names.get, roots))


def groups(rows: Sequence[Row], pairing: Pairing) -> Result[tuple[str | None, ...], AdapterError]:
    """Each row's group id (``None``: it leaves alone), or the first pairing problem.

    >>> rows = [Row(1, issues=(("calls[0]", "a"), ("calls[1]", "b"))), Row(1, answers=(("id", "a"),)),
    ...         Row(1, answers=(("id", "b"),)), Row(1)]
    >>> groups(rows, Pairing()).unwrap()
    ('group@0', 'group@0', 'group@0', None)
    >>> groups([Row(1, answers=(("tool_call_id", "z"),))], Pairing()).failure().message
    "messages[0].tool_call_id: no earlier unanswered tool call has id 'z'"
    """
    linked = _Groups(len(rows))
    if pairing.whole_turns:
        start: int | None = None
        # The newest turn is not one group: when it alone is too big its oldest tool rounds go
        # (whole pairs), while its opening row stays (`fit_rows` pins it).
        newest = newest_turn(rows)
        for index, row in enumerate(rows[:newest]):
            if row.pinned:
                # A pinned row that starts a turn still ends the one before it.
                start = None if row.starts_turn else start
                continue
            if row.starts_turn or start is None:
                start = index
            linked.link(start, index)
    issued: dict[str, tuple[int, str]] = {}
    open_calls: dict[str, tuple[int, str]] = {}
    for index, row in enumerate(rows):
        for field, call_id in row.answers:
            call = open_calls.pop(call_id, None) if pairing.answer_once else issued.get(call_id)
            if call is None:
                return Failure(ToolResultWithoutCall(index, field, call_id))
            linked.link(call[0], index)
        for field, call_id in row.issues:
            if call_id in issued:
                return Failure(DuplicateToolCall(index, field, call_id))
            issued[call_id] = open_calls[call_id] = (index, field)
    if pairing.require_answers and pairing.answer_once and open_calls:
        call_id, (index, field) = next(iter(open_calls.items()))
        return Failure(ToolCallWithoutResult(index, field, call_id))
    if pairing.require_answers and not pairing.answer_once:
        answered = {call_id for row in rows for _, call_id in row.answers}
        for call_id, (index, field) in issued.items():
            if call_id not in answered:
                return Failure(ToolCallWithoutResult(index, field, call_id))
    return Success(linked.ids())


@no_type_check
class PricedMessage(NamedTuple):
    """A row as the core's caller-priced message: the shape of `thrift_fp.thrift.Message`, as a
    named tuple built in bulk (a frozen dataclass costs about 1.3 us a message to construct);
    unchecked at run time, like the core's own entries: built from rows the adapter checked."""

    id: str
    content: str
    created_at: datetime
    role: str | None
    summary: bool
    ephemeral: bool
    pair_id: str | None
    token_cost: int


_new: Final = tuple.__new__
_role: Final = attrgetter("role")
_pinned: Final = attrgetter("pinned")
_tokens: Final = attrgetter("tokens")


def newest_turn(rows: Sequence[Row]) -> int:
    """The position of the row that opens the newest turn (``len(rows)`` when none does).

    >>> newest_turn([Row(1, starts_turn=True), Row(1), Row(1, starts_turn=True), Row(1)])
    2
    """
    return max((index for index, row in enumerate(rows) if row.starts_turn and not row.pinned), default=len(rows))


def working_set(
    rows: Sequence[Row],
    group_ids: Sequence[str | None],
    fixed_tokens: int,
    thoughts: Sequence[StrippedThought] = (),
    documents: Sequence[Retrievable] = (),
) -> WorkingSet:
    """The core working set of priced rows: row ``i`` is the caller-priced message ``messages[i]``;
    ``fixed_tokens`` (request framing) a pinned priced message ``request``; stripped thoughts cost
    nothing; documents in `fit_order`.

    >>> ws = working_set([Row(4), Row(6), Row(5)], ("g", "g", None), 3)
    >>> [(m.id, m.token_cost, m.pair_id, m.summary) for m in ws.messages]
    [('request', 3, None, True), ('messages[0]', 4, 'g', False), ('messages[1]', 6, 'g', False), ('messages[2]', 5, None, False)]
    """
    count = len(rows)
    # Built in C-level passes (``tuple.__new__`` over ``zip``): one per row on every fit.
    messages = (
        _new(PricedMessage, (REQUEST_ID, "", AGE, None, True, False, None, fixed_tokens)),
        *map(_new, repeat(PricedMessage), zip(
            map("messages[{}]".format, range(count)), repeat("", count), repeat(AGE, count), map(_role, rows),
            map(_pinned, rows), repeat(False, count), group_ids, map(_tokens, rows),
        )),
    )
    return WorkingSet(
        messages=messages,
        thoughts=tuple(Thought(thought.id, "", AGE) for thought in thoughts),
        retrievables=fit_order(documents),
    )


def _position(ident: str) -> int:
    # "messages[12]" -> 12
    return int(ident[9:-1])


def fit_rows(
    rows: Sequence[Row],
    fixed_tokens: int,
    budgeting: Budgeting,
    counting: Counting,
    pairing: Pairing,
    *,
    thoughts: Sequence[StrippedThought] = (),
    documents: Sequence[Retrievable] = (),
    documents_frame: int = 0,
    shedding: Shedding = Shedding(),
) -> Result[CoreFit, AdapterError]:
    """Group, fit and check the promise (module docstring). With ``pairing.whole_turns`` the row
    opening the newest turn is pinned (the newest turn is kept from its opening on, its oldest
    tool rounds going first when it alone is too big). ``documents_frame`` is what the
    message holding the rendered documents costs beyond their text (charged whenever documents
    are passed; counted as sent only when one survives).

    >>> from thrift_fp.adapters._core_args import checked_budget, checked_counting
    >>> budget = checked_budget(20, 0, 0.35).unwrap()
    >>> counting = checked_counting(None, "cl100k_base", None).unwrap()
    >>> fit_rows([Row(30, pinned=True), Row(4)], 0, budget, counting, Pairing()).failure().message
    'what cannot be shed costs 34 tokens as sent, over the budget of 20; raise context_window or lower output_reserve'
    """
    grouped = groups(rows, pairing)
    if isinstance(grouped, Failure):
        return Failure(grouped.failure())
    # (The newest row needs no pin: the core never sheds the newest message, and a pinned one
    # would pass that protection to the last row of an older turn.)
    if pairing.whole_turns and (opening := newest_turn(rows)) < len(rows) - 1:
        rows = (*rows[:opening], rows[opening]._replace(pinned=True), *rows[opening + 1:])
    fixed = fixed_tokens + (documents_frame if documents else 0)
    ws = working_set(rows, grouped.unwrap(), fixed, thoughts, documents)
    options = ThriftOptions(
        budgeting.output_reserve, budgeting.reserve_fraction, encoding=counting.name,
        shed_order=shedding.shed_order, refill=shedding.refill,
    )
    window = budgeting.context_window
    rendered: FitRendered | None = None
    plain_costs: dict[str, int] = {}
    if documents and not shedding.render:
        texts = [r.content if isinstance(r.content, str) else r.content_text().value_or("") for r in documents]
        counted = counting.count_many(texts)
        if isinstance(counted, Failure):
            return Failure(counted.failure())
        plain_costs = dict(zip((record.id for record in documents), counted.unwrap(), strict=True))
    with registered(counting) as name:
        if documents and shedding.render:
            done = fit_and_render(ws, window, None, options, nonce=shedding.nonce, encoding=name)
            if isinstance(done, Failure):
                return Failure(FitFailed(done.failure()))
            rendered = done.unwrap()
            kept_set, trace = rendered.working_set, rendered.trace
        else:
            fitted = subtract_to_fit(ws, window, None, options, encoding=name)
            if isinstance(fitted, Failure):
                return Failure(FitFailed(fitted.failure()))
            kept_set, trace = fitted.unwrap().working_set, fitted.unwrap().trace
    kept = tuple(sorted(_position(m.id) for m in kept_set.messages if m.id != REQUEST_ID))
    tokens = fixed_tokens + sum(rows[index].tokens for index in kept)
    if rendered is not None and rendered.records:
        tokens += documents_frame + rendered.tokens
    plain = tuple(record for record in kept_set.retrievables if isinstance(record, Retrievable)) if plain_costs else ()
    if plain:
        tokens += documents_frame + sum(plain_costs[record.id] for record in plain)
    budget = budgeting.budget.budget
    if tokens > budget:
        return Failure(OverBudget(tokens, budget))
    kept_positions = set(kept)
    shed = tuple(index for index in range(len(rows)) if index not in kept_positions)
    estimated = counting.precision == "estimated" or any(rows[index].estimated for index in kept)
    return Success(CoreFit(kept, shed, trace, tokens, "estimated" if estimated else "exact", rendered, plain))


def fit_rows_and_documents(
    read_rows: Callable[[Counting], Result[list[Row], AdapterError]],
    read_documents: Callable[[], Result[list[DocumentRow], AdapterError]],
    budget: Result[Budgeting, AdapterError],
    counting: Result[Counting, AdapterError],
    shedding: Result[Shedding, AdapterError],
    pairing: Pairing,
    tier: object,
    collection: str = "documents",
) -> Result[tuple[CoreFit, Counting, tuple[Retrievable, ...]], AdapterError]:
    """A chat and its retrieved documents fitted together, for the adapters whose framework hands
    both over (LangChain, LlamaIndex): the checked arguments, then the rows (read with the chosen
    counting), then the documents as records, each first failure returned as it is.

    >>> from thrift_fp.adapters._core_args import checked_budget, checked_counting
    >>> done = fit_rows_and_documents(
    ...     lambda counting: Success([Row(5, role="user")]), lambda: Success([DocumentRow("Refunds take 5 days.")]),
    ...     checked_budget(200, 0, 0.35), checked_counting(None, None, None, "cl100k_base"), Success(Shedding()),
    ...     Pairing(), "first-party")
    >>> fitted, counting, records = done.unwrap()
    >>> fitted.kept, counting.name, [record.trust_tier for record in records]
    ((0,), 'cl100k_base', ['first-party'])
    """
    if isinstance(budget, Failure):
        return Failure(budget.failure())
    if isinstance(counting, Failure):
        return Failure(counting.failure())
    if isinstance(shedding, Failure):
        return Failure(shedding.failure())
    ready = counting.unwrap()
    rows = read_rows(ready)
    if isinstance(rows, Failure):
        return Failure(rows.failure())
    read = read_documents()
    if isinstance(read, Failure):
        return Failure(read.failure())
    records = documents_to_records(read.unwrap(), tier, collection)
    if isinstance(records, Failure):
        return Failure(records.failure())
    fitted = fit_rows(rows.unwrap(), 0, budget.unwrap(), ready, pairing, documents=records.unwrap(),
                      shedding=shedding.unwrap())
    return fitted.map(lambda done: (done, ready, records.unwrap()))
