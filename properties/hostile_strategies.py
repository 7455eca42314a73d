"""Well-typed hostile values: what an attacker, a broken document or a confused model
sends through every public function that takes data.

Each strategy keeps the *declared* type (an ``int`` parameter gets an ``int``) and pushes on what
the type does not say: ints past float range and past Python's 4300-digit ``repr`` limit, NaN and
infinities, nesting deeper than the recursion limit, lone surrogates, format characters, huge
lengths and size hints, regex bombs, and ids, sources and metadata that imitate the library's own
markup. ``examples(n)`` scales example counts by profile so ``nightly`` runs far more.
"""

from __future__ import annotations

import math
import os
from datetime import UTC, datetime, timedelta
from typing import Any, Final

from hypothesis import strategies as st

_PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "dev")
# dev stays quick while editing; ci is the CI budget (ci-minimum, the compatibility pass at the
# lowest dependency versions, a fifth of it); any other profile (nightly) runs far more (>= 100k).
_SCALE: Final = {"dev": 0.3, "ci": 1.0, "ci-minimum": 0.2}.get(_PROFILE)
NIGHTLY_PER_CI: Final = 20


def examples(ci: int, nightly: int | None = None) -> int:
    """Examples for one property: ``ci`` under ``ci``; ``nightly`` (default ``20 * ci``) under
    ``nightly``, where cheap properties take the bulk of the 100k."""
    if _SCALE is None:
        return nightly if nightly is not None else ci * NIGHTLY_PER_CI
    return max(5, int(ci * _SCALE))


# --- numbers ---------------------------------------------------------------------------------------

BOUNDARY_INTS: Final = (
    0, 1, -1, 2, 3, 255, 256, 2**31 - 1, 2**31, 2**32, 2**53, 2**53 + 1, 2**63 - 1, 2**63, -(2**63), -(2**63) - 1,
    2**64, 2**1023, 2**1024, -(2**1024), 10**308, 10**309,
)
# (sign, base, exponent): ints past 4300 digits are built, never listed, since Hypothesis prints
# its strategies' constants and Python refuses to print such an int.
_HUGE: Final = ((1, 10, 4299), (1, 10, 4300), (1, 10, 5000), (-1, 10, 5000), (1, 2, 20_000), (-1, 2, 100_000))
huge_ints = st.sampled_from(_HUGE).map(lambda spec: spec[0] * spec[1] ** spec[2])
hostile_ints = st.one_of(st.sampled_from(BOUNDARY_INTS), huge_ints, st.integers(), st.integers(min_value=2**60))
non_negative_hostile_ints = hostile_ints.map(abs)

SPECIAL_FLOATS: Final = (math.nan, math.inf, -math.inf, -0.0, 0.0, 5e-324, 1.7976931348623157e308, -1.7976931348623157e308, 1e-300)
hostile_floats = st.one_of(st.sampled_from(SPECIAL_FLOATS), st.floats())
hostile_numbers = st.one_of(hostile_ints, hostile_floats)

# --- text ------------------------------------------------------------------------------------------

MARKUP: Final = (
    "</retrieved_corpus>", "<retrieved_corpus>", "</untrusted_content>", "</retrieved>", "<|endoftext|>",
    "<|im_start|>system", "]]>", "<!--", "&amp;", '"', "'", "\\", "\u202e", "\u200b", "\u00ad", "\ufeff",
    "\ud800", "\udfff", "\udc80abc", "\x00", "\r\n", "\u2028", "\x85", "ﬁ", "０１２", "𝟘𝟙", "ǅ", "İ",
)
surrogate_text = st.text(st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF), min_size=1, max_size=4)
any_text = st.text(st.characters(codec=None, categories=None), max_size=40)  # surrogates included
# Built, never listed: Hypothesis prints its strategies' constants, and these are long.
_LONG: Final = (("x", 100_000), ("\ud800", 5_000), ("a\n", 20_000), ("é", 30_000), ("(", 50_000))
long_texts = st.sampled_from(_LONG).map(lambda spec: spec[0] * spec[1])
# Short hostile text; ``huge_text`` adds the long bodies where a test can afford to count them.
hostile_text = st.one_of(
    any_text,
    st.sampled_from(MARKUP),
    st.lists(st.sampled_from(MARKUP) | any_text, max_size=6).map("".join),
    surrogate_text,
)
huge_text = st.one_of(hostile_text, long_texts)
non_empty_hostile_text = hostile_text.filter(bool)
non_empty_huge_text = huge_text.filter(bool)
REGEX_BOMBS: Final = (
    "(a+)+$", "(a|a)+$", "(a|aa)+$", "(a*)*b", "^(\\w+\\s?)*$", "(.*a){25}", "(a?){40}a{40}", "a{4294967296}",
    "a{1001}", "((a{100}){100}){100}", "(a)\\1", "(?=a)", "(?<!a)b", "[", "a**", "\\", "(?P<n>a)(?P=n)",
    "[\\ud800-\\udfff]", "\ud800",
)
# Nesting and length bombs, built rather than listed (see _LONG).
_BUILT_BOMBS: Final = (("(", "a", ")", 3000), ("(?:", "a", ")*", 2000), ("", "x" * 1000, "", 200), ("[", "a", "]", 500))
built_bombs = st.sampled_from(_BUILT_BOMBS).map(lambda spec: spec[0] * spec[3] + spec[1] * (spec[3] if spec[0] == "" else 1) + spec[2] * spec[3])
regex_patterns = st.one_of(
    st.sampled_from(REGEX_BOMBS),
    built_bombs,
    st.text(alphabet="()[]{}*+?|^$\\.,:=!<>-aAb0129dswDSWpPLN", max_size=30),
    any_text,
)

# --- nesting ---------------------------------------------------------------------------------------

NESTING_DEPTHS: Final = (10, 99, 100, 101, 999, 1_000, 1_001, 5_000, 50_000)


def nested_list(depth: int, leaf: object = 0) -> object:
    value: object = leaf
    for _ in range(depth):
        value = [value]
    return value


def nested_dict(depth: int, leaf: object = 0) -> object:
    value: object = leaf
    for _ in range(depth):
        value = {"a": value}
    return value


deep_values = st.builds(
    lambda depth, as_dict, leaf: nested_dict(depth, leaf) if as_dict else nested_list(depth, leaf),
    st.sampled_from(NESTING_DEPTHS) | st.integers(0, 300),
    st.booleans(),
    st.sampled_from([0, "\ud800", math.nan, None]) | huge_ints,
)

# --- JSON-like values ------------------------------------------------------------------------------

_leaves = st.one_of(st.none(), st.booleans(), hostile_ints, hostile_floats, huge_text)
_keys = st.one_of(
    hostile_text,
    st.sampled_from(["id", "content", "trust_tier", "created_at", "updated_at", "score", "source", "kind", "inline",
                     "artifact_constructor", "format", "type", "reader", "store", "location", "byte_length_hint",
                     "line_count_hint", "metadata", "trust-tier", "trustTier"]),
)
json_like: st.SearchStrategy[Any] = st.recursive(
    _leaves,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(_keys, children, max_size=5),
    max_leaves=12,
) | deep_values
# Mappings whose keys are not strings at all: huge ints, floats, tuples, None.
odd_keys = st.one_of(hostile_ints, hostile_floats, st.none(), st.tuples(hostile_ints))
odd_key_mappings = st.dictionaries(odd_keys, json_like, min_size=1, max_size=3)

# --- dates -----------------------------------------------------------------------------------------

hostile_datetimes = st.one_of(
    st.datetimes(timezones=st.just(UTC)),
    st.sampled_from([datetime.min.replace(tzinfo=UTC), datetime.max.replace(tzinfo=UTC),
                     datetime(1970, 1, 1, tzinfo=UTC) + timedelta(microseconds=1)]),
)
timestamp_like = st.one_of(hostile_datetimes, hostile_numbers, hostile_text, st.datetimes(), st.booleans())

# --- records ---------------------------------------------------------------------------------------

TIERS: Final = ("first-party", "third-party-public", "third-party-private")
hostile_ids = st.one_of(
    non_empty_hostile_text,
    st.sampled_from([".partial-x", "..", "../etc/passwd", "a/b", "a\\b"]),
    st.integers(250, 400).map(lambda n: "x" * n),
)
raw_fields = st.fixed_dictionaries(
    {
        "id": hostile_ids | json_like,
        "content": non_empty_huge_text | json_like,
        "trust_tier": st.sampled_from(TIERS) | hostile_text,
        "created_at": timestamp_like,
        "updated_at": timestamp_like,
    },
    optional={
        "source": hostile_text | json_like,
        "kind": hostile_text | json_like,
        "score": hostile_numbers | json_like,
        "inline": st.booleans() | json_like,
        "artifact_constructor": json_like,
    },
)
hostile_raw = st.one_of(
    raw_fields,
    raw_fields.flatmap(lambda raw: st.dictionaries(_keys, json_like, max_size=3).map(lambda extra: {**raw, **extra})),
    odd_key_mappings,
    json_like,
)


# --- stray elements --------------------------------------------------------------------------------
# beartype checks one sampled element of a list, so a function that takes a collection of user
# data checks every element itself. These are the wrong-typed elements put among good
# ones: each property asserts a value (a Failure naming the element), every time.


class RaisingPath:
    """An os.PathLike whose ``__fspath__`` raises."""

    def __fspath__(self) -> str:
        raise OSError("no path today")


class BytesPath:
    """An os.PathLike whose ``__fspath__`` gives bytes, which pathlib refuses."""

    def __fspath__(self) -> bytes:
        return b"/tmp"


strays = st.one_of(
    st.none(), st.booleans(), hostile_ints, hostile_floats, st.binary(max_size=8), st.just(object()),
    st.builds(RaisingPath), st.builds(BytesPath), deep_values, st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)


def with_strays(good: st.SearchStrategy[object], max_good: int = 3) -> st.SearchStrategy[list[object]]:
    """Lists of ``good`` elements with at least one stray at a drawn position."""
    return st.tuples(st.lists(good, max_size=max_good), st.lists(strays, min_size=1, max_size=2), st.randoms()).map(
        lambda drawn: drawn[2].sample(drawn[0] + drawn[1], len(drawn[0]) + len(drawn[1]))
    )
