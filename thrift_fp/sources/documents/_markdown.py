"""Markdown headings found by markdown-it-py (the ``docs`` extra), not by a regex.

The text stays the source itself: passages are verbatim slices of the Markdown, and only
the heading positions and titles come from the parser (so ``#`` inside code fences, setext
underlines and headings in HTML blocks are told apart as CommonMark says).
"""

from __future__ import annotations

import re
from typing import Any, Final

from returns.result import Failure, Result, Success

from thrift_fp.sources.contract import MissingParser
from thrift_fp.sources.documents._structure import Heading, StructuredText

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
    # Block structure only: inline parsing of every paragraph would double the cost, and only
    # heading titles need it (all of them in one inline pass below). Lists are not parsed
    # either: a heading is only ever taken at the top level, and list parsing was over half of
    # the block cost; the price is that a '#' line indented inside a list item reads as a heading.
    parser = MarkdownIt("commonmark").disable(["inline", "text_join", "list"])
    tokens = parser.parse(text)
    starts = _line_starts(text)
    found: list[tuple[int, int, int, str]] = []
    for i, token in enumerate(tokens):
        if token.type != "heading_open" or token.level != 0 or token.map is None:
            continue
        first, last = token.map
        start = starts[first]
        end = min(starts[last], len(text))
        while end > start and text[end - 1] in "\r\n":
            end -= 1
        found.append((start, end, int(token.tag[1:]), tokens[i + 1].content.replace("\n", " ")))
    titles = _titles(parser.enable(["inline"]), [raw for _, _, _, raw in found])
    headings = tuple(
        Heading(start, end, level, title) for (start, end, level, _), title in zip(found, titles, strict=True)
    )
    return Success(StructuredText(text, headings))


def _titles(parser: Any, raw: list[str]) -> list[str]:
    # Any: markdown-it's class is imported only when a document is parsed (the extra is lazy).
    # One inline pass over every title, one per line: code spans and emphasis give their text.
    if not raw:
        return []
    titles: list[list[str]] = [[]]
    for child in parser.parseInline("\n".join(raw))[0].children or []:
        if child.type in {"softbreak", "hardbreak"}:
            titles.append([])
        elif child.type in {"text", "code_inline"}:
            titles[-1].append(child.content)
    if len(titles) != len(raw):
        # A code span or other inline run crossed from one title into the next: one by one.
        return [_titles(parser, [one])[0] for one in raw] if len(raw) > 1 else [" ".join(raw[0].split())]
    return [_SPACE.sub(" ", "".join(parts)).strip() for parts in titles]
