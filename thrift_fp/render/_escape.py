"""Attribute values: written bare when that is unambiguous, otherwise quoted and escaped, so a value
can never end its quotes, open a tag, or carry an invisible or control character. Outside the
envelopes, a name a document chose is shown as `quote_untrusted` quotes it (the same helper error
messages use)."""

from __future__ import annotations

import re
from typing import Final

from thrift_fp._shown import quote_untrusted, shown

__all__ = ["attribute", "escape_attribute", "quote_untrusted"]

# "&" first, so the entities the later replacements introduce are not escaped twice.
_ENTITIES: Final = (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ('"', "&quot;"))
# Outside quotes, spaces and these would end the value, start another attribute or look like markup.
_BARE: Final = re.compile(r"[^\s\"'<>&=`]+")


def escape_attribute(value: str | int | float) -> str:
    """``value`` as text with ``& < > "`` escaped and every non-printable character (controls, line
    and paragraph separators, format characters such as zero-width joiners, lone surrogates) written
    as a numeric character reference; numbers go through the same path.

    >>> escape_attribute('a "b" <c> & d')
    'a &quot;b&quot; &lt;c&gt; &amp; d'
    >>> escape_attribute("line\\nbreak\\u200b"), escape_attribute(0.25)
    ('line&#xa;break&#x200b;', '0.25')
    """
    # shown(): an int past Python's 4300-digit str() limit is described, not printed (str raises).
    text = value if isinstance(value, str) else shown(value) if isinstance(value, int) else str(value)
    for raw, entity in _ENTITIES:
        text = text.replace(raw, entity)
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() else f"&#x{ord(char):x};" for char in text)


def attribute(name: str, value: str) -> str:
    """`` name=value`` with the value bare when it is printable, non-empty and free of spaces and
    markup characters; otherwise `` name="…"`` escaped (a bare value costs fewer tokens).

    >>> attribute("src", "corpus/shedding.md") + attribute("tool", "web search") + attribute("kind", "")
    ' src=corpus/shedding.md tool="web search" kind=""'
    """
    if value.isprintable() and _BARE.fullmatch(value):
        return f" {name}={value}"
    return f' {name}="{escape_attribute(value)}"'
