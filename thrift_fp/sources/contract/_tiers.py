"""The trust tiers a search may return, checked element by element at the sources boundary."""

from __future__ import annotations

from typing import cast

from returns.result import Failure, Result, Success

from thrift_fp._args import CheckedStringsArg, as_strings
from thrift_fp.records import TRUST_TIERS, TrustTier
from thrift_fp.sources.contract._errors import InvalidTrustTier


def checked_tiers(tiers: CheckedStringsArg) -> Result[tuple[TrustTier, ...], InvalidTrustTier]:
    """``tiers`` as a tuple once each element is a known tier; one ``str`` is one tier, never its
    letters. beartype checks a sampled element only, so each is checked here, and anything else
    (another type, an unhashable value, a misspelt tier) is an error value.

    >>> checked_tiers("first-party").unwrap()
    ('first-party',)
    >>> checked_tiers(["first-party", 3]).failure().message
    'trust tier 3 is not one of first-party, third-party-public, third-party-private'
    """
    chosen = as_strings(tiers)
    elements: tuple[object, ...] = chosen  # not yet known to be str: as_strings does not check
    for tier in elements:
        if not isinstance(tier, str) or tier not in TRUST_TIERS:
            return Failure(InvalidTrustTier(tier, TRUST_TIERS))
    # Each element was just checked to be one of the TrustTier literals.
    return Success(cast("tuple[TrustTier, ...]", chosen))
