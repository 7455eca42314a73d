"""HTML as text with its headings, through selectolax (the ``docs`` extra).

Markup goes, text stays: block elements become paragraphs, ``<pre>`` keeps its lines,
``h1``–``h6`` become heading lines, and script, style, template, navigation, buttons (the
"copy" label of a code block), footers, the page's own header and other non-content elements
are dropped. Code blocks side by side in one ``<pre>`` (a module and a CommonJS variant) stay
apart, a blank line between them. The walk uses its own stack, so nesting depth is bounded
by memory, never by Python's recursion limit.
"""

from __future__ import annotations

import re
from typing import Any, Final

from returns.result import Failure, Result, Success

from thrift_fp.sources.contract import MissingParser
from thrift_fp.sources.documents._structure import Heading, StructuredText

_DROPPED: Final = frozenset(
    {
        "head", "script", "style", "noscript", "template", "svg", "nav", "iframe", "object", "button", "select",
        "input", "footer",
    }
)
# A page's own <header> (site name, theme toggles, search) is interface, not content; a
# <header> inside the content (an article's title) is kept.
_CONTENT: Final = frozenset({"article", "main", "section"})
_BLOCKS: Final = frozenset(
    {
        "address", "article", "aside", "blockquote", "body", "dd", "details", "div", "dl", "dt", "fieldset",
        "figcaption", "figure", "footer", "form", "header", "hr", "li", "main", "ol", "p", "section",
        "summary", "table", "tr", "ul", "br", "caption", "pre", "h1", "h2", "h3", "h4", "h5", "h6",
    }
)
_CELLS: Final = frozenset({"td", "th"})
_SPACE: Final = re.compile(r"\s+")
# Permalink marks that documentation generators append to headings ("#", "¶", "[src]").
_MARKS: Final = re.compile(r"(?:\s*(?:#|¶|§|\[src\]))+\s*$")


class _Writer:
    """Collects paragraphs and heading lines, and where each heading lands in the output."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.length = 0
        self.line: list[str] = []
        self.headings: list[Heading] = []

    def _emit(self, text: str) -> None:
        self.parts.append(text)
        self.length += len(text)

    def flush(self) -> None:
        content = " ".join("".join(self.line).split())
        self.line = []
        if content:
            self._emit(("\n\n" if self.length else "") + content)

    def verbatim(self, text: str) -> None:
        self.flush()
        body = text.strip("\n")
        if body.strip():
            self._emit(("\n\n" if self.length else "") + body)

    def heading(self, level: int, raw: str) -> None:
        self.flush()
        title = _MARKS.sub("", " ".join(raw.split()))
        if title:
            self._emit("\n\n" if self.length else "")
            self.headings.append(Heading(self.length, self.length + len(title), level, title))
            self._emit(title)


def _in_content(node: Any) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.tag in _CONTENT:
            return True
        parent = parent.parent
    return False


def _pre_text(node: Any) -> str:
    # Each <code> child is its own block; interface elements inside the <pre> are dropped.
    blocks: list[str] = []
    loose: list[str] = []
    for child in node.iter(include_text=True):
        tag: str = child.tag
        if tag == "-text":
            loose.append(child.text_content or "")
        elif tag == "code":
            blocks.extend(part for part in ("".join(loose).strip("\n"), child.text(deep=True).strip("\n")) if part.strip())
            loose = []
        elif tag not in _DROPPED and not tag.startswith("-"):
            loose.append(child.text(deep=True))
    if "".join(loose).strip():
        blocks.append("".join(loose).strip("\n"))
    return "\n\n".join(blocks)


def html_structure(text: str, label: str = "<html>") -> Result[StructuredText, MissingParser]:
    """The readable text of an HTML document, with its ``h1``–``h6`` headings.

    >>> doc = html_structure("<h1>fs <a>#</a></h1><p>File <b>system</b>.</p><script>x()</script>"
    ...                      "<h2>readFile</h2><pre>a\\n  b</pre>").unwrap()
    >>> doc.text
    'fs\\n\\nFile system.\\n\\nreadFile\\n\\na\\n  b'
    >>> [(h.level, h.title) for h in doc.headings]
    [(1, 'fs'), (2, 'readFile')]
    >>> html_structure("<header><h1>Site</h1></header><pre><code>a;</code><code>b;</code>"
    ...                "<button>copy</button></pre>").unwrap().text
    'a;\\n\\nb;'
    """
    try:
        from selectolax.lexbor import LexborHTMLParser
    except ImportError:
        return Failure(MissingParser(label, "HTML", "selectolax"))
    tree = LexborHTMLParser(text)
    root = tree.body if tree.body is not None else tree.root
    writer = _Writer()
    if root is None:
        return Success(StructuredText(""))
    # (node, entering): a block element is visited again on leaving, to end its paragraph.
    # Any: selectolax's node class is importable only with selectolax, which stays lazy.
    pending: list[tuple[Any, bool]] = [(root, True)]
    while pending:
        node, entering = pending.pop()
        tag: str = node.tag
        if not entering:
            writer.flush()
            continue
        if tag == "-text":
            writer.line.append(node.text_content or "")
        elif tag in _DROPPED or tag.startswith("-") or (tag == "header" and not _in_content(node)):
            continue
        elif len(tag) == 2 and tag[0] == "h" and tag[1] in "123456":
            writer.heading(int(tag[1]), node.text(deep=True))
        elif tag == "pre":
            writer.verbatim(_pre_text(node))
        else:
            if tag in _CELLS:
                writer.line.append(" ")
            if tag in _BLOCKS:
                writer.flush()
                pending.append((node, False))
            children = list(node.iter(include_text=True))
            pending.extend((child, True) for child in reversed(children))
    writer.flush()
    return Success(StructuredText("".join(writer.parts), tuple(writer.headings)))
