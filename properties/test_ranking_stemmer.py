"""The English stemmer loaded on its own stems exactly as snowballstemmer's package does (issue 35).

`thrift_fp.sources.ranking._analyze` loads snowballstemmer's English module without the package's
``__init__`` (which imports 30 languages); an index's terms, and so every score, must not change.
"""

from __future__ import annotations

import importlib.util

import pytest
from hypothesis import given
from hypothesis import strategies as st

from thrift_fp.sources.ranking._analyze import english_alone

snowballstemmer = pytest.importorskip("snowballstemmer")

_FOLDERS = importlib.util.find_spec("snowballstemmer").submodule_search_locations  # type: ignore[union-attr]  # imported above
_PACKAGE = snowballstemmer.stemmer("english").stemWord
_ALONE = english_alone(_FOLDERS or [])

# Words as the analyzer hands them to the stemmer (lower-case letters), English suffixes weighted in.
_SUFFIXES = ("", "s", "es", "ed", "ing", "ly", "ness", "ational", "ization", "fulness", "ies", "y", "e")
_WORDS = st.one_of(
    st.text(alphabet=st.characters(categories=["Ll"]), min_size=1, max_size=20),
    st.builds(lambda stem, end: stem + end, st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=10),
              st.sampled_from(_SUFFIXES)),
)


@given(_WORDS)
def test_the_english_stemmer_alone_stems_as_the_package_does(word: str) -> None:
    assert _ALONE(word) == _PACKAGE(word)


def test_known_stems() -> None:
    assert [_ALONE(word) for word in ("files", "filing", "generously", "relational")] == [
        _PACKAGE(word) for word in ("files", "filing", "generously", "relational")
    ]
