"""fit_and_render properties: costs are exact, and the rendered block fits the retrievables' share,
with refill off and on (on keeps a superset of off); nothing breaks out, and no survivor shows a
nonce of the render."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timezone
from typing import NamedTuple

from hypothesis import example, given, settings
from hypothesis import strategies as st

from properties.render_parser import bodies_open_or_close_nothing, parse_rendered
from properties.render_strategies import KEY, RecordSpec, build, disguises, nonce_modes, TIERS, record_specs, scores
from thrift_fp.records import Retrievable, TrustTier
from thrift_fp.render import (
    DEFAULT_FIELDS,
    SAFETY_DIRECTIVE,
    Field,
    FitRendered,
    KeyedNonce,
    NonceMode,
    fit_and_render,
    render_retrievables,
)
from thrift_fp.thrift import ThriftOptions, WorkingSet
from thrift_fp.tokens import count_tokens

encodings = st.sampled_from(["cl100k_base", "o200k_base"])
# Window minus what rendering everything needs: near 0 the fit is exact to the token.
slack = st.integers(-40, 40) | st.integers(-3000, 0)


def _count(text: str, encoding: str) -> int:
    return count_tokens(text, encoding).unwrap().tokens


_WRAPPERS = {
    "first-party": ("<corpus{n}>\n", "</corpus{n}>\n\n"),
    "third-party-public": ("<untrusted{n} tier=third-party-public>\n", "</untrusted{n}>\n\n"),
    "third-party-private": ("<untrusted{n} tier=third-party-private>\n", "</untrusted{n}>\n\n"),
}


def _overhead(records: tuple[Retrievable, ...], encoding: str) -> int:
    """Directive (when anything renders) and each block's tags (when one of its records does);
    a 20-digit nonce always costs the same, so any one stands in for it."""
    overhead = _count(SAFETY_DIRECTIVE + "\n\n", encoding) if records else 0
    for tier, pieces in _WRAPPERS.items():
        if any(record.trust_tier == tier for record in records):
            overhead += sum(_count(piece.format(n="0" * 20), encoding) for piece in pieces)
    return overhead


@given(record_specs(), nonce_modes, encodings, st.text(max_size=30), st.integers(0, 100), slack,
       st.sampled_from([DEFAULT_FIELDS, ("source", "heading", "score", "date"), ("id", "heading")]))
def test_fitted_block_fits_the_retrievables_share_and_costs_are_exact(
    specs: tuple[RecordSpec, ...],
    mode: NonceMode,
    encoding: str,
    system_prompt: str,
    reserve: int,
    slack: int,
    fields: tuple[Field, ...],
) -> None:
    records = build(specs)
    everything = render_retrievables(records, encoding=encoding, nonce=mode, fields=fields).unwrap().tokens
    window = max(0, everything + _count(system_prompt, encoding) + reserve + slack)
    options = ThriftOptions(output_reserve=reserve, encoding=encoding)
    done = fit_and_render(
        WorkingSet(system_prompt=system_prompt, retrievables=records), window, None, options, nonce=mode, fields=fields
    ).unwrap()

    fresh = _count(done.text, encoding)
    assert done.tokens == fresh
    survivors = next(bucket for bucket in done.trace.buckets if bucket.bucket == "retrievables").after_tokens
    others = done.trace.total_after - survivors
    if done.trace.fits:
        assert fresh <= done.budget - others  # the block fits the retrievables' share, counted as one text
    else:
        assert done.records == () and done.text == ""
    # Exact: the text is each survivor's charge (its envelope, plus the overhead of a block it
    # is the last to leave); a block's overhead is charged only when the block renders.
    assert fresh == survivors
    assert (done.text == "") == (done.records == ())
    assert done.overhead == _overhead(records, encoding)
    assert done.fixed == _overhead(done.records, encoding)
    assert fresh == done.fixed + sum(done.costs[record.id] for record in done.records)
    if slack >= 0 and mode == KeyedNonce(KEY):
        assert set(done.records) == set(records)  # everything fits: nothing shed


@st.composite
def plain_records(draw: st.DrawFn) -> tuple[Retrievable, ...]:
    """A few records of varied sizes across the tiers: the shapes where a refilled record opens a
    block whose top-ranked record stayed shed."""
    when = datetime(2026, 1, 2, tzinfo=timezone.utc)
    shapes = draw(st.lists(st.tuples(st.sampled_from(TIERS), st.integers(1, 80), scores), min_size=1, max_size=6))
    return tuple(
        Retrievable(f"r{at}", "word " * words, tier, when, when, score=score, source="s")
        for at, (tier, words, score) in enumerate(shapes)
    )


def _share(done: FitRendered) -> int:
    """The retrievables' tokens in the trace: the refill step's when refill ran, else the pass's."""
    step = next((step for step in done.trace.refilled if step.bucket == "retrievables"), None)
    if step is not None:
        return step.after_tokens
    return next(bucket for bucket in done.trace.buckets if bucket.bucket == "retrievables").after_tokens


class _RefillCase(NamedTuple):
    """What a refill property draws: records (or specs of them), the nonce mode, the encoding, the
    system prompt, the share of the records' rendered count the window holds, and a slack."""

    drawn: tuple[Retrievable, ...] | tuple[RecordSpec, ...]
    mode: NonceMode
    encoding: str
    system_prompt: str
    fraction: float
    slack: int


def _refill_pair(case: _RefillCase) -> tuple[FitRendered, FitRendered]:
    records = _built(case.drawn)
    everything = render_retrievables(records, encoding=case.encoding, nonce=case.mode).unwrap().tokens
    window = max(0, round(everything * case.fraction) + _count(case.system_prompt, case.encoding) + case.slack)
    ws = WorkingSet(system_prompt=case.system_prompt, retrievables=records)
    off = ThriftOptions(output_reserve=0, encoding=case.encoding)
    on = replace(off, refill=True)
    return (
        fit_and_render(ws, window, None, off, nonce=case.mode).unwrap(),
        fit_and_render(ws, window, None, on, nonce=case.mode).unwrap(),
    )


# Specs are built inside the test: building spools bodies into a store, not a strategy's job.
_WHEN = datetime(2026, 2, 1, tzinfo=timezone.utc)
# Thrift's refill takes c without the tags of the block it opens (b, their carrier, stays shed);
# from 172 tokens it also takes b without the directive (a, its carrier, stays shed).
def _passage(name: str, words: int, score: float, tier: TrustTier) -> Retrievable:
    return Retrievable(name, "refund policy " * words, tier, _WHEN, _WHEN, source=f"src/{name}", score=score)


_OPENS_A_BLOCK = (
    _passage("a", 40, 0.9, "first-party"),
    _passage("b", 60, 0.8, "third-party-public"),
    _passage("c", 10, 0.1, "third-party-public"),
)
uncarried_examples = (
    example(_RefillCase(_OPENS_A_BLOCK, KeyedNonce(KEY), "cl100k_base", "", 0.0, 175)),
    example(_RefillCase(_OPENS_A_BLOCK, KeyedNonce(KEY), "cl100k_base", "", 0.0, 230)),
)


any_records = st.one_of(plain_records(), record_specs())


def _built(drawn: tuple[Retrievable, ...] | tuple[RecordSpec, ...]) -> tuple[Retrievable, ...]:
    return tuple(item for item in drawn if isinstance(item, Retrievable)) or build(
        [item for item in drawn if isinstance(item, RecordSpec)]
    )
fractions = st.floats(0, 1)
small_slack = st.integers(-20, 20)
refill_cases = st.builds(_RefillCase, any_records, nonce_modes, encodings, st.text(max_size=20), fractions, small_slack)


def _refill_property(test: Callable[[_RefillCase], None]) -> Callable[..., None]:
    """A refill property: 60 drawn cases, and the cases where refill takes a record without the
    tags of the block it opens (`uncarried_examples`)."""
    checked = settings(max_examples=60)(given(refill_cases)(test))
    for each in uncarried_examples:
        checked = each(checked)
    return checked


@_refill_property
def test_refill_renders_within_budget_and_charges_exactly(case: _RefillCase) -> None:
    """Refill on: the text fits whenever the trace says it fits, and the trace's retrievables
    tokens are the text's exact count (each rendered block's overhead charged once)."""
    off, done = _refill_pair(case)
    encoding = case.encoding
    fresh = _count(done.text, encoding)
    assert done.tokens == fresh == _share(done)
    others = done.trace.total_after - _share(done)
    assert others == off.trace.total_after - _share(off)  # refill and settling touch only passages here
    if done.trace.fits:
        assert fresh <= done.budget - others
    assert done.trace.fits == (done.trace.total_after <= done.budget)
    assert done.fixed == _overhead(done.records, encoding)
    assert fresh == done.fixed + sum(done.costs[record.id] for record in done.records)


@_refill_property
def test_refill_keeps_a_superset_and_readmits_at_exact_marginal_prices(case: _RefillCase) -> None:
    """Refill on keeps every record refill off keeps, and re-admits exactly what a greedy walk
    over the shed records in ranking order admits, each at its own cost plus the overhead of
    the blocks it opens, while that fits; so every record that stays shed costs more than the
    leftover at its turn. The refill step names the re-admitted records, in admission order."""
    off, done = _refill_pair(case)
    records, encoding = _built(case.drawn), case.encoding
    kept_off = {record.id for record in off.records}
    kept_on = {record.id for record in done.records}
    assert kept_off <= kept_on
    step = next(step for step in done.trace.refilled if step.bucket == "retrievables")
    assert (step.before_count, step.before_tokens) == (len(kept_off), _share(off))
    # The model: the refill-off survivors, then each shed record in thrift's ranking order.
    ranking = sorted(
        (at for at, record in enumerate(records) if record.id in off.costs),
        key=lambda at: (-(records[at].score or 0.0), at),
    )
    kept = [record for record in records if record.id in kept_off]
    leftover = done.budget - off.trace.total_after if off.trace.fits else -1
    admitted: list[str] = []
    for at in ranking:
        record = records[at]
        if record.id in kept_off:
            continue
        price = off.costs[record.id] + _overhead((*kept, record), encoding) - _overhead(tuple(kept), encoding)
        if price <= leftover:
            admitted.append(record.id)
            kept.append(record)
            leftover -= price
        else:
            assert record.id not in kept_on
    assert step.ids == tuple(admitted)
    assert kept_on == kept_off | set(admitted)
    assert done.trace.total_after == off.trace.total_after + _share(done) - _share(off)


@settings(max_examples=60)
@given(record_specs(), nonce_modes, encodings, fractions, st.booleans())
def test_no_breakout_and_no_survivor_shows_a_nonce(
    specs: tuple[RecordSpec, ...], mode: NonceMode, encoding: str, fraction: float, refill: bool
) -> None:
    """Whatever the fit sheds, the rendered text parses strictly (no body opens, closes or
    forges a tag) and no survivor's body or attribute shows a nonce of the render, disguised or
    not. The bodies plant the keyed nonces' first draws and their look-alikes, so both the first
    draw and the redo against every candidate (module docstring of `render._fit`) are run."""
    records = build(specs)
    everything = render_retrievables(records, encoding=encoding, nonce=mode).unwrap().tokens
    options = ThriftOptions(output_reserve=0, encoding=encoding, refill=refill)
    done = fit_and_render(WorkingSet(retrievables=records), round(everything * fraction), None, options,
                          nonce=mode).unwrap()
    sections = parse_rendered(done.text)  # strict: raises on any tag a body opened, closed or forged
    assert len(sections) == len(done.records)
    assert bodies_open_or_close_nothing(sections)
    shown = [section.body for section in sections] + [value for s in sections for _, value in s.attributes]
    for nonce in set(done.rendered.nonces.values()):
        assert not any(disguise in text for disguise in [nonce, *disguises(nonce)] for text in shown)
