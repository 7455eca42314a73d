"""Arranging records into the rendered text: blocks in tier order, each block in its own order."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from thrift_fp.render._envelope import DIRECTIVE_PIECE, TIERS, Tier, block_close, block_open, section
from thrift_fp.render._fields import Field, date_text, score_text


@dataclass(frozen=True, slots=True)
class Entry:
    """What the layout needs of one record: its fields and the exact body to put in its section."""

    record_id: str
    trust_tier: Tier
    body: str
    source: str | None
    kind: str | None
    score: float | None
    created_at: datetime
    updated_at: datetime

    def attributes(self, fields: Sequence[Field]) -> tuple[tuple[str, str], ...]:
        """The rendered attributes for ``fields`` (already in rendering order); a field the record
        lacks (``None``) is left out, never rendered empty, which would claim a value.

        >>> from datetime import timezone
        >>> when = datetime(2026, 1, 2, 9, 30, tzinfo=timezone.utc)
        >>> entry = Entry("a", "third-party-public", "hi", "web_search", None, 0.25, when, when)
        >>> entry.attributes(("id", "source", "kind", "score", "date"))
        (('id', 'a'), ('tool', 'web_search'), ('score', '.25'), ('date', '2026-01-02'))
        """
        # Only the selected fields are formatted: this runs for every candidate of every fit.
        pairs: list[tuple[str, str]] = []
        for field in fields:
            if field == "source":
                if self.source is not None:
                    pairs.append(("src" if self.trust_tier == "first-party" else "tool", self.source))
            elif field == "score":
                if self.score is not None:
                    pairs.append(("score", score_text(self.score)))
            elif field == "date":
                pairs.append(("date", date_text(self.created_at)))
            elif field == "kind":
                if self.kind is not None:
                    pairs.append(("kind", self.kind))
            elif field == "id":
                pairs.append(("id", self.record_id))
            else:
                pairs.append((field, (self.created_at if field == "created_at" else self.updated_at).isoformat()))
        return tuple(pairs)

    def section(self, nonce: str, fields: Sequence[Field]) -> str:
        """This record's section with its separator (its own charged share of the text).

        >>> from datetime import timezone
        >>> when = datetime(2026, 1, 2, tzinfo=timezone.utc)
        >>> print(Entry("a", "first-party", "hi", "kb/a.md", None, None, when, when).section("9" * 20, ("source",)), end="")
        <data99999999999999999999 src=kb/a.md>
        hi
        """
        return section(nonce, self.attributes(fields), self.body)


def ordered_blocks(entries: Sequence[Entry]) -> tuple[tuple[Tier, tuple[Entry, ...]], ...]:
    """The non-empty blocks in tier order: first-party in input order, third-party by
    ``created_at``, then id.

    >>> ordered_blocks(())
    ()
    """
    blocks: list[tuple[Tier, tuple[Entry, ...]]] = []
    for tier in TIERS:
        mine = [entry for entry in entries if entry.trust_tier == tier]
        if tier != "first-party":
            mine.sort(key=lambda entry: (entry.created_at, entry.record_id))
        if mine:
            blocks.append((tier, tuple(mine)))
    return tuple(blocks)


def compose(entries: Sequence[Entry], nonces: Mapping[Tier, str], fields: Sequence[Field]) -> str:
    """Directive, then each non-empty block (`ordered_blocks`) with its nonce; no entries → ``''``.

    >>> compose((), {}, ())
    ''
    """
    if not entries:
        return ""
    pieces = [DIRECTIVE_PIECE]
    for tier, block in ordered_blocks(entries):
        nonce = nonces[tier]
        pieces += [block_open(tier, nonce), *(entry.section(nonce, fields) for entry in block), block_close(tier, nonce)]
    return "".join(pieces)
