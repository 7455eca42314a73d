"""A vocabulary's ranks read in one pass equal the line-by-line reading, on any input."""

from __future__ import annotations

import base64

from hypothesis import given
from hypothesis import strategies as st
from returns.result import Failure, Success

from thrift_fp.tokens._vocabulary import parse_ranks

_token = st.binary(min_size=1, max_size=8).map(base64.b64encode)
_rank = st.integers(0, 10**6).map(lambda rank: str(rank).encode())
# Strings of the base64 alphabet that are not always base64 ("QQ==QQ==", "Q=Q", "QR=="): the
# one-pass reading must refuse exactly what the line-by-line one refuses.
_near_token = st.text(alphabet="AQRw+/=", min_size=1, max_size=10).map(str.encode)
_line = st.one_of(
    st.tuples(_token, _rank).map(lambda pair: pair[0] + b" " + pair[1]),
    st.tuples(_near_token, _rank).map(lambda pair: pair[0] + b" " + pair[1]),
    st.binary(max_size=12),  # anything at all: a blank line, a bad token, a line without a rank
)
_end = st.sampled_from([b"\n", b"\r\n"])


def _line_by_line(data: bytes) -> dict[bytes, int] | int:
    ranks: dict[bytes, int] = {}
    for number, line in enumerate(data.splitlines(), start=1):
        if not line:
            continue
        try:
            token, rank = line.split()
            ranks[base64.b64decode(token, validate=True)] = int(rank)
        except ValueError:  # binascii.Error is one
            return number
    return ranks


def _assert_read_as_line_by_line(data: bytes) -> None:
    """``parse_ranks`` reads ``data`` as the line-by-line reading does, or fails at its first bad line."""
    expected = _line_by_line(data)
    match parse_ranks("x", data):
        case Success(ranks):
            assert ranks == expected
        case Failure(error):
            assert isinstance(expected, int) and f"line {expected} " in error.message


@given(st.lists(st.tuples(_line, _end), max_size=30), st.booleans())
def test_parsed_ranks_equal_the_line_by_line_reading(lines: list[tuple[bytes, bytes]], final: bool) -> None:
    data = b"".join(line + end for line, end in lines)
    data = data if final else data.rstrip(b"\n")
    _assert_read_as_line_by_line(data)


@given(st.lists(st.one_of(_token, _near_token), max_size=30), st.lists(_rank, min_size=30, max_size=30))
def test_well_formed_lines_read_in_one_pass_equal_the_line_by_line_reading(
    tokens: list[bytes], ranks: list[bytes]
) -> None:
    # Every line "token rank\n": the shape the one-pass reading takes.
    data = b"".join(token + b" " + rank + b"\n" for token, rank in zip(tokens, ranks, strict=False))
    _assert_read_as_line_by_line(data)
