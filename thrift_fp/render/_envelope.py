"""The text of each piece of a render: the directive, block wrappers, and one record's section.

Layout (every piece ends with its own separator, so the rendered text is the plain concatenation)::

    {SAFETY_DIRECTIVE}\\n\\n
    <corpus{n}>\\n
    <data{n} src=… score=… date=…>\\n{body}\\n          (one section per first-party record)
    </corpus{n}>\\n\\n
    <untrusted{m} tier=third-party-public>\\n
    <data{m} tool=… score=… date=…>\\n{body}\\n        (one section per public record)
    </untrusted{m}>\\n\\n
    (then the same for third-party-private)

Every tag carries its block's nonce, once. A record's section ends at the next tag with that nonce
(the next section's header or the block's closer), and a block ends only at its closer; no rendered
text shows a nonce (`_choose`), so no body can end, open or forge anything. Keeping one nonce per
block, not one per record, means a record pays for its nonce once (its header) instead of twice.

Every boundary between pieces is ``>``, ``.`` or a body's end, then newlines, then ``<``: no tiktoken
pre-tokenizer piece spans such a boundary, so the tokens of the whole text are exactly the sum of
the tokens of the pieces.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import repeat
from typing import Final, Literal

from thrift_fp.render._directive import SAFETY_DIRECTIVE
from thrift_fp.render._escape import attribute

Tier = Literal["first-party", "third-party-public", "third-party-private"]

TIERS: Final[tuple[Tier, ...]] = ("first-party", "third-party-public", "third-party-private")
"""The blocks, in rendering order."""

BLOCK_NAMES: Final = {"first-party": "corpus", "third-party-public": "third-party-public", "third-party-private": "third-party-private"}
"""What each block is called where it is named to a caller (nonce derivation, error messages)."""

DIRECTIVE_PIECE: Final = SAFETY_DIRECTIVE + "\n\n"
RECORD_TAG: Final = "data"
_WRAPPER_TAG: Final = {"first-party": "corpus", "third-party-public": "untrusted", "third-party-private": "untrusted"}
_TIER_ATTRIBUTE: Final = {"first-party": "", "third-party-public": " tier=third-party-public", "third-party-private": " tier=third-party-private"}


def block_open(tier: Tier, nonce: str) -> str:
    """The block's opening tag and its newline.

    >>> block_open("first-party", "7" * 20), block_open("third-party-private", "0" * 20)
    ('<corpus77777777777777777777>\\n', '<untrusted00000000000000000000 tier=third-party-private>\\n')
    """
    return f"<{_WRAPPER_TAG[tier]}{nonce}{_TIER_ATTRIBUTE[tier]}>\n"


def block_close(tier: Tier, nonce: str) -> str:
    """The block's closing tag and the blank line after it.

    >>> block_close("third-party-public", "1" * 20)
    '</untrusted11111111111111111111>\\n\\n'
    """
    return f"</{_WRAPPER_TAG[tier]}{nonce}>\n\n"


def section(nonce: str, attributes: Sequence[tuple[str, str]], body: str) -> str:
    """One record: its header tag (attributes in the given order), its verbatim body, a newline.

    >>> print(section("12345678901234567890", [("src", "kb/refunds.md"), ("score", ".5")], "30 days."), end="")
    <data12345678901234567890 src=kb/refunds.md score=.5>
    30 days.
    """
    rendered = "".join(attribute(name, value) for name, value in attributes)
    return f"<{RECORD_TAG}{nonce}{rendered}>\n{body}\n"


def sections(nonces: Sequence[str], columns: Sequence[Sequence[str]], bodies: Sequence[str]) -> list[str]:
    """`section` of many records at once: record *i* has nonce ``nonces[i]``, the rendered
    attributes ``column[i]`` of every column (``""`` when it lacks one; `attribute` text
    otherwise) and body ``bodies[i]``; each section is one C-level join of its parts.

    >>> sections(["12345678901234567890"], [[" src=kb/refunds.md"], [" score=.5"]], ["30 days."]) == [
    ...     section("12345678901234567890", [("src", "kb/refunds.md"), ("score", ".5")], "30 days.")]
    True
    """
    count = len(bodies)
    heads = map(f"<{RECORD_TAG}".__add__, nonces)
    return list(map("".join, zip(heads, *columns, repeat(">\n", count), bodies, repeat("\n", count))))
