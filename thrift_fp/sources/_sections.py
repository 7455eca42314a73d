"""Structure-aware passages: split a document on its headings, never emit a bare heading.

A section runs from its heading to the next heading (text before the first heading is a
section with no heading). Sections smaller than ``min_tokens``, and sections that are only a
heading, are merged with the sections that follow them (siblings or descendants) while the
merged text stays within ``max_tokens``; a section still too small joins the passage before
it when that fits. A section larger than ``max_tokens`` is split on paragraphs, lines,
sentences and words (see `chunk_text`), and its heading — with any bare headings right above
it — stays at the front of its first piece. Every passage carries its heading path, for
example ``("fs", "Promises API", "fsPromises.readFile")``.

Every passage is a verbatim slice of the document text and what lies between passages is
whitespace only, so nothing but separators is lost; every passage's exact token count is
within ``max_tokens``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from returns.result import Failure, Result, Success

from thrift_fp.sources._chunk import MIN_PASSAGE_TOKENS, Passage, _Chunker, _fenced_regions, _trim
from thrift_fp.sources._errors import InvalidChunkBound, SourceError
from thrift_fp.sources._structure import Heading, StructuredText
from thrift_fp.tokens import TokenEncoding, get_encoding

HEADING_SEPARATOR: Final = " › "


@dataclass(frozen=True, slots=True)
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


@dataclass(frozen=True, slots=True)
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

    >>> from thrift_fp.sources._markdown import markdown_structure
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


@dataclass(frozen=True, slots=True)
class _Group:
    sections: tuple[_Section, ...]
    tokens: int

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


@dataclass(frozen=True, slots=True)
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
        counted: Result[tuple[int, ...], SourceError] = self.encoding.count_many(
            [self.text[s.start : s.end] for s in sections]
        )
        if isinstance(counted, Failure):
            return counted
        grouped = self._groups(sections, counted.unwrap())
        if isinstance(grouped, Failure):
            return grouped
        out: list[SectionPassage] = []
        for group in grouped.unwrap():
            if group.tokens <= self.bound:
                out.append(SectionPassage(self.text[group.start : group.end], group.start, group.end,
                                          group.tokens, group.path))
                continue
            split = self._split(group)
            if isinstance(split, Failure):
                return split
            out.extend(split.unwrap())
        return Success(tuple(out))

    def _groups(self, sections: list[_Section], counts: tuple[int, ...]) -> Result[list[_Group], SourceError]:
        # Greedy on the sum of the parts (plus one token per seam), then one exact count per
        # merged group, dropping its last members while the exact count is over the bound.
        groups: list[_Group] = []
        i = 0
        while i < len(sections):
            members, estimate = [sections[i]], counts[i]
            j = i + 1
            oversized = False
            while j < len(sections):
                bare = not any(s.has_body for s in members)
                parent = members[0].path[:-1]
                if not (bare or (estimate < self.minimum and sections[j].path[: len(parent)] == parent)):
                    break
                if estimate + counts[j] + 1 > self.bound:
                    if bare:
                        # Bare headings above an oversized section stay at the front of its first piece.
                        members.append(sections[j])
                        j += 1
                        oversized = True
                    break
                members.append(sections[j])
                estimate += counts[j] + 1
                j += 1
            if oversized:
                groups.append(_Group(tuple(members), self.bound + 1))
                i = j
                continue
            exact = self._exact(members, counts[i])
            if isinstance(exact, Failure):
                return exact
            group, j = exact.unwrap(), i + len(exact.unwrap().sections)
            if (group.tokens < self.minimum or not group.has_body) and groups and groups[-1].tokens <= self.bound:
                previous = groups[-1]
                if previous.tokens + group.tokens + 1 <= self.bound:
                    joined = self._count(previous.start, group.end)
                    if isinstance(joined, Failure):
                        return joined
                    if joined.unwrap() <= self.bound:
                        groups.pop()
                        group = _Group(previous.sections + group.sections, joined.unwrap())
            groups.append(group)
            i = j
        return Success(groups)

    def _exact(self, members: list[_Section], first: int) -> Result[_Group, SourceError]:
        while len(members) > 1:
            counted = self._count(members[0].start, members[-1].end)
            if isinstance(counted, Failure):
                return counted
            if counted.unwrap() <= self.bound:
                return Success(_Group(tuple(members), counted.unwrap()))
            members = members[:-1]
        return Success(_Group(tuple(members), first))

    def _split(self, group: _Group) -> Result[list[SectionPassage], SourceError]:
        last = group.sections[-1]
        head = self._count(group.start, last.body)
        if isinstance(head, Failure):
            return head
        body = _trim(self.text, last.body, last.end)
        margin = 2
        while self.bound - head.unwrap() - margin >= MIN_PASSAGE_TOKENS and body[0] < body[1]:
            pieces = _Chunker(self.text, self.bound - head.unwrap() - margin, self.encoding, self.fences, False).chunk(
                body, 0
            )
            if isinstance(pieces, Failure):
                return pieces
            first = pieces.unwrap()[0]
            joined = self._count(group.start, first.end)
            if isinstance(joined, Failure):
                return joined
            if joined.unwrap() <= self.bound:
                lead = Passage(self.text[group.start : first.end], group.start, first.end, joined.unwrap())
                return Success([self._passage(p, group.path) for p in (lead, *pieces.unwrap()[1:])])
            margin *= 2
        # Headings too long to share a passage with any text: split the whole section as text.
        whole = _Chunker(self.text, self.bound, self.encoding, self.fences, False).chunk((group.start, group.end), 0)
        return whole.map(lambda pieces: [self._passage(p, group.path) for p in pieces])

    def _passage(self, passage: Passage, path: tuple[str, ...]) -> SectionPassage:
        return SectionPassage(passage.text, passage.start, passage.end, passage.tokens, path)
