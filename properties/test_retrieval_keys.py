"""The default key: equal values give equal keys, distinct values distinct keys.

Equality is type-strict (``_strictly_equal`` below is the specification): ``1``,
``1.0``, ``True`` and ``"1"`` differ, a list differs from a tuple, a set equals
a frozenset with the same members, and every NaN equals every NaN.
"""

from __future__ import annotations

import enum
import math
import random
from collections.abc import Mapping
from dataclasses import dataclass, fields, is_dataclass

from hypothesis import given
from hypothesis import strategies as st
from returns.result import Failure, Success

from thrift_fp.retrieval import canonical_key


class Colour(enum.Enum):
    RED = 1
    ONE = "1"


@dataclass(frozen=True)
class Point:
    x: object
    y: object


# Few distinct scalars, many of them equal under plain ==, so the type tags matter.
SCALAR_VALUES = [None, True, False, 0, 1, 0.0, -0.0, 1.0, math.nan, math.inf, "", "1", "a", b"", b"1", Colour.RED, Colour.ONE]
SCALARS = st.sampled_from(SCALAR_VALUES)
# Scalars a naive serialisation would confuse with each other.
LOOK_ALIKES: list[list[object]] = [
    [True, 1, 1.0, "1", b"1", Colour.ONE, Colour.RED],
    [False, 0, 0.0, -0.0, "", b"", None],
    [math.nan, math.inf, "a", "nan", "inf"],
]
HASHABLE = st.recursive(
    SCALARS,
    lambda inner: st.tuples(inner, inner) | st.frozensets(inner, max_size=3) | st.builds(Point, inner, inner),
    max_leaves=6,
)
VALUES = st.recursive(
    HASHABLE,
    lambda inner: st.lists(inner, max_size=3)
    | st.lists(inner, max_size=3).map(tuple)
    | st.dictionaries(HASHABLE, inner, max_size=3)
    | st.sets(HASHABLE, max_size=3)
    | st.builds(Point, inner, inner),
    max_leaves=12,
)


def _strictly_equal(a: object, b: object) -> bool:
    if isinstance(a, enum.Enum) or isinstance(b, enum.Enum):
        return a is b
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, set | frozenset) and isinstance(b, set | frozenset):
        return len(a) == len(b) and all(any(_strictly_equal(x, y) for y in b) for x in a)
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return len(a) == len(b) and all(
            any(_strictly_equal(ka, kb) and _strictly_equal(va, vb) for kb, vb in b.items()) for ka, va in a.items()
        )
    if type(a) is not type(b):
        return False
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(_strictly_equal(x, y) for x, y in zip(a, b, strict=True))
    if is_dataclass(a) and not isinstance(a, type):
        return all(_strictly_equal(getattr(a, f.name), getattr(b, f.name)) for f in fields(a))
    return a == b


def _reshuffled(value: object, rnd: random.Random) -> object:
    """An equal copy built in another insertion order (dicts, sets) and other objects."""
    if isinstance(value, dict):
        items = [(_reshuffled(k, rnd), _reshuffled(v, rnd)) for k, v in value.items()]
        rnd.shuffle(items)
        return dict(items)
    if isinstance(value, set | frozenset):
        members = [_reshuffled(m, rnd) for m in value]
        rnd.shuffle(members)
        return type(value)(members)
    if isinstance(value, list):
        return [_reshuffled(v, rnd) for v in value]
    if isinstance(value, tuple):
        return tuple(_reshuffled(v, rnd) for v in value)
    if isinstance(value, Point):
        return Point(_reshuffled(value.x, rnd), _reshuffled(value.y, rnd))
    if isinstance(value, float) and value == 0.0:
        return rnd.choice([0.0, -0.0])
    return value


@given(VALUES, st.randoms(use_true_random=False))
def test_equal_values_get_equal_keys_whatever_the_insertion_order(value: object, rnd: random.Random) -> None:
    copy = _reshuffled(value, rnd)
    assert _strictly_equal(value, copy)
    assert canonical_key(value) == canonical_key(copy)
    assert isinstance(canonical_key(value), Success)


@given(VALUES, VALUES)
def test_keys_are_equal_exactly_when_values_are_strictly_equal(a: object, b: object) -> None:
    assert (canonical_key(a).unwrap() == canonical_key(b).unwrap()) == _strictly_equal(a, b)


def _near_miss(value: object, rnd: random.Random, hashable: bool = False) -> object:
    """A copy with some leaves swapped for look-alikes (1 for True, a tuple for a list, ...)."""
    if isinstance(value, dict):
        return {_near_miss(k, rnd, True): _near_miss(v, rnd) for k, v in value.items()}
    if isinstance(value, set | frozenset):
        members = {_near_miss(m, rnd, True) for m in value}
        return frozenset(members) if rnd.random() < 0.5 else set(members) if not hashable else frozenset(members)
    if isinstance(value, list | tuple):
        items = [_near_miss(v, rnd, hashable) for v in value]
        as_list = isinstance(value, list) != (rnd.random() < 0.2)
        return list(items) if as_list and not hashable else tuple(items)
    if isinstance(value, Point):
        return Point(_near_miss(value.x, rnd, True), _near_miss(value.y, rnd, True))
    family = next((f for f in LOOK_ALIKES if any(_strictly_equal(value, m) for m in f)), [value])
    return rnd.choice(family) if rnd.random() < 0.5 else value


@given(VALUES, st.randoms(use_true_random=False))
def test_look_alike_values_get_equal_keys_only_when_strictly_equal(value: object, rnd: random.Random) -> None:
    other = _near_miss(value, rnd)
    assert (canonical_key(value).unwrap() == canonical_key(other).unwrap()) == _strictly_equal(value, other)


UNSUPPORTED = st.builds(object) | st.builds(bytearray).map(lambda b: memoryview(b))
WITH_UNSUPPORTED = st.recursive(
    UNSUPPORTED,
    lambda inner: st.tuples(VALUES, inner).map(list)
    | st.tuples(HASHABLE, inner).map(lambda kv: {kv[0]: kv[1]})
    | st.builds(Point, VALUES, inner),
    max_leaves=6,
)


@given(WITH_UNSUPPORTED)
def test_an_unsupported_part_anywhere_is_an_error_value_naming_it(value: object) -> None:
    key = canonical_key(value)
    assert isinstance(key, Failure)
    problem = key.failure()
    assert problem.type_name in {"object", "memoryview"}
    assert problem.path.startswith("query")
