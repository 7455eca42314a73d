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
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import partial

from returns.result import Failure, Result, Success

from thrift_fp._shown import shown
from thrift_fp.retrieval._errors import NotCanonical

_MAX_DEPTH = 100
# Decimal up to 4000 digits (Python prints at most 4300); 13287 bits is 10**4000.
_DECIMAL_BITS = 13_287


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
    return _encode(value)


# One step from a value to a part of it, turned into Python subscript text only on failure.
_Step = tuple[str, object]


@dataclass(slots=True)
class _Frame:
    """A container being encoded: its remaining parts and the encodings of those already done."""

    value: object
    path: tuple[_Step, ...]
    parts: Iterator[tuple[_Step, object]]
    finish: Callable[[list[str]], str]
    done: list[str]


def _path_text(path: tuple[_Step, ...]) -> str:
    text = ["query"]
    for kind, part in path:
        if kind == "index":
            text.append(f"[{part}]")
        elif kind == "key":
            text.append(f"[{shown(part)}]<key>")
        elif kind == "value":
            text.append(f"[{shown(part)}]")
        elif kind == "member":
            text.append("{member}")
        else:
            text.append(f".{part}")
    return "".join(text)


def _problem(path: tuple[_Step, ...], value: object, reason: str) -> NotCanonical:
    return NotCanonical(_path_text(path), type(value).__qualname__, reason)


def _encode(root: object) -> Result[str, NotCanonical]:
    # Iterative, with an explicit stack: a deep query is an error value, never a RecursionError.
    stack: list[_Frame] = []
    open_ids: set[int] = set()
    value: object = root
    path: tuple[_Step, ...] = ()
    while True:
        if len(path) > _MAX_DEPTH:
            return Failure(_problem(path, value, f"nested deeper than {_MAX_DEPTH} levels"))
        opened = _open(value, path, open_ids)
        if isinstance(opened, NotCanonical):
            return Failure(opened)
        if isinstance(opened, _Frame):
            stack.append(opened)
            open_ids.add(id(value))
            encoded = None
        else:
            encoded = opened
        while True:
            if encoded is not None:
                if not stack:
                    return Success(encoded)
                stack[-1].done.append(encoded)
            frame = stack[-1]
            step = next(frame.parts, None)
            if step is not None:
                (kind, part), value = step
                path = (*frame.path, (kind, part))
                break
            stack.pop()
            open_ids.discard(id(frame.value))
            encoded = frame.finish(frame.done)


def _open(value: object, path: tuple[_Step, ...], open_ids: set[int]) -> str | _Frame | NotCanonical:
    # Enum first: IntEnum/StrEnum members are also ints/strs but compare as members.
    if isinstance(value, enum.Enum):
        return _tagged("enum", f"[{_text(_class_name(value))},{_text(value.name)}]")
    scalar = _encode_scalar(value)
    if scalar is not None:
        return scalar
    if id(value) in open_ids:
        return _problem(path, value, "refers to itself (a cycle)")
    if isinstance(value, list | tuple):
        tag = "list" if isinstance(value, list) else "tuple"
        items = ((("index", i), item) for i, item in enumerate(value))
        return _Frame(value, path, items, partial(_finish_items, tag, False), [])
    if isinstance(value, set | frozenset):
        members = ((("member", None), item) for item in value)
        return _Frame(value, path, members, partial(_finish_items, "set", True), [])
    if isinstance(value, Mapping):
        pairs = (
            part for key, item in value.items() for part in ((("key", key), key), (("value", key), item))
        )
        return _Frame(value, path, pairs, _finish_map, [])
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        if not type(value).__dataclass_params__.eq:  # type: ignore[attr-defined]  # set by @dataclass, untyped
            # Distinct instances are distinct queries, so their fields cannot be their key.
            return _problem(path, value, "a dataclass with eq=False compares by identity; give the definition a key")
        compared = sorted((f.name for f in dataclasses.fields(value) if f.compare))
        fields = ((("attr", name), getattr(value, name)) for name in compared)
        return _Frame(value, path, fields, partial(_finish_dataclass, _class_name(value), compared), [])
    return _problem(path, value, "unsupported type")


def _finish_items(tag: str, sort: bool, done: list[str]) -> str:
    return _tagged(tag, f"[{','.join(sorted(done) if sort else done)}]")


def _finish_map(done: list[str]) -> str:
    # Sorting by the key's encoding makes insertion order irrelevant.
    pairs = sorted(zip(done[0::2], done[1::2], strict=True))
    return _tagged("map", f"[{','.join(f'[{k},{v}]' for k, v in pairs)}]")


def _finish_dataclass(class_name: str, names: list[str], done: list[str]) -> str:
    pairs = ",".join(f"[{_text(name)},{encoded}]" for name, encoded in zip(names, done, strict=True))
    return _tagged("dataclass", f"[{_text(class_name)},[{pairs}]]")


def _text(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


def _class_name(value: object) -> str:
    cls = type(value)
    return f"{cls.__module__}.{cls.__qualname__}"


def _tagged(tag: str, payload: str) -> str:
    return f'{{"{tag}":{payload}}}'


def _encode_scalar(value: object) -> str | None:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        # Above Python's int->str digit limit; hex has no limit and stays distinct.
        return str(value) if value.bit_length() < _DECIMAL_BITS else _tagged("int", _text(hex(value)))
    if isinstance(value, float):
        normal = 0.0 if value == 0.0 else value
        return _tagged("float", _text("nan" if normal != normal else repr(normal)))
    if isinstance(value, str):
        return _text(value)
    if isinstance(value, bytes | bytearray):
        return _tagged("bytes", _text(value.hex()))
    return None
