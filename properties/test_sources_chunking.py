"""Properties of chunking: bounded, lossless up to separators, never empty."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from thrift_fp.sources import chunk_text
from thrift_fp.sources.documents import MIN_PASSAGE_TOKENS
from thrift_fp.tokens import count_tokens

_pieces = st.one_of(
    st.text(alphabet="abcdé😀.,!?#`~-_ ", min_size=1, max_size=30),
    st.sampled_from(["\n", "\n\n", " \n \n", "```\n", "# Title\n", ". ", "\t", "x" * 120]),
    st.text(min_size=1, max_size=8),
)
_texts = st.lists(_pieces, max_size=25).map("".join)
_bounds = st.integers(min_value=MIN_PASSAGE_TOKENS, max_value=48)


@given(text=_texts, bound=_bounds, markdown=st.booleans(), encoding=st.sampled_from(["cl100k_base", "o200k_base"]))
def test_every_passage_fits_and_its_count_is_exact(text: str, bound: int, markdown: bool, encoding: str) -> None:
    for passage in chunk_text(text, bound, encoding=encoding, markdown=markdown).unwrap():
        assert passage.tokens <= bound
        assert count_tokens(passage.text, encoding).unwrap().tokens == passage.tokens


@given(text=_texts, bound=_bounds, markdown=st.booleans())
def test_passages_are_the_text_minus_whitespace_separators(text: str, bound: int, markdown: bool) -> None:
    passages = chunk_text(text, bound, markdown=markdown).unwrap()
    rebuilt: list[str] = []
    cursor = 0
    for passage in passages:
        assert passage.text.strip(), "no empty or blank passage"
        assert passage.text == text[passage.start : passage.end]
        separator = text[cursor : passage.start]
        assert passage.start >= cursor and separator.strip() == ""
        rebuilt += [separator, passage.text]
        cursor = passage.end
    rebuilt.append(text[cursor:])
    assert "".join(rebuilt[-1:]).strip() == ""
    # Passages interleaved with whitespace-only separators rebuild the input exactly.
    assert "".join(rebuilt) == text


@given(text=_texts, bound=_bounds)
def test_chunking_is_deterministic_and_bounded_in_count(text: str, bound: int) -> None:
    first = chunk_text(text, bound).unwrap()
    assert first == chunk_text(text, bound).unwrap()
    # Never more passages than non-whitespace characters.
    assert len(first) <= sum(not c.isspace() for c in text)
