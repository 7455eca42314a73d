"""Attribute escaping: attribute values can never end their quotes or open a tag."""

from __future__ import annotations

# "&" first, so the entities the later replacements introduce are not escaped twice.
_ENTITIES = (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ('"', "&quot;"))


def escape_attribute(value: str | int | float) -> str:
    """``value`` as text with ``& < > "`` escaped; numbers go through the same path.

    >>> escape_attribute('a "b" <c> & d')
    'a &quot;b&quot; &lt;c&gt; &amp; d'
    >>> escape_attribute(0.25)
    '0.25'
    """
    text = value if isinstance(value, str) else str(value)
    for raw, entity in _ENTITIES:
        text = text.replace(raw, entity)
    return text
