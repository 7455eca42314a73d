"""A document as the passage splitter sees it: its text and where its headings are.

Every parser (Markdown, reStructuredText, HTML, plain text) produces a `StructuredText`;
the splitter in `_sections` needs nothing else, so a new format is only a new parser.
"""

from __future__ import annotations

from thrift_fp._value import value


@value
class Heading:
    """A heading: ``text[start:end]`` is its full markup (underlines included), ``level`` 1 is the top."""

    start: int
    end: int
    level: int
    title: str


@value
class StructuredText:
    """Text with its headings in order; headings never overlap and lie inside ``text``.

    >>> doc = StructuredText("# A\\n\\nbody", (Heading(0, 3, 1, "A"),))
    >>> doc.text[doc.headings[0].start : doc.headings[0].end]
    '# A'
    """

    text: str
    headings: tuple[Heading, ...] = ()


def plain_structure(text: str) -> StructuredText:
    """Plain text has no headings: one section, split on paragraphs.

    >>> plain_structure("one\\n\\ntwo").headings
    ()
    """
    return StructuredText(text)
