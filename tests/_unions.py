"""The classes an error union names, for the tests that walk every error value."""

from __future__ import annotations

import types
import typing
from collections.abc import Iterator


def union_members(union: object) -> Iterator[type]:
    """Every class in ``union``, nested unions flattened.

    >>> [cls.__name__ for cls in union_members(int | (str | None))]
    ['int', 'str', 'NoneType']
    """
    if isinstance(union, types.UnionType) or typing.get_origin(union) is typing.Union:
        for arg in typing.get_args(union):
            yield from union_members(arg)
    else:
        assert isinstance(union, type), union
        yield union
