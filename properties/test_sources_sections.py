"""Properties of heading-aware passages: lossless, in order, bounded, never a bare heading."""

from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from thrift_fp.sources.documents import (
    StructuredText,
    html_structure,
    markdown_structure,
    rst_structure,
    section_passages,
)
from thrift_fp.tokens import count_tokens

_word = st.sampled_from(["budget", "shed", "tokens", "C++", "node:fs", "snake_case", "the", "é", "😀", "x" * 30])
_words = st.lists(_word, min_size=1, max_size=60).map(" ".join)
_title = st.lists(_word, min_size=1, max_size=3).map(" ".join)
_paragraph = st.one_of(
    _words,
    st.lists(_words, min_size=1, max_size=4).map("\n".join),  # a multi-line paragraph
    st.builds(lambda body: f"```\n# not a heading\n\n{body}\n```", _words),  # a fence with a blank line
    st.builds(lambda items: "\n".join(f"- {item}" for item in items), st.lists(_words, min_size=1, max_size=3)),
)
_section = st.tuples(st.integers(1, 4), _title, st.lists(_paragraph, max_size=3))
_sections = st.lists(_section, min_size=1, max_size=10)
_bounds = st.integers(min_value=24, max_value=128)


def _heading_room(sections: list[tuple[int, str, list[str]]], bound: int) -> bool:
    # The one documented exception: headings stacked above a section that alone leave less
    # than MIN_PASSAGE_TOKENS of room cannot share a passage with its text.
    run = 0
    for _, title, body in sections:
        # Markup counts too: '#' marks, or an underline as long as the title.
        run += 2 * count_tokens(title).unwrap().tokens + 8
        if body:
            if run > bound - 16:
                return False
            run = 0
    return run <= bound - 16  # the tail paragraph is the last section's text


def _markdown(sections: list[tuple[int, str, list[str]]], tail: str) -> str:
    return "\n\n".join(f"{'#' * level} {title}" + "".join(f"\n\n{p}" for p in body)
                       for level, title, body in sections) + f"\n\n{tail}\n"


def _rst(sections: list[tuple[int, str, list[str]]], tail: str) -> str:
    marks = "=-~^"
    return "\n\n".join(f"{title}\n{marks[level - 1] * (len(title) + 1)}" + "".join(
        f"\n\n{p.replace('```', '::')}" for p in body) for level, title, body in sections) + f"\n\n{tail}\n"


def _check(doc: StructuredText, bound: int) -> None:
    passages = section_passages(doc, bound).unwrap()
    text = doc.text
    cursor = 0
    for passage in passages:
        # Verbatim, in order, and only whitespace between passages: nothing but separators is lost.
        assert passage.text == text[passage.start : passage.end] and passage.start >= cursor
        assert text[cursor : passage.start].strip() == ""
        cursor = passage.end
        # Within the bound, and the count is exact.
        assert passage.tokens <= bound
        assert count_tokens(passage.text).unwrap().tokens == passage.tokens
        # Never a bare heading: some text outside every heading.
        outside = [c for i, c in enumerate(passage.text, start=passage.start)
                   if not any(h.start <= i < h.end for h in doc.headings)]
        assert "".join(outside).strip(), f"bare heading passage {passage.text!r}"
    assert text[cursor:].strip() == ""


@settings(max_examples=20, deadline=None)
@given(sections=_sections, tail=_words, bound=_bounds)
def test_markdown_passages_cover_the_text_in_order_within_the_bound(
    sections: list[tuple[int, str, list[str]]], tail: str, bound: int
) -> None:
    assume(_heading_room(sections, bound))
    _check(markdown_structure(_markdown(sections, tail)).unwrap(), bound)


@settings(max_examples=15, deadline=None)
@given(sections=_sections, tail=_words, bound=_bounds)
def test_rst_passages_cover_the_text_in_order_within_the_bound(
    sections: list[tuple[int, str, list[str]]], tail: str, bound: int
) -> None:
    assume(_heading_room(sections, bound))
    _check(rst_structure(_rst(sections, tail)), bound)


@settings(max_examples=12, deadline=None)
@given(sections=_sections, tail=_words, bound=_bounds)
def test_html_passages_cover_its_text_in_order_within_the_bound(
    sections: list[tuple[int, str, list[str]]], tail: str, bound: int
) -> None:
    assume(_heading_room(sections, bound))
    html = "".join(f"<h{level}>{title}</h{level}>" + "".join(f"<p>{p}</p>" for p in body)
                   for level, title, body in sections) + f"<p>{tail}</p>"
    doc = html_structure(html).unwrap()
    # The extracted text holds every word of the HTML, in order (the markup is what goes).
    words = [w for level, title, body in sections for w in " ".join([title, *body]).split()] + tail.split()
    assert doc.text.split() == words
    _check(doc, bound)


@settings(max_examples=25, deadline=None)
@given(text=st.text(alphabet="ab #\n`-=é", max_size=300), bound=_bounds)
def test_any_markdown_text_is_covered_and_bounded(text: str, bound: int) -> None:
    doc = markdown_structure(text).unwrap()
    passages = section_passages(doc, bound).unwrap()
    cursor = 0
    for passage in passages:
        assert passage.text == text[passage.start : passage.end] and text[cursor : passage.start].strip() == ""
        assert passage.tokens <= bound
        cursor = passage.end
    assert text[cursor:].strip() == ""
