"""Examples of the default key's documented choices and its error values."""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field
from types import MappingProxyType

from thrift_fp.retrieval import NotCanonical, canonical_key


class Mode(enum.IntEnum):
    FAST = 1


@dataclass(frozen=True)
class Filter:
    name: str
    value: object
    note: str = field(default="", compare=False)


def _key(value: object) -> str:
    return canonical_key(value).unwrap()


def test_scalars_are_type_tagged_apart() -> None:
    assert [_key(v) for v in (1, 1.0, True, "1", b"1", Mode.FAST, None)] == [
        "1",
        '{"float":"1.0"}',
        "true",
        '"1"',
        '{"bytes":"31"}',
        '{"enum":["tests.test_retrieval_canonical.Mode","FAST"]}',
        "null",
    ]


def test_equal_floats_share_a_key() -> None:
    assert _key(-0.0) == _key(0.0) == '{"float":"0.0"}'
    assert _key(0.0) != _key(1.0)
    assert _key(math.nan) == _key(float("nan"))


def test_lists_and_tuples_differ_but_sets_and_frozensets_and_mappings_follow_equality() -> None:
    assert _key([1, 2]) != _key((1, 2))
    assert _key({3, 1, 2}) == _key(frozenset({2, 3, 1})) == '{"set":[1,2,3]}'
    assert _key(MappingProxyType({"b": 1, "a": 2})) == _key({"a": 2, "b": 1})
    assert _key(bytearray(b"x")) == _key(b"x")


def test_dataclasses_key_by_class_and_compared_fields() -> None:
    assert _key(Filter("lang", "en", note="a")) == _key(Filter("lang", "en", note="b"))
    assert _key(Filter("lang", "en")) != _key(Filter("lang", "de"))
    assert _key(Filter("lang", "en")) == (
        '{"dataclass":["tests.test_retrieval_canonical.Filter",[["name","lang"],["value","en"]]]}'
    )


def test_unicode_is_kept_readable() -> None:
    assert _key("使用指南") == '"使用指南"'


def test_integers_beyond_the_decimal_digit_limit_still_have_a_key() -> None:
    huge = 10**5000
    assert _key(huge) != _key(huge + 1)
    assert _key(huge).startswith('{"int":"0x')


def test_cycles_and_excessive_depth_are_error_values() -> None:
    looped: list[object] = []
    looped.append(looped)
    assert canonical_key(looped).failure() == NotCanonical("query[0]", "list", "refers to itself (a cycle)")
    deep: object = "leaf"
    for _ in range(150):
        deep = [deep]
    problem = canonical_key(deep).failure()
    assert problem.reason == "nested deeper than 100 levels"
    assert problem.path == "query" + "[0]" * 101
    shared = [1]
    assert canonical_key([shared, shared]).unwrap() == '{"list":[{"list":[1]},{"list":[1]}]}'


def test_an_unsupported_value_names_where_it_is() -> None:
    problem = canonical_key({"filters": [Filter("since", object())]}).failure()
    assert problem.path == "query['filters'][0].value"
    assert problem.message == "query['filters'][0].value (object): unsupported type"


@dataclass(eq=False)
class Session:
    """Compared by identity, like any object without its own ``__eq__``."""

    name: str


def test_a_dataclass_compared_by_identity_has_no_canonical_key() -> None:
    # Two such instances are different queries (a != b), so one key for both would wrongly
    # refuse the second as a duplicate; the caller must give a key function instead.
    first, second = Session("s"), Session("s")
    assert first != second
    problem = canonical_key({"session": first}).failure()
    assert problem == NotCanonical(
        "query['session']", "Session", "a dataclass with eq=False compares by identity; give the definition a key"
    )


class _Opaque:
    """A hashable mapping key with no canonical encoding."""


def test_a_mapping_key_without_a_canonical_key_is_located_as_a_key() -> None:
    problem = canonical_key({"filters": {_Opaque(): 1}}).failure()
    assert problem == NotCanonical("query['filters'][<_Opaque object>]<key>", "_Opaque", "unsupported type")
    assert problem.message == "query['filters'][<_Opaque object>]<key> (_Opaque): unsupported type"


def test_a_query_nested_too_deep_names_the_type_at_the_cut_off() -> None:
    nested: list[object] = []
    for _ in range(101):
        nested = [nested]
    problem = canonical_key(nested).failure()
    assert problem == NotCanonical("query" + "[0]" * 101, "list", "nested deeper than 100 levels")


def test_a_set_member_without_a_canonical_key_is_located_as_a_member() -> None:
    problem = canonical_key({"tags": {_Opaque()}}).failure()
    assert problem == NotCanonical("query['tags']{member}", "_Opaque", "unsupported type")


def test_a_container_shared_twice_is_not_a_cycle() -> None:
    shared_map: dict[str, object] = {"a": 1}
    shared_list: list[object] = [1]
    shared_set: set[object] = {1}
    for shared, copy in ((shared_map, {"a": 1}), (shared_list, [1]), (shared_set, {1})):
        assert canonical_key([shared, shared]) == canonical_key([copy, copy])
        assert isinstance(canonical_key([shared, shared]).unwrap(), str)


def test_ints_are_decimal_below_13287_bits_and_tagged_hex_from_there() -> None:
    # 13287 bits is where 4000 decimal digits end; from there on an int's key is its tagged hex.
    below, at = 2**13286 - 1, 2**13286
    assert (below.bit_length(), at.bit_length()) == (13286, 13287)
    assert canonical_key(below).unwrap() == str(below)
    assert canonical_key(at).unwrap() == '{"int":"' + hex(at) + '"}'
