"""Spooled views agree with the same operations on the in-memory string; streamed counts are exact.

Reference semantics: ``lines = text.splitlines()``; head(n) = lines[:n], tail(n) = lines[-n:] (or
() for 0), cat(a, b) = lines[a:b], grep(p) = [(i, l) for i, l in enumerate(lines) if re.search(p, l,
re.ASCII)] (RE2's classes are ASCII).
"""

from __future__ import annotations

import re
from unittest import mock
from collections.abc import Iterator

from hypothesis import given
from hypothesis import strategies as st
from returns.result import Success

from properties.records_strategies import PIECES, SHARED_STORES, bodies
from thrift_fp.records import ByteStore, SpooledArtifact
from thrift_fp.records import _stream_count
from thrift_fp.records._lines import lines_of, size_hints
from thrift_fp.tokens import count_tokens, get_encoding

PATTERNS = ("a", "^$", "é", r"\s", "W.r", "^ ", r"\.$", "/")


@given(bodies, st.sampled_from(SHARED_STORES), st.integers(0, 12), st.integers(0, 12), st.integers(0, 12),
       st.none() | st.integers(0, 12), st.sampled_from(PATTERNS))
def test_views_agree_with_the_string(
    text: str, store: ByteStore, n: int, m: int, start: int, end: int | None, pattern: str
) -> None:
    reader = store.write("view", text).unwrap()
    body = SpooledArtifact(reader)
    lines = text.splitlines()
    assert body.head(n).unwrap() == tuple(lines[:n])
    assert body.tail(m).unwrap() == (tuple(lines[-m:]) if m else ())
    assert body.cat(start, end).unwrap() == tuple(lines[start:end])
    # grep's syntax is RE2's, whose Perl classes (``\s``, ``\w``, ``\d``) are ASCII: Python's
    # ``re`` with ASCII is the reference (``\s`` would otherwise match U+00A0 or U+3000).
    assert body.grep(pattern).unwrap() == tuple(
        (i, line) for i, line in enumerate(lines) if re.search(pattern, line, re.ASCII)
    )
    assert body.as_string().unwrap() == text
    assert (body.byte_length().unwrap(), body.line_count().unwrap()) == size_hints(text)
    for index, line in enumerate(lines):
        assert reader.line(index).unwrap() == line


def _split(data: bytes, cuts: set[int]) -> Iterator[Success[bytes]]:
    points = sorted({0, len(data), *cuts})
    for left, right in zip(points, points[1:], strict=False):
        yield Success(data[left:right])


@given(bodies, st.data())
def test_lines_survive_any_chunking_of_the_bytes(text: str, data: st.DataObject) -> None:
    # Stores hand out bytes in arbitrary pieces: a piece may end inside a character or between
    # '\r' and '\n'. The streamed lines must still be exactly splitlines(keepends=True).
    encoded = text.encode()
    cuts = data.draw(st.sets(st.integers(0, len(encoded)), max_size=len(encoded)), label="cuts")
    streamed = [item.unwrap() for item in lines_of(_split(encoded, cuts), "doc")]
    assert streamed == text.splitlines(keepends=True)


_prose = st.lists(st.sampled_from(PIECES), min_size=1, max_size=120).map("".join)


@given(st.lists(_prose, min_size=1, max_size=6).map("\n".join), st.sampled_from(["cl100k_base", "o200k_base"]))
def test_streamed_counts_equal_the_whole_text_count(text: str, encoding: str) -> None:
    # A 1-character target makes every exact cut point an actual cut, the hardest case.
    with mock.patch.object(_stream_count, "TARGET_CHARS", 1):
        streamed = _stream_count.count_streamed(
            (Success(line) for line in text.splitlines(keepends=True)), get_encoding(encoding).unwrap()
        ).unwrap()
    assert streamed.count == count_tokens(text, encoding).unwrap()
    assert streamed.estimated_because is None
