"""`fit_and_render`: fit a working set with each retrievable priced at its exact rendered cost,
then render the survivors with the same nonces, so what was budgeted is what is rendered.

Nonces. Each record's text holds its block's nonce, so the nonces are fixed before the fit. The
fit first takes each block's first draw (distinct across blocks) without scanning any candidate,
then checks what renders: the digit skeletons (`_skeleton`) of the survivors' bodies and shown
attribute values. If none shows a nonce of the render, that is the result: the rendered text
meets `render_retrievables`' rule (no text shows a nonce of its render, however disguised), and
the scan covers the survivors, not every candidate (on 5,000 passages the whole scan was about a
third of the overhead over tokenizing). Otherwise, which only text built to collide can cause,
the fit is redone with the nonces chosen against every candidate (`nonces_for`), so whatever
survives is safe. So a candidate that is shed can never force another nonce.

Pricing. With the nonces fixed, each record's text is fixed before the fit. A record is charged
the tokens of its own section (header, body and separator; `_envelope`). The *render overhead*
is charged once, to the record thrift sheds last among those it covers: the directive to the
top-ranked record (highest score, earliest among ties), each block's opening and closing tags to
the top-ranked record of that block. Thrift's retrievables
pass keeps a prefix of that ranking, so an overhead is charged exactly when its block renders, and
nothing is charged when nothing renders. Every boundary between charged pieces is ``>``, ``.`` or a
body's end + newlines + ``<``, which no tiktoken pre-tokenizer piece crosses, so for cl100k_base
and o200k_base the rendered text's count is exactly the survivors' charges (the retrievables
bucket of the trace); so for those two the rendered text is not tokenized again (the render
properties count it afresh and compare). A custom estimator need not be additive: its rendered text
is counted, and if it counts more than it was charged, the result is a `ChargeExceeded` error value
rather than an over-budget prompt.

Refill. Thrift's refill re-admits shed records beyond that prefix at their static charges, so a
refilled record can open a block (or, when nothing else survives, the directive) whose carrier
stayed shed, and its charge lacks that overhead. So when a refilled record survives without its
block's carrier, `_refill_exactly` redoes the retrievables' refill at exact marginal prices: from
the shedding passes' survivors (a ranking prefix, exactly charged) and the budget thrift's refill
left (memories it re-admitted stay), each shed record in ranking order comes back when its own
cost plus the overheads it would open fits in what is left. Until thrift's refill first admits a
record with an uncarried overhead, both walks take the same records (a carrier is visited before
the rest of its block), so the redo only changes what that under-charge decided. The trace's
retrievables refill step, total and verdict are rewritten to match, so its retrievables tokens are
again exactly the rendered text's count; refill on keeps a superset of what refill off keeps.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from itertools import compress, repeat
from operator import attrgetter, eq, not_
from types import MappingProxyType
from typing import Final, cast

from returns.result import Failure, Result, Success

from thrift_fp._args import CheckedStringsArg, Each
from thrift_fp._value import value
from thrift_fp.records import Retrievable
from thrift_fp.render._choose import choose_nonces
from thrift_fp.render._envelope import DIRECTIVE_PIECE, TIERS, Tier, block_close, block_open, sections
from thrift_fp.render._errors import (
    ChargeExceeded,
    DuplicateRecordId,
    FitFailed,
    NotRenderable,
    RenderCountFailed,
    RenderError,
)
from thrift_fp.render._fields import DEFAULT_FIELDS, Field, checked_fields
from thrift_fp.render._layout import Entry, attribute_columns
from thrift_fp.render._nonce import NonceMode, RandomNonce
from thrift_fp.render._priced import PricedRetrievable, priced_many
from thrift_fp.render._render import (
    Rendered,
    checked_nonce_mode,
    entries_of,
    nonces_for,
    render_charged,
    render_entries,
)
from thrift_fp.render._skeleton import digit_skeletons
from thrift_fp.thrift import (
    Fitted,
    RefillTrace,
    RetrievableLike,
    ThriftOptions,
    ThriftTrace,
    WorkingSet,
)
from thrift_fp.thrift._budget import resolve_budget
from thrift_fp.thrift._fit import subtract_to_fit
from thrift_fp.tokens import TokenEncoding
from thrift_fp.tokens._encoding import get_encoding


@value
class FitRendered:
    """A fit and its render: the text, its exact tokens, the nonces, the surviving records (in
    thrift's score order), the fitted working set (holding those records), thrift's trace, the
    input budget, the render overhead charged when every block renders (the directive and block
    tags), ``costs`` (every priced record's own rendered tokens: header, body and separator, kept
    or shed) and ``fixed`` (the overhead of the blocks that did render).

    ``tokens == fixed + sum(costs[record.id] for record in records)``, exactly.
    """

    rendered: Rendered
    records: tuple[Retrievable, ...]
    working_set: WorkingSet
    trace: ThriftTrace
    budget: int
    overhead: int
    costs: MappingProxyType[str, int]
    fixed: int

    @property
    def text(self) -> str:
        return self.rendered.text

    @property
    def tokens(self) -> int:
        return self.rendered.tokens

    def _repr_html_(self) -> str:
        """The fit as one self-contained HTML page (a notebook shows it inline): the window bar,
        what was shed and why, the surviving records with their exact costs, the trace.

        >>> "Nothing was shed." in fit_and_render(WorkingSet(), 100).unwrap()._repr_html_()
        True
        """
        from thrift_fp.thrift._picture import (  # noqa: PLC0415 - loads when drawn
            fit_report_html,
            report_passages,
            report_shed,
        )

        refilled = (key for step in self.trace.refilled for key in step.ids)
        kept = report_passages(self.records, self.costs, refilled=refilled)
        return fit_report_html(self.trace, kept, report_shed(self.trace, self.costs))


def fit_and_render(
    working_set: WorkingSet,
    context_window: int | float,
    relevant_tool_names: CheckedStringsArg | None = None,
    options: ThriftOptions = ThriftOptions(),
    *,
    nonce: NonceMode = RandomNonce(),
    encoding: str | None = None,
    fields: Each[str] = DEFAULT_FIELDS,
) -> Result[FitRendered, RenderError]:
    """Fit ``working_set`` (its retrievables priced as rendered) and render the surviving records.

    Every retrievable must be a `Retrievable` (it needs a trust tier to be rendered). Size-unknown
    records go to thrift as they are, and thrift excludes them unread. First-party survivors keep
    their working-set order in the corpus. ``encoding`` defaults to ``options.encoding``;
    ``fields`` is as in `render_retrievables`. With ``options.refill`` on, a shed record comes
    back only when its exact cost fits, the overhead of a block it opens included (the module
    docstring says how), so the text still counts exactly the trace's retrievables tokens. As in
    `render_retrievables`, no rendered body or attribute shows a nonce of the render; a record
    that is shed is not scanned for them (module docstring, "Nonces").

    >>> from datetime import datetime, timezone
    >>> from thrift_fp.render import KeyedNonce
    >>> when = datetime(2026, 1, 2, tzinfo=timezone.utc)
    >>> records = tuple(
    ...     Retrievable(f"kb{i}", "Refunds take 30 days. " * 20 * (i + 1), "first-party", when, when,
    ...                 score=1 - i / 10)
    ...     for i in range(3)
    ... )
    >>> done = fit_and_render(WorkingSet(retrievables=records), 1400, nonce=KeyedNonce(bytes(32))).unwrap()
    >>> [record.id for record in done.records]
    ['kb0', 'kb1']
    >>> from thrift_fp.tokens import count_tokens
    >>> done.tokens == count_tokens(done.text).unwrap().tokens <= done.budget
    True
    >>> done.tokens == done.fixed + sum(done.costs[record.id] for record in done.records)
    True
    """
    mode: Result[NonceMode, RenderError] = checked_nonce_mode(nonce)
    selected: Result[tuple[Field, ...], RenderError] = checked_fields(fields)
    name = encoding if encoding is not None else options.encoding
    counter: Result[TokenEncoding, RenderError] = get_encoding(name).alt(RenderCountFailed)
    return mode.bind(
        lambda checked: selected.bind(
            lambda chosen: counter.bind(
                lambda enc: _fit_and_render(
                    working_set, context_window, relevant_tool_names, options, checked, enc, chosen
                )
            )
        )
    )


def _records(items: Sequence[object]) -> Result[tuple[Retrievable, ...], RenderError]:
    # Sequence[object]: every item is checked here, where beartype would sample one. The common
    # case in C-level passes: exact `Retrievable`s with distinct ids; otherwise the loop names
    # the first item that is not a record, or the first repeated id.
    if not set(map(type, items)) - {Retrievable} and len(set(map(_id, items))) == len(items):
        return Success(tuple(cast(Sequence[Retrievable], items)))
    records: list[Retrievable] = []
    seen: set[str] = set()
    for index, item in enumerate(items):
        if not isinstance(item, Retrievable):
            return Failure(NotRenderable(index, type(item).__name__))
        if item.id in seen:
            return Failure(DuplicateRecordId(item.id))
        seen.add(item.id)
        records.append(item)
    return Success(tuple(records))


def _fit_and_render(
    working_set: WorkingSet,
    context_window: int | float,
    relevant_tool_names: CheckedStringsArg | None,
    options: ThriftOptions,
    mode: NonceMode,
    enc: TokenEncoding,
    fields: tuple[Field, ...],
) -> Result[FitRendered, RenderError]:
    records = _records(working_set.retrievables)
    if isinstance(records, Failure):
        return Failure(records.failure())
    listed = records.unwrap()
    known = tuple(compress(listed, map(not_, map(_size_unknown, listed))))
    entries = entries_of(known, enc.name)
    if isinstance(entries, Failure):
        return Failure(entries.failure())
    candidates = entries.unwrap()
    shown, columns = attribute_columns(candidates, fields)
    present = set(map(_trust_tier, candidates))
    # Each block's first draw, checked against what renders (module docstring, "Nonces").
    first = choose_nonces([tier for tier in TIERS if tier in present], (), mode)
    if isinstance(first, Success):
        done = _priced_fit(
            working_set, context_window, relevant_tool_names, options, enc, known,
            _Pricing(candidates, first.unwrap(), fields, columns),
        )
        if not (isinstance(done, Success) and _shows_a_nonce(done.unwrap(), candidates, fields)):
            return done
    nonces = nonces_for(candidates, shown, mode)
    if isinstance(nonces, Failure):
        return Failure(nonces.failure())
    priced = _Pricing(candidates, nonces.unwrap(), fields, columns)
    return _priced_fit(working_set, context_window, relevant_tool_names, options, enc, known, priced)


def _shows_a_nonce(done: FitRendered, candidates: Sequence[Entry], fields: Sequence[Field]) -> bool:
    """Whether a survivor's body or shown attribute value shows a nonce of the render, in any
    disguise its digit skeleton undoes (the rule `nonces_for` applies to every candidate)."""
    kept = {record.id for record in done.records}
    survivors = [entry for entry in candidates if entry.record_id in kept]
    shown, _ = attribute_columns(survivors, fields)
    skeleton = digit_skeletons([*map(_body, survivors), *shown])
    return any(nonce in skeleton for nonce in set(done.rendered.nonces.values()))


# The real tiktoken encodings whose pre-tokenizer no charged piece boundary crosses (module
# docstring): for them the rendered text counts exactly what was charged.
ADDITIVE: Final = frozenset({"cl100k_base", "o200k_base"})


# Every candidate of every fit goes through the steps below, so they run in C-level passes
# (attrgetter, map, compress, joins) rather than a Python-level step per record; the records were
# checked once, above (`_records`, `entries_of`), and the public boundary is type-checked.
_id, _size_unknown, _trust_tier = attrgetter("id"), attrgetter("size_unknown"), attrgetter("trust_tier")
_body, _record_id, _score = attrgetter("body"), attrgetter("record_id"), attrgetter("score")


@value
class _Pricing:
    """The candidates of one fit, their blocks' nonces, the fields rendered and, per field, each
    candidate's rendered attribute (`attribute_columns`, formatted once per fit)."""

    entries: tuple[Entry, ...]
    nonces: MappingProxyType[Tier, str]
    fields: tuple[Field, ...]
    columns: list[list[str]]

    def overhead_pieces(self) -> list[tuple[tuple[int, ...], str]]:
        """Each fixed piece with the positions (in ``entries``) of the records it is rendered for:
        the directive for all, each block's tags for that block's records."""
        if not self.entries:
            return []
        positions = range(len(self.entries))
        pieces = [(tuple(positions), DIRECTIVE_PIECE)]
        tiers = list(map(_trust_tier, self.entries))
        for tier in TIERS:
            block = tuple(compress(positions, map(eq, tiers, repeat(tier))))
            if block:
                nonce = self.nonces[tier]
                pieces.append((block, block_open(tier, nonce) + block_close(tier, nonce)))
        return pieces


def _priced_fit(
    working_set: WorkingSet,
    context_window: int | float,
    relevant_tool_names: CheckedStringsArg | None,
    options: ThriftOptions,
    enc: TokenEncoding,
    known: tuple[Retrievable, ...],
    pricing: _Pricing,
) -> Result[FitRendered, RenderError]:
    entries = pricing.entries
    ids = list(map(_record_id, entries))
    nonce_of = pricing.nonces.__getitem__
    texts = sections(list(map(nonce_of, map(_trust_tier, entries))), pricing.columns, list(map(_body, entries)))
    overheads = pricing.overhead_pieces()
    counted = enc.count_many([*(text for _, text in overheads), *texts])
    if isinstance(counted, Failure):
        return Failure(RenderCountFailed(counted.failure()))
    counts = counted.unwrap()
    overhead_counts, own = counts[: len(overheads)], counts[len(overheads) :]
    charges = list(own)
    ranks = _ranks(entries)
    carried: list[_Overhead] = []
    # Each overhead rides on the record thrift would shed last among those it is rendered for.
    for (block, piece), tokens in zip(overheads, overhead_counts, strict=True):
        top = _top_ranked(ranks, block)
        texts[top], charges[top] = piece + texts[top], charges[top] + tokens
        carried.append(_Overhead(ids[top], frozenset(map(ids.__getitem__, block)), tokens))
    priced_items = priced_many(known, texts, charges)
    priced = dict(zip(ids, priced_items))
    budget = resolve_budget(context_window, options.output_reserve, options.reserve_fraction)
    if isinstance(budget, Failure):
        return Failure(FitFailed(budget.failure()))
    # Every retrievable is a `Retrievable` (`_records`); the size-unknown ones stay as they are.
    items = working_set.retrievables
    pricing_set = replace(working_set, retrievables=tuple(map(priced.get, map(_id, items), items)))
    fitted = subtract_to_fit(pricing_set, context_window, relevant_tool_names, options, encoding=enc.name)
    if isinstance(fitted, Failure):
        return Failure(FitFailed(fitted.failure()))
    costs = MappingProxyType(dict(zip(ids, own)))
    # Thrift's ranking: score descending (missing = 0), earlier input first among ties (stable).
    ranked = tuple(map(priced_items.__getitem__, sorted(range(len(entries)), key=ranks.__getitem__)))
    return _render_survivors(fitted.unwrap(), pricing, enc, budget.unwrap().budget, tuple(carried), ranked, costs)


def _ranks(entries: Sequence[Entry]) -> list[float]:
    """Each entry's sort key in thrift's ranking: its score negated, a missing score as 0.

    >>> from datetime import datetime, timezone
    >>> when = datetime(2026, 1, 2, tzinfo=timezone.utc)
    >>> _ranks([Entry("a", "first-party", "", None, None, score, when, when) for score in (0.2, None)])
    [-0.2, -0.0]
    """
    return [-(score or 0.0) for score in map(_score, entries)]


def _top_ranked(ranks: Sequence[float], block: Sequence[int]) -> int:
    """The position (in ``ranks``, from `_ranks`) of the record thrift sheds last among ``block``
    (ascending positions): the highest score (missing = 0), the earliest among equal scores (its
    retrievables pass is a stable sort; ``min`` keeps the first of equal keys).

    >>> from datetime import datetime, timezone
    >>> when = datetime(2026, 1, 2, tzinfo=timezone.utc)
    >>> entries = [Entry(name, "first-party", "", None, None, score, when, when)
    ...            for name, score in (("a", 0.2), ("b", 0.7), ("c", 0.7), ("d", None))]
    >>> _top_ranked(_ranks(entries), range(4)), _top_ranked(_ranks(entries), [0, 3])
    (1, 0)
    """
    return min(block, key=ranks.__getitem__)


@value
class _Overhead:
    """One fixed piece (the directive or a block's tags): the record whose charge carries it, the
    records it is rendered for, and its tokens."""

    carrier: str
    members: frozenset[str]
    tokens: int


@value
class _Settled:
    """The surviving records (thrift's ranking order), their exact tokens, and the trace
    (rewritten when the retrievables' refill was redone)."""

    kept: tuple[PricedRetrievable, ...]
    tokens: int
    trace: ThriftTrace


def _uncarried(overheads: Sequence[_Overhead], kept_ids: set[str]) -> int:
    """The tokens of the pieces that render (a member survives) whose carrier does not survive.

    >>> pieces = [_Overhead("a", frozenset("abc"), 7), _Overhead("c", frozenset("c"), 3)]
    >>> _uncarried(pieces, {"a", "b"}), _uncarried(pieces, {"b"}), _uncarried(pieces, set())
    (0, 7, 0)
    """
    return sum(
        piece.tokens for piece in overheads
        if piece.carrier not in kept_ids and not piece.members.isdisjoint(kept_ids)
    )


def _opened(overheads: Sequence[_Overhead], record_id: str, kept_ids: set[str]) -> int:
    """The tokens of the pieces ``record_id`` would open: it is a member and none is kept yet.

    >>> pieces = [_Overhead("a", frozenset("abc"), 7), _Overhead("c", frozenset("c"), 3)]
    >>> _opened(pieces, "c", set()), _opened(pieces, "c", {"a"}), _opened(pieces, "b", {"a"})
    (10, 3, 0)
    """
    return sum(
        piece.tokens for piece in overheads if record_id in piece.members and piece.members.isdisjoint(kept_ids)
    )


def _settle(
    fitted: Fitted,
    ranked: Sequence[PricedRetrievable],
    costs: Mapping[str, int],
    overheads: Sequence[_Overhead],
    budget: int,
) -> _Settled:
    """Thrift's survivors when their charges are exact (always without refill: the survivors are
    then a ranking prefix, so each rendered piece's carrier survives), else `_refill_exactly`."""
    trace = fitted.trace
    # Thrift returns the items it was given; size-unknown records (never priced) never survive.
    priced = tuple(item for item in fitted.working_set.retrievables if isinstance(item, PricedRetrievable))
    step = next((step for step in trace.refilled if step.bucket == "retrievables"), None)
    if step is None or _uncarried(overheads, {item.id for item in priced}) == 0:
        return _Settled(priced, sum(item.tokens for item in priced), trace)
    return _refill_exactly(trace, step, priced, ranked, costs, overheads, budget)


def _refill_exactly(
    trace: ThriftTrace,
    step: RefillTrace,
    priced: Sequence[PricedRetrievable],
    ranked: Sequence[PricedRetrievable],
    costs: Mapping[str, int],
    overheads: Sequence[_Overhead],
    budget: int,
) -> _Settled:
    """Redo the retrievables' refill from the shedding passes' survivors, each shed record (in
    ranking order) at its own cost plus the overheads it would open, while it fits."""
    refilled = set(step.ids)
    kept_ids = {item.id for item in priced if item.id not in refilled}
    before = trace.total_after - sum(item.tokens for item in priced if item.id in refilled)
    leftover = budget - before
    admitted: list[str] = []
    for item in ranked:
        if item.id in kept_ids:
            continue
        price = costs[item.id] + _opened(overheads, item.id, kept_ids)
        if price <= leftover:
            admitted.append(item.id)
            kept_ids.add(item.id)
            leftover -= price
    kept = tuple(item for item in ranked if item.id in kept_ids)
    tokens = step.before_tokens + (budget - before - leftover)
    exact = RefillTrace("retrievables", step.before_tokens, tokens, step.before_count, len(kept), tuple(admitted))
    total = budget - leftover
    rewritten = replace(
        trace,
        total_after=total,
        fits=total <= budget,
        refilled=tuple(exact if old is step else old for old in trace.refilled),
    )
    return _Settled(kept, tokens, rewritten)


def _render_survivors(
    fitted: Fitted,
    pricing: _Pricing,
    enc: TokenEncoding,
    budget: int,
    overheads: tuple[_Overhead, ...],
    ranked: tuple[PricedRetrievable, ...],
    costs: MappingProxyType[str, int],
) -> Result[FitRendered, RenderError]:
    settled = _settle(fitted, ranked, costs, overheads, budget)
    kept = tuple(item.record for item in settled.kept)
    kept_ids = {record.id for record in kept}
    entries = pricing.entries
    survivors = tuple(compress(entries, map(kept_ids.__contains__, map(_record_id, entries))))
    charged = settled.tokens
    if enc.name in ADDITIVE and enc.precision == "exact":
        # The text's count is exactly the charges (module docstring), so it is not tokenized a
        # second time; the render properties count the text afresh and compare.
        rendered: Result[Rendered, RenderError] = Success(
            render_charged(survivors, pricing.nonces, pricing.fields, charged)
        )
    else:
        rendered = render_entries(survivors, pricing.nonces, pricing.fields, enc.name)
        if isinstance(rendered, Success) and rendered.unwrap().tokens > charged:
            # A custom estimator need not be additive: refuse rather than exceed the budget.
            return Failure(ChargeExceeded(enc.name, charged, rendered.unwrap().tokens))
    fixed = charged - sum(costs[record_id] for record_id in kept_ids)
    overhead = sum(piece.tokens for piece in overheads)
    return rendered.map(
        lambda text: FitRendered(
            text, kept, replace(fitted.working_set, retrievables=kept), settled.trace, budget, overhead, costs,
            fixed,
        )
    )
