"""Trust tiers: who vouches for a retrieved record (no default; the producer must choose)."""

from __future__ import annotations

from typing import Final, Literal, get_args

TrustTier = Literal["first-party", "third-party-public", "third-party-private"]
"""How far a record's text may be trusted; the operator's choice, never the content's. No default."""

# first-party: deployer-vetted corpora; third-party-public: open web, search results, public APIs;
# third-party-private: user uploads, pasted attachments, partner APIs.
TRUST_TIERS: Final[tuple[TrustTier, ...]] = get_args(TrustTier)
"""Every `TrustTier`: what an operator may choose from."""
