"""Arranging envelopes into the rendered text: tiers in order, each tier in its own order."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from types import MappingProxyType
from typing import Final

from thrift_fp.render._envelope import CORPUS_CLOSE, CORPUS_OPEN, DIRECTIVE_PIECE, Tier, envelope


_THIRD_PARTY_TIERS: Final[tuple[Tier, ...]] = ("third-party-public", "third-party-private")


@dataclass(frozen=True, slots=True)
class Entry:
    """What the layout needs of one record: its fields and the exact body to put in its envelope."""

    record_id: str
    trust_tier: Tier
    body: str
    source: str | None
    kind: str | None
    score: float | None
    created_at: datetime

    def envelope(self, nonce: str) -> str:
        """This record's envelope with its separator (its charged share of the text).

        >>> from datetime import datetime, timezone
        >>> when = datetime(2026, 1, 2, tzinfo=timezone.utc)
        >>> print(Entry("a", "third-party-private", "hi", None, None, None, when).envelope("e" * 32), end="")
        <untrusted_content_eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee kind="retrieved-third-party-private" nonce="eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee" created_at="2026-01-02T00:00:00+00:00">
        hi
        </untrusted_content_eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee>
        <BLANKLINE>
        """
        return envelope(
            self.trust_tier,
            nonce,
            self.body,
            source=self.source,
            kind=self.kind,
            score=self.score,
            created_at=self.created_at,
        )


def _third_party(entries: Sequence[Entry], tier: Tier) -> list[Entry]:
    return sorted(
        (entry for entry in entries if entry.trust_tier == tier),
        key=lambda entry: (entry.created_at, entry.record_id),
    )


def compose(entries: Sequence[Entry], nonces: MappingProxyType[str, str]) -> str:
    """Directive, first-party corpus (input order), then public and private third-party envelopes
    (each by ``created_at``, then id); no entries → ``''``.

    >>> compose((), MappingProxyType({}))
    ''
    """
    if not entries:
        return ""
    first_party = [entry for entry in entries if entry.trust_tier == "first-party"]
    pieces = [DIRECTIVE_PIECE]
    if first_party:
        pieces += [CORPUS_OPEN, *(entry.envelope(nonces[entry.record_id]) for entry in first_party), CORPUS_CLOSE]
    for tier in _THIRD_PARTY_TIERS:
        third_party = _third_party(entries, tier)
        pieces += (entry.envelope(nonces[entry.record_id]) for entry in third_party)
    return "".join(pieces)
