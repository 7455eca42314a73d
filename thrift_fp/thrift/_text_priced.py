"""The shape of an item whose own token estimate is the plain count of its text.

Thrift counts every text of a fit in one batch. An item with its own ``estimate_tokens`` is
normally asked for its count; but when its class declares, on the class itself, the attribute
named by `TEXT_PRICED` as ``True``, it promises that ``estimate_tokens(encoding)`` is exactly the
count of its ``content`` whenever that content is a ``str`` (or a static `Tokenizable`). Thrift
then counts that text in its batch instead: the same count, without a call and a ``Result`` per
item. A record class implements the shape; thrift never imports it (data flows one way).

Only the class's own declaration counts, not an inherited one: a subclass may price itself
differently, and must declare the shape again to keep the fast path.
"""

from __future__ import annotations

from typing import Any, Final, no_type_check

from thrift_fp.tokens import Tokenizable

__all__ = ["TEXT_PRICED", "TextPriced", "priced_text", "text_priced"]

TEXT_PRICED: Final = "estimate_counts_content"


@no_type_check
class TextPriced:
    """The shape's two checks. Unchecked at run time (``no_type_check`` on a class is what the
    beartype claw honours): they run once per retrievable per fit."""

    @staticmethod
    def declared(kind: type) -> bool:
        """Whether instances of exactly ``kind`` declare the shape.

        >>> class Record:
        ...     estimate_counts_content = True
        >>> class Priced(Record):
        ...     pass
        >>> TextPriced.declared(Record), TextPriced.declared(Priced), TextPriced.declared(str)
        (True, False, False)
        """
        return vars(kind).get(TEXT_PRICED) is True

    @staticmethod
    def text(item: Any) -> str | None:
        """The text thrift counts for ``item`` in its batch instead of calling its estimator, or
        ``None`` (call it, or measure the content as usual).

        >>> class Record:
        ...     estimate_counts_content = True
        ...     def __init__(self, content: object) -> None:
        ...         self.content = content
        >>> TextPriced.text(Record("body")), TextPriced.text(Record(Tokenizable("static"))), TextPriced.text(Record(3))
        ('body', 'static', None)
        """
        if vars(type(item)).get(TEXT_PRICED) is not True:
            return None
        content = item.content
        if type(content) is str:
            return content
        if type(content) is Tokenizable and type(content.value) is str:
            return content.value
        return None


# The per-retrievable calls, bound once.
text_priced: Final = TextPriced.declared
priced_text: Final = TextPriced.text
