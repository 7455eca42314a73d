"""Chunking text into passages of bounded token length, on paragraph boundaries.

Every passage is a verbatim slice ``text[start:end]`` of its input and what lies between
passages is whitespace only, so nothing but separators is ever lost. Paragraphs are packed
greedily up to the bound; a paragraph over the bound is split on lines, then sentences,
then words, and a single word over the bound on character boundaries. Bounds are checked
with the encoding's own count of the final passage text, never with a sum of parts.
"""

from __future__ import annotations

import bisect
import re

from typing import Final

from returns.result import Failure, Result, Success

from thrift_fp._value import value
from thrift_fp.sources.contract import InvalidChunkBound, SourceError, UnsplittableText
from thrift_fp.tokens import TokenEncoding
from thrift_fp.tokens._encoding import get_encoding

# One code point is at most 4 UTF-8 bytes, so at most 4 byte-level tokens in any
# tiktoken vocabulary: 8 leaves room and guarantees every text can be chunked.
MIN_PASSAGE_TOKENS: Final = 8
"""The smallest passage bound: every text can be chunked at it."""
# The largest bound an index run stores (a larger one is clamped to it: no passage is that long,
# so the passages are the same); the settings keep it as a small, printable int.
MAX_PASSAGE_TOKENS: Final = 2**31 - 1
"""The largest passage bound an index run stores (a larger one is clamped to it)."""
# The passage bound both stores index with unless told otherwise.
DEFAULT_MAX_TOKENS: Final = 256
"""The passage bound both stores index with unless told otherwise (``max_tokens=``)."""

_SEPARATORS: Final = (
    re.compile(r"\n[^\S\n]*\n\s*"),  # paragraphs: a blank line
    re.compile(r"\n\s*"),  # lines
    re.compile(r"(?<=[.!?;:])\s+"),  # sentences
    re.compile(r"\s+"),  # words
)
_FENCE: Final = re.compile(r"^[ ]{0,3}(```|~~~)", re.MULTILINE)
_HEADING: Final = re.compile(r"#{1,6}(\s|$)")
# A character-level split never looks further ahead than this many characters per token.
_MAX_CHARS_PER_TOKEN: Final = 64

_Span = tuple[int, int]


@value
class Passage:
    """One chunk of a text: ``text == source[start:end]``, ``tokens`` its exact count."""

    text: str
    start: int
    end: int
    tokens: int


def chunk_text(
    text: str,
    max_tokens: int = 256,
    *,
    encoding: str = "cl100k_base",
    markdown: bool = False,
) -> Result[tuple[Passage, ...], SourceError]:
    """Split ``text`` into passages of at most ``max_tokens`` tokens, in order.

    With ``markdown=True`` blank lines inside fenced code blocks do not split, and every
    heading starts a new passage.

    >>> [p.text for p in chunk_text("One.\\n\\nTwo.\\n\\n\\nThree.", 64).unwrap()]
    ['One.\\n\\nTwo.\\n\\n\\nThree.']
    >>> [p.text for p in chunk_text("# A\\n\\nx\\n\\n# B\\n\\ny", 64, markdown=True).unwrap()]
    ['# A\\n\\nx', '# B\\n\\ny']
    >>> chunk_text("   \\n\\n ").unwrap()
    ()
    >>> chunk_text("x", 2).failure().message
    'max_tokens=2 is too small: passages need at least 8 tokens'
    """
    if max_tokens < MIN_PASSAGE_TOKENS:
        return Failure(InvalidChunkBound(max_tokens, MIN_PASSAGE_TOKENS))
    resolved: Result[TokenEncoding, SourceError] = get_encoding(encoding)
    return resolved.bind(
        lambda enc: _Chunker(text, max_tokens, enc, _fenced_regions(text) if markdown else (), markdown)
        .chunk(_trim(text, 0, len(text)), 0)
        .map(tuple)
    )


def _fenced_regions(text: str) -> tuple[_Span, ...]:
    marks = [m.start() for m in _FENCE.finditer(text)]
    # An unclosed fence runs to the end of the text.
    if len(marks) % 2:
        marks.append(len(text))
    return tuple(zip(marks[::2], marks[1::2], strict=True))


def _trim(text: str, start: int, end: int) -> _Span:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


@value
class _Chunker:
    text: str
    bound: int
    encoding: TokenEncoding
    fences: tuple[_Span, ...]
    markdown: bool

    def chunk(self, span: _Span, level: int) -> Result[list[Passage], SourceError]:
        if span[0] >= span[1]:
            return Success([])
        if level == len(_SEPARATORS):
            return self._characters(span)
        units = self._units(span, level)
        counted: Result[tuple[int, ...], SourceError] = self.encoding.count_many(
            [self.text[a:b] for a, b in units]
        )
        return counted.bind(lambda counts: self._pack(units, counts, level))

    def _units(self, span: _Span, level: int) -> list[_Span]:
        units: list[_Span] = []
        cursor = span[0]
        for match in _SEPARATORS[level].finditer(self.text, span[0], span[1]):
            if level == 0 and self._in_fence(match.start()):
                continue
            units.append(_trim(self.text, cursor, match.start()))
            cursor = match.end()
        units.append(_trim(self.text, cursor, span[1]))
        return [unit for unit in units if unit[0] < unit[1]]

    def _in_fence(self, position: int) -> bool:
        # Fences are sorted and disjoint: only the last one starting before `position` can hold it.
        i = bisect.bisect_left(self.fences, (position, position)) - 1
        return i >= 0 and self.fences[i][0] < position < self.fences[i][1]

    def _starts_section(self, unit: _Span) -> bool:
        return self.markdown and _HEADING.match(self.text, unit[0], unit[1]) is not None

    def _pack(
        self, units: list[_Span], counts: tuple[int, ...], level: int
    ) -> Result[list[Passage], SourceError]:
        passages: list[Passage] = []
        i = 0
        while i < len(units):
            if counts[i] > self.bound:
                split = self.chunk(units[i], level + 1)
                if isinstance(split, Failure):
                    return split
                passages.extend(split.unwrap())
                i += 1
                continue
            # Greedy by the sum of parts, then verified by one exact count of the joined slice.
            j, total = i + 1, counts[i]
            while (
                j < len(units)
                and total + counts[j] <= self.bound
                and not (level == 0 and self._starts_section(units[j]))
            ):
                total += counts[j]
                j += 1
            tokens = counts[i]
            while j - i > 1:
                joined = self.encoding.count(self.text[units[i][0] : units[j - 1][1]])
                if isinstance(joined, Failure):
                    return joined
                tokens = joined.unwrap()
                if tokens <= self.bound:
                    break
                j -= 1
                tokens = counts[i]
            start, end = units[i][0], units[j - 1][1]
            passages.append(Passage(self.text[start:end], start, end, tokens))
            i = j
        return Success(passages)

    def _characters(self, span: _Span) -> Result[list[Passage], SourceError]:
        passages: list[Passage] = []
        start, end = span
        while start < end:
            first = self.encoding.count(self.text[start : start + 1])
            if isinstance(first, Failure):
                return first
            if first.unwrap() > self.bound:
                return Failure(UnsplittableText(self.bound, self.text[start]))
            # Largest verified prefix: lo always fits, hi bounds the search.
            lo, lo_tokens = start + 1, first.unwrap()
            hi = min(end, start + self.bound * _MAX_CHARS_PER_TOKEN)
            while lo < hi:
                mid = (lo + hi + 1) // 2
                counted = self.encoding.count(self.text[start:mid])
                if isinstance(counted, Failure):
                    return counted
                if counted.unwrap() <= self.bound:
                    lo, lo_tokens = mid, counted.unwrap()
                else:
                    hi = mid - 1
            passages.append(Passage(self.text[start:lo], start, lo, lo_tokens))
            start = lo
        return Success(passages)
