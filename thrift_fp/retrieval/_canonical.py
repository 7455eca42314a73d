"""The default query key: a canonical, type-tagged JSON serialisation.

Equality here is *type-strict*: ``1``, ``1.0``, ``True`` and ``"1"`` are four
different queries, and so are a list and a tuple with the same items. Within a
type, values equal by ``==`` get equal keys, whatever their insertion order:

- ``str``, ``int``, ``bool``, ``None`` are plain JSON (so the key of ``"Agent"``
  is ``'"Agent"'``); every other type is a one-member JSON object whose name is
  its tag, which keeps the encoding injective.
- ``float``: its ``repr`` (``-0.0`` is ``0.0``; every NaN is ``nan``).
- ``bytes``/``bytearray``: hex. ``Enum`` members: class and member name.
- ``list`` and ``tuple``: items in order, tagged apart.
- any ``Mapping``: ``[key, value]`` pairs sorted by the key's own encoding.
- ``set``/``frozenset`` (equal to each other, as in Python): members sorted.
- dataclass instances: qualified class name and the fields that take part in
  ``==``, sorted by name (an ``eq=False`` dataclass compares by identity, so it
  has no canonical key).

Anything else, a cycle, or nesting deeper than 100 is a ``NotCanonical`` value.
"""

from __future__ import annotations

import dataclasses
import enum
import json
from collections.abc import Iterable, Mapping

from returns.result import Failure, Result, Success

from thrift_fp.retrieval._errors import NotCanonical

_MAX_DEPTH = 100


def canonical_key(value: object) -> Result[str, NotCanonical]:
    """The canonical key of ``value``: equal values, equal keys; distinct, distinct.

    >>> canonical_key("Agent").unwrap()
    '"Agent"'
    >>> canonical_key({"b": 1, "a": [1.0, True]}).unwrap()
    '{"map":[["a",{"list":[{"float":"1.0"},true]}],["b",1]]}'
    >>> canonical_key({"a": 1, "b": 2}) == canonical_key({"b": 2, "a": 1})
    True
    >>> len({canonical_key(v).unwrap() for v in (1, 1.0, True, "1")})
    4
    >>> canonical_key({"when": object()}).failure().message
    "query['when'] (object): unsupported type"
    """
    return _encode(value, "query", 0, frozenset())


def _text(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


def _class_name(value: object) -> str:
    cls = type(value)
    return f"{cls.__module__}.{cls.__qualname__}"


def _tagged(tag: str, payload: str) -> str:
    return f'{{"{tag}":{payload}}}'


def _encode(value: object, path: str, depth: int, open_ids: frozenset[int]) -> Result[str, NotCanonical]:
    type_name = type(value).__qualname__
    if depth > _MAX_DEPTH:
        return Failure(NotCanonical(path, type_name, f"nested deeper than {_MAX_DEPTH} levels"))
    # Enum first: IntEnum/StrEnum members are also ints/strs but compare as members.
    if isinstance(value, enum.Enum):
        return Success(_tagged("enum", f"[{_text(_class_name(value))},{_text(value.name)}]"))
    scalar = _encode_scalar(value)
    if scalar is not None:
        return Success(scalar)
    if id(value) in open_ids:
        return Failure(NotCanonical(path, type_name, "refers to itself (a cycle)"))
    inner = open_ids | {id(value)}
    if isinstance(value, list | tuple):
        tag = "list" if isinstance(value, list) else "tuple"
        return _encode_items(
            ((f"{path}[{i}]", item) for i, item in enumerate(value)), depth, inner, sort=False
        ).map(lambda items: _tagged(tag, f"[{','.join(items)}]"))
    if isinstance(value, set | frozenset):
        return _encode_items(
            ((f"{path}{{member}}", item) for item in value), depth, inner, sort=True
        ).map(lambda items: _tagged("set", f"[{','.join(items)}]"))
    if isinstance(value, Mapping):
        return _encode_pairs(
            ((f"{path}[{k!r}]", k, v) for k, v in value.items()), depth, inner
        ).map(lambda pairs: _tagged("map", f"[{','.join(pairs)}]"))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        if not type(value).__dataclass_params__.eq:  # type: ignore[attr-defined]  # set by @dataclass, untyped
            # Distinct instances are distinct queries, so their fields cannot be their key.
            return Failure(
                NotCanonical(path, type_name, "a dataclass with eq=False compares by identity; give the definition a key")
            )
        compared = sorted((f for f in dataclasses.fields(value) if f.compare), key=lambda f: f.name)
        return _encode_pairs(
            ((f"{path}.{f.name}", f.name, getattr(value, f.name)) for f in compared), depth, inner
        ).map(
            lambda pairs: _tagged(
                "dataclass", f"[{_text(_class_name(value))},[{','.join(pairs)}]]"
            )
        )
    return Failure(NotCanonical(path, type_name, "unsupported type"))


def _encode_scalar(value: object) -> str | None:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        # Above Python's int->str digit limit; hex has no limit and stays distinct.
        return str(value) if abs(value) < 10**4000 else _tagged("int", _text(hex(value)))
    if isinstance(value, float):
        normal = 0.0 if value == 0.0 else value
        return _tagged("float", _text("nan" if normal != normal else repr(normal)))
    if isinstance(value, str):
        return _text(value)
    if isinstance(value, bytes | bytearray):
        return _tagged("bytes", _text(value.hex()))
    return None


def _encode_items(
    items: Iterable[tuple[str, object]], depth: int, open_ids: frozenset[int], *, sort: bool
) -> Result[list[str], NotCanonical]:
    encoded: list[str] = []
    for path, item in items:
        one = _encode(item, path, depth + 1, open_ids)
        if isinstance(one, Failure):
            return Failure(one.failure())
        encoded.append(one.unwrap())
    return Success(sorted(encoded) if sort else encoded)


def _encode_pairs(
    pairs: Iterable[tuple[str, object, object]], depth: int, open_ids: frozenset[int]
) -> Result[list[str], NotCanonical]:
    encoded: list[tuple[str, str]] = []
    for path, key, item in pairs:
        k = _encode(key, f"{path}<key>", depth + 1, open_ids)
        if isinstance(k, Failure):
            return Failure(k.failure())
        v = _encode(item, path, depth + 1, open_ids)
        if isinstance(v, Failure):
            return Failure(v.failure())
        encoded.append((k.unwrap(), v.unwrap()))
    # Sorting by the key's encoding makes insertion order irrelevant.
    return Success([f"[{k},{v}]" for k, v in sorted(encoded)])
