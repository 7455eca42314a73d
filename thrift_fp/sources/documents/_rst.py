"""reStructuredText section titles, found by their underlines (and optional overlines).

A title is a line starting in column 0 whose next line repeats one punctuation character
at least as long as the title; with an overline, the line above repeats the same character.
Levels follow the order in which each (character, overline) style first appears, as in
docutils. Indented lines (literal blocks, directive bodies) can never be titles, and a lone
punctuation line between blank lines is a transition, not a title. Parsing the whole
document with docutils would give the same sections at many times the cost, and Sphinx's
roles and directives would need registering to parse at all.
"""

from __future__ import annotations

import re
from typing import Final

from thrift_fp.sources.documents._structure import Heading, StructuredText

_ADORNMENT: Final = re.compile(r"([!-/:-@\[-`{-~])\1*[ \t]*")
_LINE: Final = re.compile(r"[^\n]*(?:\n|$)")


def _adornment(line: str) -> str | None:
    match = _ADORNMENT.fullmatch(line)
    return line[0] if match is not None and len(line.rstrip()) >= 2 else None


def rst_structure(text: str) -> StructuredText:
    """The reStructuredText source with its section titles.

    >>> doc = rst_structure("=====\\nTitle\\n=====\\n\\nIntro.\\n\\nSub\\n---\\n\\n  Indented\\n  --------\\n")
    >>> [(h.level, h.title, doc.text[h.start:h.end]) for h in doc.headings]
    [(1, 'Title', '=====\\nTitle\\n====='), (2, 'Sub', 'Sub\\n---')]
    """
    spans = [(m.start(), m.end()) for m in _LINE.finditer(text) if m.start() < len(text)]
    lines = [text[a:b].rstrip("\r\n") for a, b in spans]
    styles: list[tuple[str, bool]] = []
    headings: list[Heading] = []
    i = 0
    while i + 1 < len(lines):
        title, under = lines[i], lines[i + 1]
        char = _adornment(under)
        eligible = title.strip() and _adornment(title) is None and (i == 0 or not lines[i - 1].strip()
                                                                     or _adornment(lines[i - 1]) == char)
        overline = i > 0 and char is not None and _adornment(lines[i - 1]) == char
        indented_ok = overline or not title[:1].isspace()
        if char is not None and eligible and indented_ok and len(under.rstrip()) >= len(title.strip()):
            style = (char, overline)
            if style not in styles:
                styles.append(style)
            first = i - 1 if overline else i
            end = spans[i + 1][0] + len(lines[i + 1])
            headings.append(Heading(spans[first][0], end, styles.index(style) + 1, " ".join(title.split())))
            i += 2
            continue
        i += 1
    return StructuredText(text, tuple(headings))
