"""`fit_and_render`: fit a working set with each retrievable priced at its exact rendered cost,
then render the survivors with the same nonces, so what was budgeted is what is rendered.

Pricing. The block nonces are chosen first, against every candidate record, so each record's
text is fixed before the fit. A record is charged the tokens of its own section (header, body and
separator; `_envelope`). The *render overhead* is charged once, to the record thrift sheds last
among those it covers: the directive to the top-ranked record (highest score, earliest among ties),
each block's opening and closing tags to the top-ranked record of that block. Thrift's retrievables
pass keeps a prefix of that ranking, so an overhead is charged exactly when its block renders, and
nothing is charged when nothing renders. Every boundary between charged pieces is ``>``, ``.`` or a
body's end + newlines + ``<``, which no tiktoken pre-tokenizer piece crosses, so for cl100k_base
and o200k_base the rendered text's count is exactly the survivors' charges (the retrievables
bucket of the trace). A custom estimator need not be additive: if the text counts more than it was
charged, the result is a `ChargeExceeded` error value rather than an over-budget prompt.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType

from returns.result import Failure, Result, Success

from thrift_fp._args import StringsArg
from thrift_fp.records import Retrievable
from thrift_fp.render._envelope import DIRECTIVE_PIECE, TIERS, Tier, block_close, block_open, section
from thrift_fp.render._errors import (
    ChargeExceeded,
    DuplicateRecordId,
    FitFailed,
    NotRenderable,
    RenderCountFailed,
    RenderError,
)
from thrift_fp.render._fields import DEFAULT_FIELDS, Field, checked_fields
from thrift_fp.render._layout import Entry
from thrift_fp.render._nonce import NonceMode, RandomNonce
from thrift_fp.render._render import Rendered, checked_nonce_mode, entries_of, nonces_for, render_entries
from thrift_fp.thrift import Fitted, RetrievableLike, ThriftOptions, ThriftTrace, WorkingSet, resolve_budget, subtract_to_fit
from thrift_fp.tokens import TokenEncoding, get_encoding


@dataclass(frozen=True, slots=True)
class PricedRetrievable:
    """A record as thrift sees it during `fit_and_render`: the text it is charged for and its tokens.

    ``content`` is the record's section (with its separator), plus any block overhead this record
    carries, so even a text measure of it is exact.

    >>> from datetime import datetime, timezone
    >>> when = datetime(2026, 1, 2, tzinfo=timezone.utc)
    >>> record = Retrievable("r1", "body", "first-party", when, when, score=0.5)
    >>> priced = PricedRetrievable(record, "<data…>…", 9)
    >>> (priced.id, priced.score, priced.size_unknown, priced.estimate_tokens("cl100k_base"))
    ('r1', 0.5, False, 9)
    """

    record: Retrievable
    content: str
    tokens: int

    @property
    def id(self) -> str:
        return self.record.id

    @property
    def score(self) -> float | None:
        return self.record.score

    @property
    def size_unknown(self) -> bool:
        return False

    def estimate_tokens(self, encoding: str) -> int:
        """The section's tokens, counted once before the fit (``encoding`` is the fit's own).

        >>> from datetime import datetime, timezone
        >>> when = datetime(2026, 1, 2, tzinfo=timezone.utc)
        >>> PricedRetrievable(Retrievable("r", "x", "first-party", when, when), "…", 4).estimate_tokens("o200k_base")
        4
        """
        return self.tokens


@dataclass(frozen=True, slots=True)
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


def fit_and_render(
    working_set: WorkingSet,
    context_window: int | float,
    relevant_tool_names: StringsArg | None = None,
    options: ThriftOptions = ThriftOptions(),
    *,
    nonce: NonceMode = RandomNonce(),
    encoding: str | None = None,
    fields: Sequence[str] = DEFAULT_FIELDS,
) -> Result[FitRendered, RenderError]:
    """Fit ``working_set`` (its retrievables priced as rendered) and render the surviving records.

    Every retrievable must be a `Retrievable` (it needs a trust tier to be rendered). Size-unknown
    records go to thrift as they are, and thrift excludes them unread. First-party survivors keep
    their working-set order in the corpus. ``encoding`` defaults to ``options.encoding``;
    ``fields`` is as in `render_retrievables`.

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


def _records(items: Sequence[RetrievableLike]) -> Result[tuple[Retrievable, ...], RenderError]:
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
    relevant_tool_names: StringsArg | None,
    options: ThriftOptions,
    mode: NonceMode,
    enc: TokenEncoding,
    fields: tuple[Field, ...],
) -> Result[FitRendered, RenderError]:
    records = _records(working_set.retrievables)
    if isinstance(records, Failure):
        return Failure(records.failure())
    known = tuple(record for record in records.unwrap() if not record.size_unknown)
    entries = entries_of(known, enc.name)
    if isinstance(entries, Failure):
        return Failure(entries.failure())
    shown = tuple(entry.attributes(fields) for entry in entries.unwrap())
    nonces = nonces_for(entries.unwrap(), shown, mode)
    if isinstance(nonces, Failure):
        return Failure(nonces.failure())
    priced = _Pricing(entries.unwrap(), nonces.unwrap(), fields, shown)
    return _priced_fit(working_set, context_window, relevant_tool_names, options, enc, known, priced)


@dataclass(frozen=True, slots=True)
class _Pricing:
    """The candidates of one fit, their blocks' nonces, the fields rendered and each candidate's
    attributes for them (formatted once per fit)."""

    entries: tuple[Entry, ...]
    nonces: MappingProxyType[Tier, str]
    fields: tuple[Field, ...]
    shown: tuple[tuple[tuple[str, str], ...], ...]

    def overhead_pieces(self) -> list[tuple[tuple[int, ...], str]]:
        """Each fixed piece with the positions (in ``entries``) of the records it is rendered for:
        the directive for all, each block's tags for that block's records."""
        if not self.entries:
            return []
        pieces = [(tuple(range(len(self.entries))), DIRECTIVE_PIECE)]
        for tier in TIERS:
            block = tuple(at for at, entry in enumerate(self.entries) if entry.trust_tier == tier)
            if block:
                nonce = self.nonces[tier]
                pieces.append((block, block_open(tier, nonce) + block_close(tier, nonce)))
        return pieces


def _priced_fit(
    working_set: WorkingSet,
    context_window: int | float,
    relevant_tool_names: StringsArg | None,
    options: ThriftOptions,
    enc: TokenEncoding,
    known: tuple[Retrievable, ...],
    pricing: _Pricing,
) -> Result[FitRendered, RenderError]:
    entries = pricing.entries
    sections = [
        section(pricing.nonces[entry.trust_tier], attributes, entry.body)
        for entry, attributes in zip(entries, pricing.shown, strict=True)
    ]
    overheads = pricing.overhead_pieces()
    counted = enc.count_many([*(text for _, text in overheads), *sections])
    if isinstance(counted, Failure):
        return Failure(RenderCountFailed(counted.failure()))
    counts = counted.unwrap()
    overhead_counts, own = counts[: len(overheads)], counts[len(overheads) :]
    texts, charges = list(sections), list(own)
    # Each overhead rides on the record thrift would shed last among those it is rendered for.
    for (block, piece), tokens in zip(overheads, overhead_counts, strict=True):
        top = _top_ranked(entries, block)
        texts[top], charges[top] = piece + texts[top], charges[top] + tokens
    priced = {
        entry.record_id: PricedRetrievable(record, text, tokens)
        for entry, record, text, tokens in zip(entries, known, texts, charges, strict=True)
    }
    budget = resolve_budget(context_window, options.output_reserve, options.reserve_fraction)
    if isinstance(budget, Failure):
        return Failure(FitFailed(budget.failure()))
    pricing_set = replace(
        working_set,
        retrievables=tuple(
            priced.get(item.id, item) if isinstance(item, Retrievable) else item
            for item in working_set.retrievables
        ),
    )
    fitted = subtract_to_fit(pricing_set, context_window, relevant_tool_names, options, encoding=enc.name)
    if isinstance(fitted, Failure):
        return Failure(FitFailed(fitted.failure()))
    costs = MappingProxyType({entry.record_id: tokens for entry, tokens in zip(entries, own, strict=True)})
    return _render_survivors(fitted.unwrap(), pricing, enc, budget.unwrap().budget, sum(overhead_counts), costs)


def _top_ranked(entries: Sequence[Entry], block: Sequence[int]) -> int:
    """The position in ``entries`` of the record thrift sheds last among ``block``: the highest
    score (missing = 0), the earliest among equal scores (its retrievables pass is a stable sort).

    >>> from datetime import datetime, timezone
    >>> when = datetime(2026, 1, 2, tzinfo=timezone.utc)
    >>> entries = [Entry(name, "first-party", "", None, None, score, when, when)
    ...            for name, score in (("a", 0.2), ("b", 0.7), ("c", 0.7), ("d", None))]
    >>> _top_ranked(entries, range(4)), _top_ranked(entries, [0, 3])
    (1, 0)
    """
    return min(block, key=lambda at: (-(entries[at].score or 0.0), at))


def _render_survivors(
    fitted: Fitted,
    pricing: _Pricing,
    enc: TokenEncoding,
    budget: int,
    overhead: int,
    costs: MappingProxyType[str, int],
) -> Result[FitRendered, RenderError]:
    # Thrift returns the items it was given; size-unknown records (never priced) never survive.
    priced = tuple(item for item in fitted.working_set.retrievables if isinstance(item, PricedRetrievable))
    kept = tuple(item.record for item in priced)
    kept_ids = {record.id for record in kept}
    survivors = tuple(entry for entry in pricing.entries if entry.record_id in kept_ids)
    charged = sum(item.tokens for item in priced)
    rendered = render_entries(survivors, pricing.nonces, pricing.fields, enc.name)
    if isinstance(rendered, Success) and rendered.unwrap().tokens > charged:
        # Exact for tiktoken encodings (see the module docstring); a custom estimator may not be.
        return Failure(ChargeExceeded(enc.name, charged, rendered.unwrap().tokens))
    fixed = charged - sum(costs[record_id] for record_id in kept_ids)
    return rendered.map(
        lambda text: FitRendered(
            text, kept, replace(fitted.working_set, retrievables=kept), fitted.trace, budget, overhead, costs, fixed
        )
    )
