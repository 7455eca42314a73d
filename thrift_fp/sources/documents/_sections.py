"""Structure-aware passages: split a document on its headings, never emit a bare heading.

A section runs from its heading to the next heading (text before the first heading is a
section with no heading). Sections smaller than ``min_tokens``, and sections that are only a
heading, are merged with the sections that follow them (siblings or descendants) while the
merged text stays within ``max_tokens``; a section still too small joins the passage before
it when that fits. A section larger than ``max_tokens`` is split on paragraphs, lines,
sentences and words (see `chunk_text`), and its heading — with any bare headings right above
it — stays at the front of its first piece. (Only headings so long that they leave less than
``MIN_PASSAGE_TOKENS`` of room for text are split as text themselves.) Every passage carries its heading path, for
example ``("fs", "Promises API", "fsPromises.readFile")``.

Every passage is a verbatim slice of the document text and what lies between passages is
whitespace only, so nothing but separators is lost; every passage's exact token count is
within ``max_tokens``.
"""

from __future__ import annotations

from typing import Final

from returns.result import Failure, Result, Success

from thrift_fp._value import value
from thrift_fp.sources.documents._chunk import MIN_PASSAGE_TOKENS, Passage, _Chunker, _fenced_regions, _trim
from thrift_fp.sources.contract import HEADING_SEPARATOR, InvalidChunkBound, SourceError
from thrift_fp.sources.documents._structure import Heading, StructuredText
from thrift_fp.tokens import TokenEncoding
from thrift_fp.tokens._encoding import get_encoding


@value
class SectionPassage:
    """One passage: ``text == document.text[start:end]``, exact ``tokens``, and its heading path."""

    text: str
    start: int
    end: int
    tokens: int
    heading_path: tuple[str, ...]

    @property
    def heading(self) -> str:
        """The heading path as one line, ``fs › Promises API``.

        >>> SectionPassage("x", 0, 1, 1, ("fs", "Promises API")).heading
        'fs › Promises API'
        """
        return HEADING_SEPARATOR.join(self.heading_path)


@value
class _Section:
    start: int
    body: int
    end: int
    path: tuple[str, ...]
    has_body: bool


def default_min_tokens(max_tokens: int) -> int:
    """The merge threshold used unless one is given: a quarter of the bound.

    >>> default_min_tokens(256)
    64
    """
    return max_tokens // 4


def section_passages(
    document: StructuredText,
    max_tokens: int = 256,
    *,
    encoding: str = "cl100k_base",
    min_tokens: int | None = None,
    fenced: bool = False,
) -> Result[tuple[SectionPassage, ...], SourceError]:
    """Split ``document`` into heading-aware passages of at most ``max_tokens`` tokens.

    ``fenced=True`` keeps blank lines inside Markdown code fences from splitting a passage.

    >>> from thrift_fp.sources.documents._markdown import markdown_structure
    >>> doc = markdown_structure("# fs\\n\\n## Promises API\\n\\n### readFile\\n\\nReads a file.").unwrap()
    >>> [(p.text, p.heading) for p in section_passages(doc, 64).unwrap()]
    [('# fs\\n\\n## Promises API\\n\\n### readFile\\n\\nReads a file.', 'fs › Promises API › readFile')]
    >>> section_passages(doc, 4).failure().message
    'max_tokens=4 is too small: passages need at least 8 tokens'
    """
    if max_tokens < MIN_PASSAGE_TOKENS:
        return Failure(InvalidChunkBound(max_tokens, MIN_PASSAGE_TOKENS))
    resolved: Result[TokenEncoding, SourceError] = get_encoding(encoding)
    if isinstance(resolved, Failure):
        return resolved
    minimum = default_min_tokens(max_tokens) if min_tokens is None else min(max(min_tokens, 0), max_tokens)
    fences = _fenced_regions(document.text) if fenced else ()
    splitter = _Splitter(document.text, max_tokens, minimum, resolved.unwrap(), fences)
    return splitter.passages(_sections(document))


def _sections(document: StructuredText) -> list[_Section]:
    text = document.text
    headings: list[Heading] = []
    for heading in document.headings:
        # Defensive against a parser's overlapping or out-of-range headings: keep the first.
        if 0 <= heading.start < heading.end <= len(text) and (not headings or heading.start >= headings[-1].end):
            headings.append(heading)
    sections: list[_Section] = []
    first = headings[0].start if headings else len(text)
    start, end = _trim(text, 0, first)
    if start < end:
        sections.append(_Section(start, start, end, (), True))
    stack: list[tuple[int, str]] = []
    for i, heading in enumerate(headings):
        while stack and stack[-1][0] >= heading.level:
            stack.pop()
        stack.append((heading.level, heading.title))
        following = headings[i + 1].start if i + 1 < len(headings) else len(text)
        start, end = _trim(text, heading.start, following)
        body_start, body_end = _trim(text, heading.end, max(end, heading.end))
        path = tuple(title for _, title in stack)
        sections.append(_Section(start, heading.end, end, path, body_start < body_end))
    return sections


@value
class _Group:
    sections: tuple[_Section, ...]
    tokens: int
    exact: bool

    @property
    def start(self) -> int:
        return self.sections[0].start

    @property
    def end(self) -> int:
        return self.sections[-1].end

    @property
    def has_body(self) -> bool:
        return any(section.has_body for section in self.sections)

    @property
    def path(self) -> tuple[str, ...]:
        with_body = [section for section in self.sections if section.has_body]
        return (with_body[0] if with_body else self.sections[0]).path


@value
class _Counted:
    """A section's heading and body paragraphs with their token counts (counted once, reused)."""

    head: tuple[int, int]
    head_tokens: int
    units: list[tuple[int, int]]
    counts: tuple[int, ...]

    @property
    def estimate(self) -> int:
        # The sum of the parts plus one token per seam: what greedy merging decides on.
        parts = (self.head_tokens > 0) + len(self.units)
        return self.head_tokens + sum(self.counts) + max(parts - 1, 0)

    @property
    def exact(self) -> bool:
        return (self.head_tokens > 0) + len(self.units) <= 1


@value
class _Splitter:
    text: str
    bound: int
    minimum: int
    encoding: TokenEncoding
    fences: tuple[tuple[int, int], ...]

    def _count(self, start: int, end: int) -> Result[int, SourceError]:
        counted: Result[int, SourceError] = self.encoding.count(self.text[start:end])
        return counted

    def passages(self, sections: list[_Section]) -> Result[tuple[SectionPassage, ...], SourceError]:
        counted = self._counted(sections)
        if isinstance(counted, Failure):
            return counted
        parts = {section.start: part for section, part in zip(sections, counted.unwrap(), strict=True)}
        grouped = self._groups(sections, [part.estimate for part in counted.unwrap()],
                               [part.exact for part in counted.unwrap()])
        if isinstance(grouped, Failure):
            return grouped
        out: list[SectionPassage] = []
        for group in grouped.unwrap():
            tokens = group.tokens
            if not group.exact and tokens <= self.bound:
                exact = self._count(group.start, group.end)
                if isinstance(exact, Failure):
                    return exact
                tokens = exact.unwrap()
            if tokens <= self.bound:
                out.append(SectionPassage(self.text[group.start : group.end], group.start, group.end, tokens,
                                          group.path))
                continue
            split = self._split(group, parts[group.sections[-1].start])
            if isinstance(split, Failure):
                return split
            out.extend(split.unwrap())
        return Success(tuple(out))

    def _counted(self, sections: list[_Section]) -> Result[list[_Counted], SourceError]:
        # One batch count of every heading and body paragraph, reused for merging and splitting.
        chunker = _Chunker(self.text, self.bound, self.encoding, self.fences, False)
        layout: list[tuple[tuple[int, int], list[tuple[int, int]]]] = []
        spans: list[tuple[int, int]] = []
        for section in sections:
            head = _trim(self.text, section.start, section.body)
            units = chunker._units(_trim(self.text, section.body, section.end), 0)
            layout.append((head, units))
            spans.extend([head, *units])
        counted: Result[tuple[int, ...], SourceError] = self.encoding.count_many(
            [self.text[a:b] for a, b in spans]
        )
        if isinstance(counted, Failure):
            return counted
        counts = counted.unwrap()
        out: list[_Counted] = []
        cursor = 0
        for head, units in layout:
            head_tokens = counts[cursor]
            out.append(_Counted(head, head_tokens, units, counts[cursor + 1 : cursor + 1 + len(units)]))
            cursor += 1 + len(units)
        return Success(out)

    def _groups(
        self, sections: list[_Section], counts: list[int], exact: list[bool]
    ) -> Result[list[_Group], SourceError]:
        # Greedy on estimates (the parts plus one token per seam); `passages` counts each
        # merged group exactly once and splits it if the estimate was too low.
        groups: list[_Group] = []
        i = 0
        while i < len(sections):
            members, estimate = [sections[i]], counts[i]
            j = i + 1
            while j < len(sections):
                bare = not any(s.has_body for s in members)
                parent = members[0].path[:-1]
                if not (bare or (estimate < self.minimum and sections[j].path[: len(parent)] == parent)):
                    break
                if estimate + counts[j] + 1 > self.bound:
                    if bare:
                        # Bare headings above an oversized section stay at the front of its first piece.
                        members.append(sections[j])
                        estimate += counts[j] + 1
                        j += 1
                    break
                members.append(sections[j])
                estimate += counts[j] + 1
                j += 1
            group = _Group(tuple(members), estimate, len(members) == 1 and exact[i])
            if (estimate < self.minimum or not group.has_body) and groups and groups[-1].tokens <= self.bound:
                previous = groups[-1]
                if previous.tokens + estimate + 1 <= self.bound:
                    groups.pop()
                    group = _Group(previous.sections + group.sections, previous.tokens + estimate + 1, False)
            groups.append(group)
            i = j
        return Success(groups)

    def _split(self, group: _Group, last: _Counted) -> Result[list[SectionPassage], SourceError]:
        # The oversized section is the group's last; anything before it is bare headings.
        head_start = group.start
        head_tokens = last.head_tokens
        if len(group.sections) > 1:
            counted = self._count(head_start, last.head[1])
            if isinstance(counted, Failure):
                return counted
            head_tokens = counted.unwrap()
        margin = 2
        while self.bound - head_tokens - margin >= MIN_PASSAGE_TOKENS and last.units:
            chunker = _Chunker(self.text, self.bound - head_tokens - margin, self.encoding, self.fences, False)
            pieces = chunker._pack(last.units, last.counts, 0)
            if isinstance(pieces, Failure):
                return pieces
            first = pieces.unwrap()[0]
            joined = self._count(head_start, first.end)
            if isinstance(joined, Failure):
                return joined
            if joined.unwrap() <= self.bound:
                lead = Passage(self.text[head_start : first.end], head_start, first.end, joined.unwrap())
                return Success([self._passage(p, group.path) for p in (lead, *pieces.unwrap()[1:])])
            margin *= 2
        # Headings too long to share a passage with any text: split the whole section as text.
        whole = _Chunker(self.text, self.bound, self.encoding, self.fences, False).chunk((group.start, group.end), 0)
        return whole.map(lambda pieces: [self._passage(p, group.path) for p in pieces])

    def _passage(self, passage: Passage, path: tuple[str, ...]) -> SectionPassage:
        return SectionPassage(passage.text, passage.start, passage.end, passage.tokens, path)
