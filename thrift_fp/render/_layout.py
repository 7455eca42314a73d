"""Arranging records into the rendered text: blocks in tier order, each block in its own order."""

# No `from __future__ import annotations` here: `Entry` is a NamedTuple, whose generated
# `__new__` beartype (under the suite) could not resolve string annotations for.

from collections.abc import Mapping, Sequence
from datetime import datetime
from itertools import repeat
from operator import attrgetter, methodcaller
from typing import Final, NamedTuple

from thrift_fp.render._envelope import DIRECTIVE_PIECE, TIERS, Tier, block_close, block_open, section
from thrift_fp.render._escape import attribute
from thrift_fp.render._fields import Field, _trim_score, date_text, score_text


class Entry(NamedTuple):
    """What the layout needs of one record: its fields and the exact body to put in its section.

    A named tuple rather than a frozen dataclass: `fit_and_render` builds one per candidate record
    per fit, and a frozen dataclass costs about four times as much to construct.
    """

    record_id: str
    trust_tier: Tier
    body: str
    source: str | None
    kind: str | None
    score: float | None
    created_at: datetime
    updated_at: datetime
    heading: str | None = None

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
            elif field == "heading":
                if self.heading is not None:
                    pairs.append(("heading", self.heading))
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


def attribute_columns(
    entries: Sequence[Entry], fields: Sequence[Field]
) -> tuple[list[str], list[list[str]]]:
    """Every entry's attributes for ``fields``, a column per field: the values shown (for the
    nonce check) and, per field, each entry's rendered attribute (`attribute`; ``""`` when the
    entry lacks that field). Row by row the same as `Entry.attributes` (then `attribute` on each
    pair), computed a field at a time: `fit_and_render` needs it for every candidate of every fit,
    and an attribute text shared by many entries (a day, a source) is escaped once.

    >>> from datetime import timezone
    >>> when = datetime(2026, 1, 2, 9, 30, tzinfo=timezone.utc)
    >>> entries = [Entry("a", "first-party", "x", "kb/a.md", None, 0.25, when, when),
    ...            Entry("b", "third-party-public", "y", None, None, None, when, when)]
    >>> attribute_columns(entries, ("source", "score", "date"))
    (['kb/a.md', '.25', '2026-01-02', '2026-01-02'], [[' src=kb/a.md', ''], [' score=.25', ''], [' date=2026-01-02', ' date=2026-01-02']])
    """
    shown: list[str] = []
    columns: list[list[str]] = []
    for field in fields:
        values = _field_values(entries, field)
        present = [value for value in values if value is not None]
        shown += present
        if field == "source":
            # The one field whose attribute name varies (by tier): each distinct value rendered
            # once per name.
            names = ["src" if tier == "first-party" else "tool" for tier in map(_trust_tier, entries)]
            rendered = {
                (name, value): attribute(name, value) for name, value in set(zip(names, values)) if value is not None
            }
            columns.append([
                "" if value is None else rendered[name, value] for name, value in zip(names, values, strict=True)
            ])
            continue
        # No (name, value) tuple per entry: the name is the field's own, so a distinct value
        # (a day, a score) is rendered once and looked up by the value string.
        name = _ATTRIBUTE_NAME.get(field, field)
        by_value: dict[str | None, str] = {value: attribute(name, value) for value in set(present)}
        by_value[None] = ""
        columns.append(list(map(by_value.__getitem__, values)))
    return shown, columns


# The attribute name each field renders under (`Entry.attributes`); ``source`` varies by tier.
_ATTRIBUTE_NAME: Final = {"score": "score", "date": "date", "kind": "kind", "id": "id", "heading": "heading"}


def _field_values(entries: Sequence[Entry], field: Field) -> list[str | None]:
    """Each entry's attribute value for ``field``, or ``None`` when it lacks it (`Entry.attributes`)."""
    if field == "source":
        return list(map(_source, entries))
    if field == "score":
        scores = list(map(_score, entries))
        # `score_text` is the two-decimal format, then a trim: formatted in C (``format``), trimmed
        # once per distinct formatted text (a few hundred at most).
        formatted = list(map(format, (0.0 if score is None else score for score in scores), repeat(".2f")))
        trimmed = {text: _trim_score(text) for text in set(formatted)}
        return [None if score is None else trimmed[text] for score, text in zip(scores, formatted, strict=True)]
    if field == "kind":
        return list(map(_kind, entries))
    if field == "heading":
        return list(map(_heading, entries))
    if field == "id":
        return list(map(_record_id, entries))
    # Formatted per entry, not per distinct value: equal datetimes can differ in zone or fold.
    if field == "date":
        # `date_text` in C-level steps: the (local) calendar day, then its ISO form.
        return list(map(_isoformat, map(_date, map(_created_at, entries))))
    return list(map(_isoformat, map(_updated_at if field == "updated_at" else _created_at, entries)))


_record_id = attrgetter("record_id")
_source, _kind, _trust_tier = attrgetter("source"), attrgetter("kind"), attrgetter("trust_tier")
_heading = attrgetter("heading")
_score = attrgetter("score")
_date, _isoformat = methodcaller("date"), methodcaller("isoformat")
_created_at = attrgetter("created_at")
_updated_at = attrgetter("updated_at")
