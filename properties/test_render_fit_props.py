"""fit_and_render properties: costs are exact, and the rendered block fits the retrievables' share."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from properties.render_strategies import KEY, RecordSpec, build, nonce_modes, record_specs
from thrift_fp.records import Retrievable
from thrift_fp.render import SAFETY_DIRECTIVE, KeyedNonce, NonceMode, fit_and_render, render_retrievables
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


@given(record_specs(), nonce_modes, encodings, st.text(max_size=30), st.integers(0, 100), slack)
def test_fitted_block_fits_the_retrievables_share_and_costs_are_exact(
    specs: tuple[RecordSpec, ...],
    mode: NonceMode,
    encoding: str,
    system_prompt: str,
    reserve: int,
    slack: int,
) -> None:
    records = build(specs)
    everything = render_retrievables(records, encoding=encoding, nonce=mode).unwrap().tokens
    window = max(0, everything + _count(system_prompt, encoding) + reserve + slack)
    options = ThriftOptions(output_reserve=reserve, encoding=encoding)
    done = fit_and_render(WorkingSet(system_prompt=system_prompt, retrievables=records), window, None, options, nonce=mode).unwrap()

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
