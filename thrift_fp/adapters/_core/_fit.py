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
``request`` (pinned), a document is its record id (`thrift_fp.adapters._core._documents`).
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

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from datetime import datetime, timezone
from itertools import chain, compress, count, repeat
from functools import partial
from operator import is_, is_not, ne
from typing import Final, Generic, TypeVar, cast

from returns.result import Failure, Result, Success

from thrift_fp._value import value
from thrift_fp.adapters._core._args import Budgeting, Checked, Counting, checked_budget, checked_counting, registered
from thrift_fp.adapters._core._documents import DocumentRow, documents_to_records, fit_order, kept_inputs
from thrift_fp.adapters._core._errors import AdapterError, FitFailed, InvalidArgument, OverBudget
# Re-exported: the adapters build rows and pairing rules from here.
from thrift_fp.adapters._core._groups import GroupCarry, grouped, newest_turn
from thrift_fp.adapters._core._groups import Pairing as Pairing
from thrift_fp.adapters._core._groups import Row as Row
from thrift_fp.adapters._core._groups import RowColumns as RowColumns
from thrift_fp.records import Retrievable
from thrift_fp.render import FitRendered, NonceMode, RandomNonce
from thrift_fp.render._fit import fit_and_render
from thrift_fp.thrift import (
    AGENT, Message, MessageLike, PricedColumns, PricedMessage, ShedOrder, Thought, ThriftOptions, ThriftTrace, WorkingSet,
)
from thrift_fp.thrift._fit import subtract_to_fit
from thrift_fp.thrift._priced import priced_messages, subtract_priced
from thrift_fp.tokens import Precision, TokenCount, TokenCounts

AGE: Final = datetime(1970, 1, 1, tzinfo=timezone.utc)
REQUEST_ID: Final = "request"
DOCUMENTS_ROLES: Final = ("system", "user")
"""The roles the rendered documents may be sent as, one more message (`fit_rows_and_documents`)."""
_D = TypeVar("_D")


@value
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


@value
class StrippedThought:
    """Reasoning the provider drops from prior turns (it costs nothing as sent): its trace id."""

    id: str


@value
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
    carry: CoreCarry | None = None

    @property
    def records(self) -> tuple[Retrievable, ...]:
        """The surviving document records (the render's order, or score order when not rendered)."""
        return self.plain if self.documents is None else self.documents.records


_new: Final = tuple.__new__
_ID_PREFIX: Final = "messages["
# The ids of the first rows, made as first needed and kept (a str is immutable, and most fits
# name the same rows); past the cap they are made per fit.
_CACHED_IDS: Final = 1 << 16


class _Ids:
    """The cached ids (replaced whole when it grows: a racing thread builds an equal tuple)."""

    made: tuple[str, ...] = ()


def _message_ids(start: int, end: int) -> Sequence[str]:
    """The trace ids ``messages[start]`` ... ``messages[end - 1]``.

    >>> _message_ids(2, 4)
    ('messages[2]', 'messages[3]')
    """
    made = _Ids.made
    if end > len(made) and len(made) < _CACHED_IDS:
        made = _Ids.made = tuple(map("messages[{}]".format, range(min(max(end, 2 * len(made)), _CACHED_IDS))))
    if end <= len(made):
        return made[start:end]
    return [*made[start:], *map("messages[{}]".format, range(max(start, len(made)), end))]


def working_set(
    rows: Sequence[Row] | RowColumns,
    group_ids: Sequence[str | None],
    fixed_tokens: int,
    thoughts: Sequence[StrippedThought] = (),
    documents: Sequence[Retrievable] = (),
    carried: CoreCarry | None = None,
    exact: bool = False,
) -> WorkingSet:
    """The core working set of priced rows: row ``i`` is the caller-priced message ``messages[i]``;
    ``fixed_tokens`` (request framing) a pinned priced message ``request``, last; stripped thoughts
    cost nothing; documents in `fit_order`. The leading rows ``carried`` priced already (the very
    same `Row` objects, in the same groups) keep the messages it made for them (``exact``: made as
    `thrift_fp.thrift.Message` objects, which the core's own carrying by identity takes).

    >>> ws = working_set([Row(4), Row(6), Row(5)], ("g", "g", None), 3)
    >>> [(m.id, m.token_cost, m.pair_id, m.summary) for m in ws.messages]
    [('messages[0]', 4, 'g', False), ('messages[1]', 6, 'g', False), ('messages[2]', 5, None, False), ('request', 3, None, True)]
    """
    own = None if isinstance(rows, RowColumns) else rows
    return _working_set(RowColumns.of(rows), own, group_ids, fixed_tokens, thoughts, documents, carried, exact)


def _working_set(
    rows: RowColumns,
    own: Sequence[Row] | None,
    group_ids: Sequence[str | None],
    fixed_tokens: int,
    thoughts: Sequence[StrippedThought],
    documents: Sequence[Retrievable],
    carried: CoreCarry | None,
    exact: bool,
) -> WorkingSet:
    """`working_set` of rows in columns; ``own`` the `Row` objects themselves, when there are any
    (only they can be the very rows ``carried`` priced)."""
    total = len(rows)
    start = 0 if carried is None or own is None else _shared_rows(own, group_ids, carried)
    rest = total - start
    # Built in C-level passes over the new rows' columns: named tuples in bulk for a one-off fit;
    # with a carry, exact `Message` objects (slower to construct, once per row), which the core
    # carries from fit to fit by identity.
    columns = (
        _message_ids(start, total), repeat("", rest), repeat(AGE, rest),
        rows.role[start:], rows.pinned[start:], repeat(False, rest), group_ids[start:], rows.tokens[start:],
    )
    built: Iterable[MessageLike] = map(_new, repeat(PricedMessage), zip(*columns)) if not exact else map(Message, *columns)
    request_fields = (REQUEST_ID, "", AGE, None, True, False, None, fixed_tokens)
    # The request's framing goes last: it is pinned, so its place changes nothing in the fit,
    # and the rows before it stay the very objects the next fit carries.
    messages = (
        *(() if carried is None else _carried_messages(carried)[:start]),
        *built,
        Message(*request_fields) if exact else _new(PricedMessage, request_fields),
    )
    return WorkingSet(
        messages=messages,
        thoughts=_thoughts(thoughts),
        retrievables=fit_order(documents),
    )


def _carried_messages(carried: CoreCarry) -> Sequence[MessageLike]:
    """The priced messages of a carried fit (made from its columns when it was fitted by them:
    a fit by columns measured no message object, so it hands the next fit no object to reuse)."""
    messages = carried.messages
    if not isinstance(messages, PricedColumns):
        return messages
    return priced_messages(messages)


def _priced_columns(rows: RowColumns, group_ids: Sequence[str | None], fixed_tokens: int) -> PricedColumns:
    """The rows as thrift's priced columns: row ``i`` is ``messages[i]``, pinned rows are never
    shed, a group leaves together; ``fixed_tokens`` (request framing) a pinned ``request``, last
    (as `_working_set` places it)."""
    total = len(rows)
    return PricedColumns(
        (*_message_ids(0, total), REQUEST_ID), (*rows.tokens, fixed_tokens), (*rows.pinned, True), (*group_ids, None),
    )


def _thoughts(thoughts: Sequence[StrippedThought]) -> tuple[Thought, ...]:
    """Stripped thoughts as the core's thoughts: they cost nothing as sent."""
    return tuple(Thought(thought.id, "", AGE) for thought in thoughts)


def _shared_rows(rows: Sequence[Row], group_ids: Sequence[str | None], carried: CoreCarry) -> int:
    """How many leading rows are ``carried``'s very objects in the same groups (C-level passes)."""
    shared = min(len(rows), len(carried.rows))
    same = next(compress(count(), map(is_not, rows[:shared], carried.rows[:shared])), shared)
    return next(compress(count(), map(ne, group_ids[:same], carried.group_ids[:same])), same)


@value
class CoreCarry:
    """What one fit of rows hands the next (`fit_rows`' ``carry``): its rows, their group ids and
    priced messages, the grouping's checkpoint and thrift's counts."""

    rows: tuple[Row, ...]
    group_ids: tuple[str | None, ...]
    # The priced messages (the last is the request's), or the columns they were fitted from.
    messages: tuple[MessageLike, ...] | PricedColumns
    grouping: GroupCarry | None
    counts: TokenCounts


def _kept_positions(given: Sequence[MessageLike], kept: Sequence[MessageLike]) -> tuple[int, ...]:
    """The row positions of the kept messages (``given[i]`` is row ``i``'s, the last the
    request's), each the very object at its place."""
    if len(kept) == len(given):
        return tuple(range(len(given) - 1))
    # A row's message is named ``messages[i]`` (`_working_set`): the few kept are placed by
    # their ids, checked by identity, with no table of every message.
    request = given[-1]
    rows = [item for item in kept if item is not request]
    places = [_row_at(item.id) for item in rows]
    if all(map(is_, map(given.__getitem__, places), rows)):
        return tuple(sorted(places))
    where = dict(zip(map(id, given[:-1]), count()))
    return tuple(sorted(cast(Iterable[int], filter(partial(is_not, None), map(where.get, map(id, kept))))))


def _complement(kept: Sequence[int], size: int) -> tuple[int, ...]:
    """The positions of ``range(size)`` not in ``kept`` (increasing, distinct): the runs between
    kept positions, in C-level passes (a long history sheds most of its rows).

    >>> _complement((1, 2, 5), 7)
    (0, 3, 4, 6)
    """
    bounds = [-1, *kept, size]
    return tuple(chain.from_iterable(map(range, map((1).__add__, bounds[:-1]), bounds[1:])))


def _row_at(ident: str) -> int:
    """The row position an id of `_message_id` names (-1 for any other id)."""
    inner = ident[len(_ID_PREFIX):-1]
    return int(inner) if ident.startswith(_ID_PREFIX) and inner.isdigit() else -1


def fit_rows(
    rows: Sequence[Row] | RowColumns,
    fixed_tokens: int,
    budgeting: Budgeting,
    counting: Counting,
    pairing: Pairing,
    *,
    thoughts: Sequence[StrippedThought] = (),
    documents: Sequence[Retrievable] = (),
    documents_frame: int = 0,
    documents_always: bool = False,
    shedding: Shedding = Shedding(),
    carry: CoreCarry | None = None,
    checkpoint: int | None = None,
) -> Result[CoreFit, AdapterError]:
    """Group, fit and check the promise (module docstring). With ``pairing.whole_turns`` the row
    opening the newest turn is pinned (the newest turn is kept from its opening on, its oldest
    tool rounds going first when it alone is too big). ``documents_frame`` is what the
    message holding the rendered documents costs beyond their text (charged whenever documents
    are passed; counted as sent only when one survives, or always with ``documents_always``:
    the caller's recipe sends the documents message even when it is empty).

    ``carry`` (a previous fit's `CoreFit.carry`) lets this fit reuse what that one measured of
    the rows it shares (the very same `Row` objects, in order); ``checkpoint`` is where the next
    fit's rows will likely start to differ (an agent loop's newest turn), so the grouping
    remembers its state there. The fit is identical with or without them. Rows given as
    `RowColumns` (a long history with no object per message) carry nothing: their fit's
    ``carry`` is ``None``.

    >>> from thrift_fp.adapters._core._args import checked_budget, checked_counting
    >>> budget = checked_budget(20, 0, 0.35).unwrap()
    >>> counting = checked_counting(None, "cl100k_base", None).unwrap()
    >>> fit_rows([Row(30, pinned=True), Row(4)], 0, budget, counting, Pairing()).failure().message
    'what cannot be shed costs 34 tokens as sent, over the budget of 20; raise context_window or lower output_reserve'
    """
    columns = RowColumns.of(rows)
    # The `Row` objects themselves, when the caller gave rows: only they carry to the next fit.
    own = None if isinstance(rows, RowColumns) else rows
    found = grouped(columns, own, pairing, None if carry is None else carry.grouping, checkpoint)
    if isinstance(found, Failure):
        return Failure(found.failure())
    group_ids, grouping = found.unwrap()
    # (The newest row needs no pin: the core never sheds the newest message, and a pinned one
    # would pass that protection to the last row of an older turn.)
    if pairing.whole_turns and (opening := newest_turn(columns)) < len(columns) - 1:
        pinned = list(columns.pinned)
        pinned[opening] = True
        columns = replace(columns, pinned=pinned)
        if own is not None:
            own = (*own[:opening], own[opening]._replace(pinned=True), *own[opening + 1:])
    fixed = fixed_tokens + (documents_frame if documents else 0)
    exact = carry is not None or checkpoint is not None
    # A one-off fit without rendered documents hands thrift the rows as priced columns (no
    # object per message); a carried fit's messages are objects the next fit reuses by identity,
    # and rendered documents are fitted by `fit_and_render`, which takes a working set.
    priced = None if exact or (documents and shedding.render) else _priced_columns(columns, group_ids, fixed)
    if priced is not None:
        ws = WorkingSet(thoughts=_thoughts(thoughts), retrievables=fit_order(documents))
    else:
        ws = _working_set(columns, own, group_ids, fixed, thoughts, documents, carry, exact)
    kept: tuple[int, ...] = ()
    options = ThriftOptions(
        budgeting.output_reserve, budgeting.reserve_fraction, encoding=counting.name,
        shed_order=shedding.shed_order, refill=shedding.refill,
    )
    window = budgeting.context_window
    rendered: FitRendered | None = None
    counts = TokenCounts()
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
        elif priced is not None:
            by_place = subtract_priced(priced, ws, window, None, options, encoding=name)
            if isinstance(by_place, Failure):
                return Failure(FitFailed(by_place.failure()))
            kept_set, trace = by_place.unwrap().working_set, by_place.unwrap().trace
            # The request's framing, last, is pinned: always kept.
            kept = by_place.unwrap().kept[:-1]
        else:
            fitted = subtract_to_fit(ws, window, None, options, encoding=name,
                                     counts=TokenCounts() if carry is None else carry.counts)
            if isinstance(fitted, Failure):
                return Failure(FitFailed(fitted.failure()))
            kept_set, trace, counts = fitted.unwrap().working_set, fitted.unwrap().trace, fitted.unwrap().counts
    if priced is None:
        kept = _kept_positions(ws.messages, kept_set.messages)
    tokens = fixed_tokens + sum(map(columns.tokens.__getitem__, kept))
    if rendered is not None and rendered.records:
        tokens += rendered.tokens
    plain = tuple(record for record in kept_set.retrievables if isinstance(record, Retrievable)) if plain_costs else ()
    if plain:
        tokens += sum(plain_costs[record.id] for record in plain)
    if documents and (documents_always or plain or (rendered is not None and rendered.records)):
        tokens += documents_frame
    budget = budgeting.budget.budget
    if tokens > budget:
        return Failure(OverBudget(tokens, budget))
    shed = _complement(kept, len(columns))
    estimated = counting.precision == "estimated" or any(map(columns.estimated.__getitem__, kept))
    carried = None if rendered is not None or own is None else CoreCarry(
        tuple(own), group_ids, ws.messages[:-1] if priced is None else priced, grouping, counts)
    return Success(CoreFit(kept, shed, trace, tokens, "estimated" if estimated else "exact", rendered, plain, carried))


def counted_rows(items: Sequence[tuple[str, Row]], counting: Counting) -> Result[list[Row], AdapterError]:
    """Rows read with their texts (``(text, row)``), priced by counting every text in one call:
    for the adapters whose messages are one text each (LangChain, LlamaIndex).

    >>> ready = checked_counting(None, "cl100k_base", None, "cl100k_base").unwrap()
    >>> [row.tokens for row in counted_rows([("hello world", Row(0, role="user"))], ready).unwrap()]
    [2]
    """
    counted = counting.count_many([text for text, _ in items])
    if isinstance(counted, Failure):
        return Failure(counted.failure())
    return Success([
        Row(tokens, row.issues, row.answers, row.starts_turn, row.pinned, row.role)
        for tokens, (_, row) in zip(counted.unwrap(), items, strict=True)
    ])


def one_text_frame(role: str, counting: Counting) -> int:
    """What a message of ``role`` costs beyond its text where a message is counted as one text
    (LangChain, LlamaIndex: ``<role>\n<text>``). The tokenizers split before the newline and
    after it ahead of a letter or a tag, so the header's count adds to the text's exactly.

    >>> one_text_frame("system", checked_counting(None, "o200k_base", None).unwrap())
    2
    """
    return counting.count(f"{role}\n")


@value
class FitTogether(Generic[_D]):
    """A chat and its documents fitted together: the kept row positions (input order), the
    caller's own documents that survived (input order), their render (``""`` when none
    survived or they were not rendered), the count as sent, and the trace."""

    kept: tuple[int, ...]
    documents: tuple[_D, ...]
    text: str
    tokens: TokenCount
    trace: ThriftTrace


def fit_rows_and_documents(
    read_rows: Callable[[Counting], Result[list[Row], AdapterError]],
    documents: Checked[Sequence[_D]],
    read_documents: Callable[[], Result[list[DocumentRow], AdapterError]],
    budget: Result[Budgeting, AdapterError],
    counting: Result[Counting, AdapterError],
    shedding: Result[Shedding, AdapterError],
    pairing: Pairing,
    tier: object,
    collection: str = "documents",
    documents_role: object = None,
    whole_turns: object = False,
) -> Result[FitTogether[_D], AdapterError]:
    """A chat and its retrieved ``documents`` fitted together, for the adapters whose framework
    hands both over (LangChain, LlamaIndex): the checked arguments, then the rows (read with the
    chosen counting), then the documents as records (``read_documents`` reads ``documents``),
    each first failure returned as it is.

    ``documents_role`` (``system``, ``user`` or ``None``): the rendered documents are sent as one
    more message of that role (the documented recipe: ``[*fitted.messages, ("system",
    fitted.text)]``), so its framing, the header line ``<role>\n`` of `one_text_frame`, is charged
    and counted whenever documents are passed (the recipe sends the message even when every
    document was shed and it is empty). ``whole_turns`` (a bool) is ``pairing``'s.

    >>> from thrift_fp.adapters._core._args import checked_budget, checked_counting
    >>> fitted = fit_rows_and_documents(
    ...     lambda counting: Success([Row(5, role="user")]), ["refunds"], lambda: Success([DocumentRow("Refunds take 5 days.")]),
    ...     checked_budget(200, 0, 0.35), checked_counting(None, None, None, "cl100k_base"), Success(Shedding()),
    ...     Pairing(), "first-party").unwrap()
    >>> fitted.kept, fitted.documents, fitted.tokens.encoding, "Refunds take 5 days." in fitted.text
    ((0,), ('refunds',), 'cl100k_base', True)
    """
    if documents_role is not None and documents_role not in DOCUMENTS_ROLES:
        return Failure(InvalidArgument("documents_role", documents_role, "expected system or user"))
    if not isinstance(whole_turns, bool):
        return Failure(InvalidArgument("whole_turns", whole_turns, "expected a bool"))
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
    given = records.unwrap()
    frame = 0 if documents_role is None else one_text_frame(str(documents_role), ready)
    fitted = fit_rows(rows.unwrap(), 0, budget.unwrap(), ready, replace(pairing, whole_turns=whole_turns), documents=given,
                      documents_frame=frame, documents_always=True, shedding=shedding.unwrap())
    return fitted.map(lambda done: FitTogether(
        done.kept, kept_inputs(documents, given, done.records), done.documents.text if done.documents is not None and done.records else "",
        TokenCount(done.tokens, ready.name, done.precision), done.trace,
    ))
