"""The text of one envelope, and of the fixed pieces around envelopes.

Layout (every piece ends with its own separator, so the rendered text is the plain concatenation)::

    {SAFETY_DIRECTIVE}\\n\\n
    <retrieved_corpus>\\n
    <retrieved_{nonce} source="…" nonce="{nonce}" created_at="…" kind="…" score="…">\\n{body}\\n</retrieved_{nonce}>\\n
    </retrieved_corpus>\\n\\n
    <untrusted_content_{nonce} kind="retrieved-third-party-public" tool="…" nonce="{nonce}" created_at="…" content_kind="…" score="…">\\n{body}\\n</untrusted_content_{nonce}>\\n\\n

An attribute whose value is ``None`` is left out (never rendered as an empty string, which would
claim a value). Every boundary between pieces is ``>`` or ``.``, then newlines, then ``<``: no
tiktoken pre-tokenizer piece spans such a boundary, so the tokens of the whole text are exactly the
sum of the tokens of the pieces.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Final, Literal

from thrift_fp.render._directive import SAFETY_DIRECTIVE
from thrift_fp.render._escape import escape_attribute

Tier = Literal["first-party", "third-party-public", "third-party-private"]

FIRST_PARTY_TAG: Final = "retrieved"
THIRD_PARTY_TAG: Final = "untrusted_content"
DIRECTIVE_PIECE: Final = SAFETY_DIRECTIVE + "\n\n"
CORPUS_OPEN: Final = "<retrieved_corpus>\n"
CORPUS_CLOSE: Final = "</retrieved_corpus>\n\n"
# First-party children sit inside the corpus, one per line; top-level envelopes are blank-line separated.
_FIRST_PARTY_SEPARATOR: Final = "\n"
_THIRD_PARTY_SEPARATOR: Final = "\n\n"
THIRD_PARTY_KINDS: Final = {
    "third-party-public": "retrieved-third-party-public",
    "third-party-private": "retrieved-third-party-private",
}


def _attributes(pairs: Sequence[tuple[str, str | float | None]]) -> str:
    return "".join(f' {name}="{escape_attribute(value)}"' for name, value in pairs if value is not None)


def _wrap(tag: str, nonce: str, attributes: str, body: str, separator: str) -> str:
    name = f"{tag}_{nonce}"
    return f"<{name}{attributes}>\n{body}\n</{name}>{separator}"


def envelope(
    tier: Tier,
    nonce: str,
    body: str,
    *,
    source: str | None,
    kind: str | None,
    score: float | None,
    created_at: datetime,
) -> str:
    """One record's envelope with its trailing separator; ``body`` is verbatim.

    >>> from datetime import datetime, timezone
    >>> when = datetime(2026, 1, 2, tzinfo=timezone.utc)
    >>> print(envelope("first-party", "ab" * 16, "Refunds: 30 days.", source="kb/refunds.md",
    ...                kind="policy", score=0.5, created_at=when), end="")
    <retrieved_abababababababababababababababab source="kb/refunds.md" nonce="abababababababababababababababab" created_at="2026-01-02T00:00:00+00:00" kind="policy" score="0.5">
    Refunds: 30 days.
    </retrieved_abababababababababababababababab>
    >>> print(envelope("third-party-public", "cd" * 16, "a <b>", source="web_search",
    ...                kind=None, score=None, created_at=when), end="")
    <untrusted_content_cdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcd kind="retrieved-third-party-public" tool="web_search" nonce="cdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcd" created_at="2026-01-02T00:00:00+00:00">
    a <b>
    </untrusted_content_cdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcd>
    <BLANKLINE>
    """
    stamp = created_at.isoformat()
    if tier == "first-party":
        attributes = _attributes(
            (("source", source), ("nonce", nonce), ("created_at", stamp), ("kind", kind), ("score", score))
        )
        return _wrap(FIRST_PARTY_TAG, nonce, attributes, body, _FIRST_PARTY_SEPARATOR)
    attributes = _attributes(
        (
            ("kind", THIRD_PARTY_KINDS[tier]),
            ("tool", source),
            ("nonce", nonce),
            ("created_at", stamp),
            ("content_kind", kind),
            ("score", score),
        )
    )
    return _wrap(THIRD_PARTY_TAG, nonce, attributes, body, _THIRD_PARTY_SEPARATOR)
