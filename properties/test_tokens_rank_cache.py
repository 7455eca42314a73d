"""The rank cache never changes a count (issue 35): its form reads back exactly what was written,
and whatever a cache file holds — damaged, cut, grown, or written by someone else — the ranks a
vocabulary is built from are the verified vocabulary's own."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from thrift_fp.tokens._rank_cache import (
    MAGIC,
    cached_ranks,
    rank_cache_folder,
    ranks_bytes,
    ranks_from_bytes,
    use_rank_cache,
)
from thrift_fp.tokens._vocabulary import BUNDLED, bundled_vocabulary_bytes, parse_ranks, verified_ranks

_NAME = "cl100k_base"
_SPEC = BUNDLED[_NAME]


@pytest.fixture(scope="module")
def truth() -> dict[bytes, int]:
    """cl100k_base's ranks as parsed from its verified vocabulary, with no cache at all."""
    use_rank_cache(None)
    return parse_ranks(_NAME, bundled_vocabulary_bytes(_NAME).unwrap()).unwrap()


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("rank-cache")
    use_rank_cache(lambda: root)
    yield root
    use_rank_cache(None)


def _file(folder: Path) -> Path:
    use_rank_cache(lambda: folder)
    location = rank_cache_folder()
    assert location is not None
    return location / f"{_NAME}-{_SPEC.ranks_sha256[:16]}.ranks"


@given(st.dictionaries(st.binary(max_size=40), st.integers(0, 2**32 - 1), max_size=30))
def test_the_form_reads_back_what_was_written(ranks: dict[bytes, int]) -> None:
    data = ranks_bytes(ranks)
    assert data is not None and data.startswith(MAGIC)
    back = ranks_from_bytes(data)
    assert back == ranks and list(back) == list(ranks)  # the vocabulary's order too


@given(st.binary(max_size=200))
def test_any_bytes_are_ranks_or_refused_never_an_exception(data: bytes) -> None:
    back = ranks_from_bytes(data)
    assert back is None or ranks_bytes(back) == data


@st.composite
def _damage(draw: st.DrawFn, size: int) -> tuple[str, int, bytes]:
    how = draw(st.sampled_from(["flip", "cut", "grow", "swap"]))
    return how, draw(st.integers(0, size - 1)), draw(st.binary(min_size=1, max_size=8))


def _damaged(good: bytes, how: str, at: int, extra: bytes) -> bytes:
    if how == "flip":
        return good[:at] + bytes([good[at] ^ (extra[0] or 1)]) + good[at + 1:]
    if how == "cut":
        return good[:at]
    if how == "grow":
        return good + extra
    # "swap": a well-formed cache of other ranks (two tokens' ranks exchanged): hostile, not damaged
    ranks = ranks_from_bytes(good)
    assert ranks is not None
    tokens = list(ranks)
    first, second = tokens[at % len(tokens)], tokens[(at + 1 + extra[0]) % len(tokens)]
    ranks[first], ranks[second] = ranks[second], ranks[first]
    swapped = ranks_bytes(ranks)
    assert swapped is not None
    return swapped


@settings(max_examples=20)  # each example parses the vocabulary again (~70 ms)
@given(st.data())
def test_a_damaged_or_foreign_cache_file_is_never_read_as_ranks(
    folder: Path, truth: dict[bytes, int], data: st.DataObject,
) -> None:
    path = _file(folder)
    good = ranks_bytes(truth)
    assert good is not None and hashlib.sha256(good).hexdigest() == _SPEC.ranks_sha256
    how, at, extra = data.draw(_damage(len(good)))
    bad = _damaged(good, how, at, extra)
    if bad == good:
        return  # a swap of a token with itself
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(bad)
    assert cached_ranks(_NAME, _SPEC.ranks_sha256) is None
    assert verified_ranks(_NAME).unwrap() == truth
    assert path.read_bytes() == good  # and the file is written again, right
