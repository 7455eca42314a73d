"""Small readers shared by the dict-based adapters: string leaves of JSON-like values, and checks."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Final

_MAX_DEPTH: Final = 64


def string_leaves(value: object, skip: frozenset[str] = frozenset(), depth: int = 0) -> Iterator[str]:
    """Every ``str`` inside ``value`` (mappings, lists and tuples walked in order), leaving out the
    values of keys in ``skip`` at any depth; numbers and bools are written as JSON would. Nesting
    deeper than 64 levels is read as its ``repr`` (a JSON-like message is never that deep).

    >>> list(string_leaves({"type": "file", "file": {"filename": "a.pdf", "size": 3}}, frozenset({"type"})))
    ['a.pdf', '3']
    """
    if isinstance(value, str):
        yield value
    elif isinstance(value, bool):
        yield "true" if value else "false"
    elif isinstance(value, int | float):
        yield repr(value)
    elif depth >= _MAX_DEPTH:
        yield repr(value)
    elif isinstance(value, Mapping):
        for key, item in value.items():
            if key not in skip:
                yield from string_leaves(item, skip, depth + 1)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from string_leaves(item, skip, depth + 1)
    elif value is not None:
        yield str(value)


def non_empty_str(value: object) -> bool:
    """A ``str`` with at least one character.

    >>> non_empty_str(""), non_empty_str("x"), non_empty_str(3)
    (False, True, False)
    """
    return isinstance(value, str) and bool(value)
