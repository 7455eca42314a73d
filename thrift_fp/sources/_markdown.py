"""Markdown headings found by markdown-it-py (the ``docs`` extra), not by a regex.

The text stays the source itself: passages are verbatim slices of the Markdown, and only
the heading positions and titles come from the parser (so ``#`` inside code fences, setext
underlines and headings in HTML blocks are told apart as CommonMark says).
"""

from __future__ import annotations

import re
from typing import Final

from returns.result import Failure, Result, Success

from thrift_fp.sources._errors import MissingParser
from thrift_fp.sources._structure import Heading, StructuredText

# markdown-it counts lines after normalising every line ending to "\n".
_LINE_END: Final = re.compile(r"\r\n?|\n")
_SPACE: Final = re.compile(r"\s+")


def _line_starts(text: str) -> list[int]:
    return [0, *(match.end() for match in _LINE_END.finditer(text)), len(text) + 1]


def markdown_structure(text: str, label: str = "<text>") -> Result[StructuredText, MissingParser]:
    """The Markdown source with its top-level headings (ATX and setext).

    >>> doc = markdown_structure("# fs\\n\\n```\\n# not a heading\\n```\\n\\nAPI\\n---\\n\\ntext").unwrap()
    >>> [(h.level, h.title, doc.text[h.start:h.end]) for h in doc.headings]
    [(1, 'fs', '# fs'), (2, 'API', 'API\\n---')]
    """
    try:
        from markdown_it import MarkdownIt
    except ImportError:
        return Failure(MissingParser(label, "Markdown", "markdown-it-py"))
    # Block structure only: inline parsing of every paragraph would double the cost, and
    # only heading titles need it.
    parser = MarkdownIt("commonmark")
    tokens = parser.disable(["inline", "text_join"]).parse(text)
    starts = _line_starts(text)
    headings: list[Heading] = []
    for i, token in enumerate(tokens):
        if token.type != "heading_open" or token.level != 0 or token.map is None:
            continue
        first, last = token.map
        children = parser.enable(["inline"]).parseInline(tokens[i + 1].content)[0].children or []
        title = "".join(child.content for child in children if child.type in {"text", "code_inline"})
        start = starts[first]
        end = min(starts[last], len(text))
        while end > start and text[end - 1] in "\r\n":
            end -= 1
        headings.append(Heading(start, end, int(token.tag[1:]), _SPACE.sub(" ", title).strip()))
    return Success(StructuredText(text, tuple(headings)))
